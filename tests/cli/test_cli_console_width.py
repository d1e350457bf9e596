"""``agentgauge run``'s console output fits an 80-column terminal (``COLUMNS=80``): the summary
tables (rich lays them out for the width) and the closing ``run: DIR (...)`` line, which breaks
between its counts when the run directory's path leaves no room. The runs: the quickstart with
the echo mock, the retail world with its oracle and its hasty agent (worlds, simulated users,
state differences), the custom scorer's careless agent under its gate (scorers, gate lines) and
the modules example's oracle (module metrics)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUNS = {
    "quickstart": ["examples/quickstart", "--agent", "mock:echo"],
    "retail": ["examples/retail", "--agent", "python:examples/retail/oracle_agent.py:agent"],
    "retail-hasty": ["examples/retail", "--agent", "python:examples/retail/oracle_agent.py:hasty"],
    "scorers": ["examples/custom_scorer/suite.yaml", "--gate",
                "--agent", "python:examples/custom_scorer/oracle_agent.py:careless"],
    "modules": ["examples/modules", "--agent", "python:examples/modules/oracle_agent.py:agent"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(RUNS))
def test_run_output_fits_80_columns(name: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    env = {**os.environ, "COLUMNS": "80"}
    env.pop("AGENTGAUGE_ALLOW_SUITE_CODE", None)
    args = [sys.executable, "-m", "agentgauge", "run", *RUNS[name], "-o", str(out),
            "--allow-suite-code", "--no-history", "--no-progress", "--no-cache"]  # fmt: skip
    res = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert res.returncode in (0, 1), res.stderr
    lines = (res.stdout + res.stderr).splitlines()
    assert any(line.startswith("pass rate ") for line in lines), res.stdout
    assert f"run: {out}" in lines, res.stderr  # the directory whole, on a line of its own
    # only a path longer than the terminal may be wider (a temporary folder's path, elsewhere)
    wide = [f"{len(ln)}: {ln}" for ln in lines if len(ln) > 80 and ln != f"run: {out}"]
    assert wide == [], "\n".join(wide)


def test_the_run_line_breaks_between_counts(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentgauge.cli._run import _fit_line

    items = ["40 run now", "0 resumed", "3 model calls", "2 user errors", "0.1s"]
    monkeypatch.setenv("COLUMNS", "200")
    assert _fit_line("run: runs/x", items) == f"run: runs/x  ({', '.join(items)})"
    monkeypatch.setenv("COLUMNS", "30")
    lines = _fit_line("run: runs/x", items).splitlines()
    assert lines[0] == "run: runs/x"
    assert all(len(ln) <= 30 for ln in lines), lines
    for item in items:  # never broken inside a count
        assert any(item in ln for ln in lines), (item, lines)
