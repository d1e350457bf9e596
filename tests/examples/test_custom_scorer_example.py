"""examples/custom_scorer: its three checks of one's own (assert, a suite rubric, a python:
check) pass the right agent and fail the careless one, each with its reason, through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_scorer"
SUITE = EXAMPLE / "suite.yaml"
CHECKS = ("assert", "judge.empathy", "quotes_eta")


def _run(agent: str, out: Path) -> tuple[int, dict[str, dict[str, bool | None]]]:
    args = ["run", str(SUITE), "--agent", f"python:{EXAMPLE / 'oracle_agent.py'}:{agent}"]
    flags = ["--allow-suite-code", "--gate", "--no-progress", "--no-cache", "-o", str(out)]
    res = CliRunner().invoke(cli, [*args, *flags])
    assert res.exit_code in (0, 1), res.output
    verdicts = {r.case_id: {s.name: s.passed for s in r.scores} for r in iter_results(out)}
    return res.exit_code, verdicts


def test_example_validates() -> None:
    res = CliRunner().invoke(cli, ["validate", str(SUITE), "--allow-suite-code"])
    assert res.exit_code == 0, res.output
    assert "checks.py:quotes_eta (scorer) allowed" in res.output


@pytest.mark.parametrize(("agent", "passed", "code"), [("agent", True, 0), ("careless", False, 1)])
def test_right_agent_passes_every_check_and_careless_fails_each(
    agent: str, passed: bool, code: int, tmp_path: Path
) -> None:
    exit_code, verdicts = _run(agent, tmp_path / "run")
    assert exit_code == code, verdicts
    assert len(verdicts) == 2
    for scores in verdicts.values():
        assert {name: scores.get(name) for name in CHECKS} == dict.fromkeys(CHECKS, passed)
