"""A run exported with ``export-otel`` and scored back with ``score --responses trace.json``
keeps every verdict: the example suites' oracle runs, multi-turn cases included."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
#: example -> the flags both run and score need (every example suite with an oracle agent)
SUITES = {
    "quickstart": (),
    "travel": ("--allow-suite-code",),
    "modules": (),
    "redteam": (),
    "custom_scorer": ("--allow-suite-code",),
    # judged suites: the same scripted judge for the run and for the scoring
    "tool_selection": ("--judge", "mock:judge"),
    "support": ("--judge", "mock:judge"),
}


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.output


def _verdicts(run_dir: Path) -> dict[tuple[str, int], Any]:
    out = {}
    for line in (run_dir / "results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if "case_id" not in r:
            continue
        scores = [(s["name"], s["value"], s["passed"]) for s in r["scores"]]
        out[(r["case_id"], r["trial"])] = (r["status"], r["score"], scores, r["behavior"])
    return out


@pytest.mark.parametrize("name", sorted(SUITES))
def test_an_exported_oracle_run_scores_back_to_the_same_verdicts(name: str, tmp_path: Path) -> None:
    suite, flags = EXAMPLES / name, SUITES[name]
    agent = f"python:{suite / 'oracle_agent.py'}:agent"
    run_dir, scored, trace = tmp_path / "run", tmp_path / "scored", tmp_path / "trace.json"
    _cli("run", str(suite), "--agent", agent, "-o", str(run_dir), "--no-progress", "--no-history",
         *flags)  # fmt: skip
    _cli("export-otel", str(run_dir), "-o", str(trace))
    _cli("score", str(suite), "--responses", str(trace), "-o", str(scored), "--no-history",
         *flags)  # fmt: skip
    ran, back = _verdicts(run_dir), _verdicts(scored)
    assert ran
    assert {k: v for k, v in back.items() if ran.get(k) != v} == {}
    assert back.keys() == ran.keys()


def test_a_multi_turn_case_is_scored_turn_by_turn(tmp_path: Path) -> None:
    """quickstart's flights-portland: the clarifying question answers turn 1 and the search
    answers turn 2 (scored as one turn, the search landed on turn 1 and the case failed)."""
    suite = EXAMPLES / "quickstart"
    agent = f"python:{suite / 'oracle_agent.py'}:agent"
    run_dir, scored, trace = tmp_path / "run", tmp_path / "scored", tmp_path / "trace.json"
    _cli("run", str(suite), "--agent", agent, "-o", str(run_dir), "--no-history", "--no-progress")
    _cli("export-otel", str(run_dir), "-o", str(trace))
    _cli("score", str(suite), "-r", str(trace), "-o", str(scored), "--no-history")
    lines = [json.loads(x) for x in (scored / "results.jsonl").read_text().splitlines()]
    (portland,) = [r for r in lines if r.get("case_id") == "flights-portland"]
    assert portland["status"] == "passed", portland["explanation"]
    assert [e["turn"] for e in portland["trace"]] == [0, 1, 1, 1]  # model, model, tool, model
