"""A load run whose agent reports no token usage, or whose sessions all fail, never reads as
0 tokens or as a pass: ``load.json``, the console summary and ``load.html`` say unknown, the
cost estimate after the baseline keeps its guess, and a run without thresholds is no PASS."""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from agentgauge.cli import cli

SUITE = """name: edge
cases:
  - {id: a, input: please say word1, expect: {response_contains: [word1]}}
  - {id: b, input: please say word2, expect: {response_contains: [word2]}}
"""
#: a bare reply (no usage), an agent that always raises
AGENTS = {
    "bare": "def agent(messages, tools):\n    return messages[-1].content\n",
    "raises": "def agent(messages, tools):\n    raise RuntimeError('boom')\n",
}


def _load(tmp_path: Path, agent: str, *extra: str) -> tuple[dict[str, object], str, str]:
    (tmp_path / "suite.yaml").write_text(SUITE)
    if agent in AGENTS:
        (tmp_path / "agent.py").write_text(AGENTS[agent])
        spec = f"python:{tmp_path / 'agent.py'}:agent"
    else:
        spec = agent
    run = tmp_path / "run"
    args = ["load", str(tmp_path / "suite.yaml"), "--agent", spec, "--allow-suite-code"]
    args += ["--users", "1", "--sessions", "4", "-o", str(run), *extra]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    html = " ".join(re.sub(r"<[^>]+>", " ", (run / "load.html").read_text()).split())
    report = orjson.loads((run / "load.json").read_bytes())
    return report, " ".join(out.output.split()), html


@pytest.mark.parametrize("agent", ["bare", "raises"])
def test_no_usage_reported_is_unknown_tokens(tmp_path: Path, agent: str) -> None:
    report, console, html = _load(tmp_path, agent)
    totals = report["totals"]
    assert isinstance(totals, dict)
    assert totals["sessions"] == 4
    assert totals["tokens_per_min"] is None
    intervals = report["intervals"]
    assert isinstance(intervals, list)
    assert all(w["tokens_per_min"] is None for w in intervals if w["sessions"])
    assert "tokens/min ......... n/a (no usage reported)" in console
    assert "tokens/min ......... 0 " not in console
    assert "Tokens (per minute) n/a (no usage reported)" in html
    # the estimate after the baseline is not "~0 tokens (baseline)"
    assert "(prompt size: the baseline reported no token usage)" in console
    assert "~0 tokens (baseline)" not in console


def test_a_run_without_thresholds_is_no_pass(tmp_path: Path) -> None:
    report, _, html = _load(tmp_path, "raises")
    assert report["thresholds"] == []
    assert "no thresholds checked · 4 sessions" in html
    assert "PASS" not in html
    # every session failed: the quality plot has nothing to draw, and says so
    assert "Quality (pass rate, and against the unloaded baseline) n/a (nothing measured)" in html


def test_reported_usage_is_still_counted(tmp_path: Path) -> None:
    report, console, html = _load(tmp_path, "mock:echo", "--threshold", "error_rate<0.5")
    totals = report["totals"]
    assert isinstance(totals, dict)
    assert isinstance(totals["tokens_per_min"], float)
    assert totals["tokens_per_min"] > 0
    assert "(baseline);" in console
    assert "PASS · 4 sessions" in html
    assert "no usage reported" not in html
