"""The conversation ends at the case's budget: a latency budget already spent after the agent's
first reply ends it there (``ended_by: budget``), before the user is asked again, and the case
is graded on what was said — here the order was never looked up, so it fails."""

from __future__ import annotations

from pathlib import Path

from user_helpers import CLARIFY_CASE, OrderAgent, run, suite_of


def test_a_spent_budget_ends_the_conversation(tmp_path: Path) -> None:
    case = {**CLARIFY_CASE, "latency_budget_s": 1e-9}  # spent by any first turn
    [r] = run(tmp_path / "spent", suite_of([case]), OrderAgent())
    assert r.user is not None
    assert (r.user.ended_by, r.user.turns) == ("budget", 1)
    assert [e for e in r.trace if e.kind == "user"] == []  # the user was never asked
    assert r.status == "failed"  # no get_order call: the question was never answered
    [ok] = run(tmp_path / "ample", suite_of([{**case, "latency_budget_s": 600}]), OrderAgent())
    assert ok.user is not None
    assert ok.user.ended_by == "stop"
    assert ok.status == "passed", ok.explanation
