"""Scripted users, offline: a clarify case tells an agent that asks and uses the answer from one
that asks and ignores it and one that guesses; a memory case over six turns fails an agent that
forgets the turn-1 fact; the user's turns are on the transcript and trace as its own."""

from __future__ import annotations

from pathlib import Path

from user_helpers import CLARIFY_CASE, MemoryAgent, OrderAgent, run, suite_of


def test_an_agent_that_asks_and_uses_the_answer_passes(tmp_path: Path) -> None:
    [r] = run(tmp_path, suite_of([CLARIFY_CASE]), OrderAgent())
    assert r.status == "passed", r.explanation
    assert [c.arguments for c in r.calls] == [{"order_id": "A7"}]
    said = [(m.role, m.content) for m in r.messages if m.role in ("user", "assistant")]
    assert said[:3] == [
        ("user", "Where is my order?"),
        ("assistant", "Sure — what is your order number?"),
        ("user", "My order id is A7."),
    ]
    assert said[-1] == ("user", "Great, thanks!")
    assert r.user is not None
    assert (r.user.kind, r.user.turns, r.user.ended_by) == ("scripted", 3, "stop")
    users = [e for e in r.trace if e.kind == "user"]
    assert [e.turn for e in users] == [1, 2]
    assert r.model_calls == 3  # the agent's calls only; the user's steps are apart


def test_an_agent_that_asks_and_ignores_the_answer_fails(tmp_path: Path) -> None:
    [r] = run(tmp_path, suite_of([CLARIFY_CASE]), OrderAgent(use_answer=False))
    assert r.status == "failed"
    assert "order_id" in r.explanation
    assert "'A1'" in r.explanation


def test_an_agent_that_guesses_without_asking_fails(tmp_path: Path) -> None:
    [r] = run(tmp_path, suite_of([CLARIFY_CASE]), OrderAgent(ask=False))
    assert r.status == "failed"
    assert r.user is not None
    assert r.user.turns == 2
    assert "'A1'" in r.explanation


MEMORY_CASE = {
    "id": "memory-account",
    "input": "Hi, my account number is 99172. I have a few questions.",
    "user": {
        "otherwise": [
            "What are your opening hours?",
            "Do you ship abroad?",
            "Can I pay by card?",
            "Is there a student discount?",
            "What was my account number again?",
        ],
    },
    "expect": {"response_contains": ["99172"]},
}


def test_a_memory_case_over_six_turns_fails_an_agent_that_forgets(tmp_path: Path) -> None:
    suite = suite_of([MEMORY_CASE])
    [good] = run(tmp_path / "good", suite, MemoryAgent(remember=True))
    assert good.status == "passed", good.explanation
    assert good.user is not None
    assert (good.user.turns, good.user.ended_by) == (6, "script")
    [bad] = run(tmp_path / "bad", suite, MemoryAgent(remember=False))
    assert bad.status == "failed"
    assert "99172" in bad.explanation


def test_max_turns_ends_the_conversation(tmp_path: Path) -> None:
    case = {**MEMORY_CASE, "user": {**MEMORY_CASE["user"], "max_turns": 3}}
    [r] = run(tmp_path, suite_of([case]), MemoryAgent(remember=True))
    assert r.user is not None
    assert (r.user.turns, r.user.ended_by) == (3, "max_turns")
    assert r.status == "failed"  # the question about the account never came


def test_tell_fails_an_agent_that_never_tells_the_user(tmp_path: Path) -> None:
    case = {**CLARIFY_CASE, "user": {**CLARIFY_CASE["user"], "tell": ["shipped"]}}
    [good] = run(tmp_path / "good", suite_of([case]), OrderAgent())
    assert good.status == "passed", good.explanation
    case = {**CLARIFY_CASE, "user": {**CLARIFY_CASE["user"], "tell": ["arrives Friday"]}}
    [bad] = run(tmp_path / "bad", suite_of([case]), OrderAgent())
    assert bad.status == "failed"
    assert "user.tell: the agent never told the user: 'arrives Friday'" in bad.explanation
