"""A simulated user that breaks its instructions makes the result ``user_error``: neither a pass
nor the agent's failure, shown with the reason, left out of the agent's rates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from user_helpers import CLARIFY_CASE, ORDER_USER, OrderAgent, run, suite_of

from agentgauge.metrics import summarize_results
from agentgauge.schema import UserSpec
from agentgauge.users import UserGuard


def _case(**user: Any) -> dict[str, Any]:
    return {**CLARIFY_CASE, "id": "broken", "user": {**ORDER_USER, **user}}


def test_a_scripted_user_with_no_rule_for_the_agents_question(tmp_path: Path) -> None:
    # no fact answers "what is your order number" once asked_by names other words
    user = {"facts": {"order_id": {"value": "A7", "asked_by": ["reference"]}}}
    [r] = run(tmp_path, suite_of([_case(**user)]), OrderAgent())
    assert r.status == "user_error"
    assert r.explanation == (
        "user error: no rule answers the agent's message: 'Sure — what is your order number?'"
    )
    assert r.user is not None
    assert r.user.ended_by == "user_error"
    assert r.scores == []  # the agent is not graded on a conversation the user broke


def test_a_user_that_gives_a_fact_unasked(tmp_path: Path) -> None:
    # the agent never asks (it guesses); the rule volunteers the order number anyway
    rules = [{"when": ["shipped"], "say": "Thanks. By the way, my order is {order_id}."}]
    [r] = run(tmp_path, suite_of([_case(rules=rules)]), OrderAgent(ask=False))
    assert r.status == "user_error"
    assert r.explanation.startswith("user error: gave the fact 'order_id' unasked")


def test_a_user_that_gives_what_the_agent_must_not_obtain(tmp_path: Path) -> None:
    facts = {"order_id": {"value": "A7", "asked_by": ["order number"]}, "pin": "4471"}
    rules = [{"when": ["order number"], "say": "It is {order_id}, PIN {pin}."}]
    case = _case(facts=facts, rules=rules, must_not_obtain=["pin"])
    [r] = run(tmp_path, suite_of([case]), OrderAgent())
    assert r.status == "user_error"
    assert r.explanation == "user error: gave 'pin', which the agent must not obtain"


def test_the_right_user_is_not_blamed(tmp_path: Path) -> None:
    [r] = run(tmp_path, suite_of([CLARIFY_CASE]), OrderAgent())
    assert r.status == "passed"
    assert r.user is not None
    assert r.user.error is None


def test_a_user_that_ends_before_its_goal(tmp_path: Path) -> None:
    rules = [{"when": ["order number"], "say": "Never mind.", "end": True}]
    case = _case(rules=rules, done={"agent_says": ["shipped"]})
    [r] = run(tmp_path, suite_of([case]), OrderAgent())
    assert r.status == "user_error"
    assert "ended the conversation before its goal was reached" in r.explanation
    # the goal reached ends the conversation without the user's word: no error
    [ok] = run(tmp_path / "ok", suite_of([_case(done={"agent_says": ["shipped"]})]), OrderAgent())
    assert ok.status == "passed", ok.explanation
    assert ok.user is not None
    assert ok.user.ended_by == "done"


@pytest.mark.parametrize(
    ("message", "agent", "problem"),
    [
        ("It's A9.", "What is your order number?", "invented a order_id: 'A9'"),
        ("It's A7.", "How can I help?", "gave the fact 'order_id' unasked"),
        ("It's A7.", "What is your order number?", None),
        ("Is A7 shipped?", "So, A7 it is?", None),  # the agent said it first
        ("My order A77 and BA7", "What is your order number?", "invented a order_id: 'A77'"),
    ],
)
def test_the_guard_on_single_messages(message: str, agent: str, problem: str | None) -> None:
    guard = UserGuard(UserSpec.model_validate(ORDER_USER))
    found = guard.check(message, agent)
    assert (found is None) if problem is None else (found is not None and problem in found)


def test_user_errors_are_left_out_of_the_agents_rates(tmp_path: Path) -> None:
    broken = _case(facts={"order_id": {"value": "A7", "asked_by": ["reference"]}})
    suite = suite_of([CLARIFY_CASE, broken])
    results = run(tmp_path, suite, OrderAgent())
    assert sorted(r.status for r in results) == ["passed", "user_error"]
    overall = summarize_results(results).overall
    assert (overall.pass_rate.passed, overall.pass_rate.n) == (1, 1)  # 100 %, not 50 %
    assert overall.error_rate.value == 0.0
    assert (overall.user_errors, overall.user_error_rate.value) == (1, 0.5)
