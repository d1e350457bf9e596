"""The optional judge on a simulated user (``scorers: [{scorer: user_fidelity}]``): after the
deterministic checks, a judge reads the user's instructions and the conversation; a user that
drifted from its goal ("broke") makes the result ``user_error`` — not the agent's failure — and
one that kept to them leaves the agent graded as usual. ``mock:judge`` (the rule judge) plays
the judge offline."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from user_helpers import CLARIFY_CASE, ORDER_USER, OrderAgent, run, suite_of

from agentgauge.judges import Judge, JudgeConfig, build_scorers
from agentgauge.judges._user import conversation_text, user_instructions
from agentgauge.metrics import summarize_results
from agentgauge.schema import Message, ScorerRef, UserSpec

#: the user answers the agent's question, then wanders off to laptops
DRIFT_RULES = [
    {"when": ["order number"], "say": "It is {order_id}."},
    {"when": ["shipped"], "say": "Cool. Also, recommend a cheap gaming laptop with good battery."},
]


def _scorers() -> list[Any]:
    judge = Judge.from_config(JudgeConfig(spec="mock:judge", cache=False))
    return build_scorers([ScorerRef(scorer="user_fidelity")], judges={"mock:judge": judge},
                         judge_spec="mock:judge")  # fmt: skip


def _case(**user: Any) -> dict[str, Any]:
    return {**CLARIFY_CASE, "user": {**ORDER_USER, **user}}


def test_a_user_that_drifts_from_its_goal_is_a_user_error(tmp_path: Path) -> None:
    [r] = run(tmp_path, suite_of([_case(rules=DRIFT_RULES, max_turns=3)]), OrderAgent(),
              extra_scorers=_scorers())  # fmt: skip
    assert r.status == "user_error", r.explanation
    assert r.explanation.startswith(
        "user error: the judge found the user broke its instructions (user_fidelity): broke: "
        "drifted from the goal: 'Cool. Also, recommend a cheap gaming laptop"
    )
    assert r.user is not None
    assert r.user.ended_by == "user_error"
    assert r.user.error is not None
    assert "gaming laptop" in r.user.error
    overall = summarize_results([r]).overall
    assert (overall.user_errors, overall.pass_rate.n) == (1, 0)  # not the agent's failure


def test_a_user_that_keeps_to_its_goal_leaves_the_agent_graded(tmp_path: Path) -> None:
    scorers = _scorers()
    [good] = run(tmp_path / "good", suite_of([_case()]), OrderAgent(), extra_scorers=scorers)
    assert good.status == "passed", good.explanation
    fidelity = next(s for s in good.scores if s.name == "user_fidelity")
    assert (fidelity.passed, fidelity.actual) == (True, "followed")
    # the agent's own failure stays the agent's: the judge does not excuse it
    [bad] = run(tmp_path / "bad", suite_of([_case()]), OrderAgent(use_answer=False),
                extra_scorers=scorers)  # fmt: skip
    assert bad.status == "failed"
    assert "'A1'" in bad.explanation


def test_without_the_scorer_the_drift_goes_unseen(tmp_path: Path) -> None:
    # the deterministic checks cannot see a change of topic: only the judge does
    [r] = run(tmp_path, suite_of([_case(rules=DRIFT_RULES, max_turns=3)]), OrderAgent())
    assert r.status == "passed", r.explanation


def test_the_judge_never_sees_a_secret_and_sees_no_tool_calls() -> None:
    spec = UserSpec.model_validate(
        {"goal": "Pay.", "facts": {"card": "4111", "pin": "9931"}, "must_not_obtain": ["pin"]}
    )
    text = user_instructions(spec)
    assert "4111" in text
    assert "9931" not in text
    assert "fact pin: (secret: must never be given)" in text
    convo = conversation_text(
        [
            Message(role="system", content="be nice"),
            Message(role="user", content="Hi"),
            Message(role="assistant", content=None, tool_calls=[]),
            Message(role="tool", content='{"ok": true}'),
            Message(role="assistant", content="Done.\n"),
        ]
    )
    assert convo == "user: Hi\nagent: Done."


@pytest.mark.parametrize(
    ("said", "verdict"),
    [
        ("It is A7.", "followed"),
        ("Thanks!", "followed"),  # short: an acknowledgement
        ("Which laptop brands do you stock for students?", "broke"),
    ],
)
def test_the_rule_judge_on_one_answer(said: str, verdict: str) -> None:
    from agentgauge.judges._rulejudge import _user_fidelity

    instructions = user_instructions(UserSpec.model_validate(ORDER_USER))
    conversation = f"user: Where is my order?\nagent: What is your order number?\nuser: {said}"
    got = _user_fidelity({"user_instructions": instructions, "conversation": conversation})
    assert got["verdict"] == verdict
