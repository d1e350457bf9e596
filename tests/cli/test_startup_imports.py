"""A plain ``agentgauge run`` imports only what it uses (issue 26, start-up): not the capture,
OpenTelemetry, comparison, matrix, HTML, dashboard, judge, lint or importer modules. Checked
with ``sys.modules`` in a child process, never with a timing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SUITE = """\
name: one
tools:
  - name: get_weather
    description: Weather for a city.
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
cases:
  - id: c1
    input: What is the weather in Paris?
    expect:
      tool_calls:
        - name: get_weather
          arguments: {city: Paris}
"""

#: modules a plain run of a suite without scorers, gates or baseline never needs
NOT_IMPORTED = (
    "agentgauge.exchange._capture",
    "agentgauge.exchange._otel_import",
    "agentgauge.exchange._otel_export",
    "agentgauge.exchange._mcp",
    "agentgauge.metrics._compare",
    "agentgauge.metrics._gating",
    "agentgauge.metrics._matrix",
    "agentgauge.report._html",
    "agentgauge.report._dashboard",
    "agentgauge.report._markdown",
    "agentgauge.report._matrix",
    "agentgauge.judges._judge",
    "agentgauge.judges._registry",
    "agentgauge.suites._lint",
    "agentgauge.suites._export",
    "agentgauge.importers",
    "agentgauge.io",
    # one process: the worker-process and Ray machinery, the matrix, planning reviews of a
    # reviews.jsonl, the red-team table (it shares the HTML helpers)
    "agentgauge.runner._procs",
    "agentgauge.runner._proc_worker",
    "agentgauge.runner._ray_worker",
    "agentgauge.runner._matrix",
    "agentgauge.runner._matrix_members",
    "agentgauge.metrics._reviews",
    "agentgauge.report._redteam",
    "agentgauge.report._modules",
    "agentgauge.metrics._gate_model",
    "agentgauge.exchange._feedback",
    "agentgauge.report._html_charts",
    # BFCL's world and checker (only a suite with a bfcl world), the foreign transcript formats
    # (only a case whose input is another framework's conversation), a load test's sessions
    "agentgauge.worlds._bfcl_check",
    "agentgauge.worlds._bfcl_exec",
    "agentgauge.worlds._bfcl_world",
    "agentgauge.formats._transcripts",
    "agentgauge.formats._transcripts_read",
    "agentgauge.formats._transcripts_write",
    "agentgauge.runner._sessions",
    # the model-free extra scorers (only with ``scorers:``), the simulated users (only a case
    # with a user), a framework agent's turn records and loop (only such an agent)
    "agentgauge.scoring._extra",
    "agentgauge.scoring._numeric_grounding",
    "agentgauge.users",
    "agentgauge.users._conversation",
    "agentgauge.users._model",
    "agentgauge.providers._frameworks._turn",
    "agentgauge.runner._driven",
    # shards merged (only ``--shard`` / ``merge``), the date parser (only a ``date`` comparison)
    "agentgauge.rundir._shards",
    "agentgauge._dates",
    # pydantic's plugin discovery (the command line gives it no plugins: cli/_startup.py)
    "importlib.metadata",
    # the locating of refused suite code (only when the policy refuses some)
    "agentgauge.runner._code_check",
    # the email package (only a Retry-After given as an HTTP date), the TOML reader (only
    # when the user has a config file)
    "email",
    "email.utils",
    "tomllib",
)

#: the child: runs the CLI in-process, then writes what it imported and the collector's state
PROBE = """
import gc, json, sys
from agentgauge.cli import main
code = 0
try:
    main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code or 0
with open(sys.argv[1], "w") as fh:
    json.dump({"code": code, "modules": sorted(sys.modules), "gc": gc.isenabled()}, fh)
"""


def _probe(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "probe.json"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert out.exists(), done.stderr
    data: dict[str, Any] = json.loads(out.read_text())
    return data


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "one.yaml"
    path.write_text(SUITE)
    return path


def _run_args(suite: Path, run_dir: Path) -> list[str]:
    return ["run", str(suite), "--agent", "mock:", "-o", str(run_dir), "--no-cache"]


def test_a_plain_run_imports_none_of_the_unused_modules(
    tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "history.sqlite"))
    run_dir = tmp_path / "run"
    data = _probe(tmp_path, *_run_args(suite, run_dir), "--no-progress")
    assert data["code"] == 0
    assert (run_dir / "results.jsonl").read_text().count("\n") == 1
    assert (run_dir / "summary.json").exists()
    modules = set(data["modules"])
    # what the run did use is there (the probe sees lazily imported modules)
    assert {"agentgauge.runner._suite", "agentgauge.report._console"} <= modules
    assert sorted(m for m in NOT_IMPORTED if m in modules) == []
    assert data["gc"] is True  # the collector is back on after start-up


def test_the_probe_sees_a_module_a_command_does_import(
    tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check can fail: the same probe around ``run --gate``, ``run --workers 2`` and
    ``report --format html`` finds the gate, worker-process and HTML modules they import."""
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "history.sqlite"))
    run_dir = tmp_path / "run"
    data = _probe(tmp_path, *_run_args(suite, run_dir), "--no-progress", "--gate")
    assert "agentgauge.metrics._gating" in data["modules"]
    two = tmp_path / "two"
    data = _probe(tmp_path, *_run_args(suite, two), "--no-progress", "--workers", "2")
    assert data["code"] == 0
    assert "agentgauge.runner._procs" in data["modules"]
    html = tmp_path / "report.html"
    data = _probe(tmp_path, "report", str(run_dir), "--format", "html", "-o", str(html))
    assert data["code"] == 0
    assert html.exists()
    assert "agentgauge.report._html" in data["modules"]
    assert data["gc"] is True


def test_the_toml_reader_and_the_email_dates_are_imported_when_used(
    tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check can fail: with a user config file the run imports tomllib, and a Retry-After
    date imports email.utils (and is still read)."""
    config = tmp_path / "config.toml"
    config.write_text("allow_suite_code = false\n")
    monkeypatch.setenv("AGENTGAUGE_CONFIG", str(config))
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "history.sqlite"))
    data = _probe(tmp_path, *_run_args(suite, tmp_path / "run"), "--no-progress")
    assert data["code"] == 0
    assert "tomllib" in data["modules"]
    code = (
        "import sys\n"
        "from agentgauge.cli import _startup\n"
        "_startup.begin()  # as the command line: no pydantic plugin scan (it imports email)\n"
        "from agentgauge.providers._common import parse_retry_after\n"
        "before = 'email.utils' in sys.modules\n"
        "date = {'Retry-After': 'Wed, 21 Oct 2015 07:28:00 GMT'}\n"
        "wait = parse_retry_after(date, now=1445412470)\n"
        "print(before, 'email.utils' in sys.modules, wait)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "10.0"]
