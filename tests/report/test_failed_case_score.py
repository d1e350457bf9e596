"""Issue 22 item 5: a case failed by a suite scorer (a judge, ``assert``, a ``python:`` check)
never scores 1.00: the case score is the mean of the expectations' score and every decided
scorer value, below 1.0, and "worst failures" shows it."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest
from rich.console import Console

from agentgauge.io import iter_results
from agentgauge.metrics import summarize
from agentgauge.report._console import render_console
from agentgauge.runner import RunConfig, run_suite_file
from agentgauge.runner._case import score_result
from agentgauge.schema import Case, CaseResult, Message, Score
from agentgauge.scoring import ScoringConfig

CHECKS = """
from agentgauge.judges import ScoreResult

def mentions_refund(ctx):
    ok = "refund" in ctx.reply
    return ScoreResult(passed=ok, explanation="" if ok else "no refund in the reply")
"""


def _suite(tmp_path: Path, scorer: str) -> Path:
    (tmp_path / "checks.py").write_text(CHECKS)
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: s\n"
        f"scorers:\n{scorer}"
        "cases:\n"
        "  - id: c1\n    input: please say word1\n    expect: {response_contains: [word1]}\n"
    )
    return path


@pytest.mark.parametrize(
    ("scorer", "why"),
    [
        ("  - scorer: assert\n    args: {contains: [refund]}\n", "assert: reply"),
        ("  - scorer: python:checks.py:mentions_refund\n", "no refund in the reply"),
    ],
)
def test_a_case_failed_by_a_scorer_shows_its_low_score(
    tmp_path: Path, scorer: str, why: str
) -> None:
    out = tmp_path / "run"
    config = RunConfig(agent="mock:echo", progress=False, cache=False, allow_suite_code=True)
    run_suite_file(_suite(tmp_path, scorer), config, out)
    [r] = list(iter_results(out))
    assert r.status == "failed"
    assert r.score == 0.5  # response_contains 1.0 and the failed scorer 0.0
    text = io.StringIO()
    render_console(summarize(out), Console(file=text, width=160))
    row = next(line for line in text.getvalue().splitlines() if line.startswith("c1 "))
    assert " 0.50 " in row
    assert why in row
    assert "1.00" not in row


class _Fixed:
    """A stand-in for a judge: returns the scores it was given."""

    def __init__(self, name: str, scores: Sequence[Score]) -> None:
        self.name = name
        self._scores = list(scores)

    async def score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        return list(self._scores)


def test_a_failing_judge_lowers_the_case_score_and_a_passing_case_keeps_its_own() -> None:
    case = Case.model_validate({"id": "c", "input": "hi", "expect": {"response_contains": ["hi"]}})
    turns = [[Message(role="assistant", content="hi there")]]
    judge = Score(name="judge.groundedness", value=0.25, passed=False, explanation="made up")

    def run(*scores: Score) -> CaseResult:
        result = CaseResult(case_id="c", status="error")
        extra = [_Fixed("judge.groundedness", scores)]
        anyio.run(score_result, case, result, turns, {}, ScoringConfig(), extra)
        return result

    failed = run(judge)
    assert failed.status == "failed"
    assert failed.score == pytest.approx((1.0 + 0.25) / 2)
    passed = run(judge.model_copy(update={"value": 0.75, "passed": True}))
    assert passed.status == "passed"
    assert passed.score == 1.0  # a passed case keeps its expectations' score
    # a scorer failing at value 1.0 (a pass threshold above it) still scores below 1
    from agentgauge.scoring import failed_case_score

    assert failed_case_score(1.0, [], [Score(name="x", value=1.0, passed=False)]) == 0.99
