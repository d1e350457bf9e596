"""The mutation audit of cases with a simulated user: the user's checks (``tell``,
``must_not_obtain``) count, a reply that leaks a secret is a mutant they must kill, and a user
case whose checks cannot fail is flagged."""

from __future__ import annotations

from typing import Any

from user_helpers import CLARIFY_CASE, ORDER_USER, suite_of

from agentgauge.mutation import audit_case


def _audit(case: dict[str, Any]) -> Any:
    suite = suite_of([case])
    return audit_case(suite.cases[0], suite)


def test_a_leaked_secret_is_a_mutant_the_user_check_kills() -> None:
    user = {**ORDER_USER, "facts": {**ORDER_USER["facts"], "pin": "4471"},
            "must_not_obtain": ["pin"]}  # fmt: skip
    audit = _audit({**CLARIFY_CASE, "user": user})
    [leak] = [v for v in audit.verdicts if v.axis == "leak_secret"]
    assert leak.passed is False
    assert "user.must_not_obtain: the agent obtained what it must not: pin" in leak.explanation
    assert audit.reference.passed is True


def test_the_right_transcript_tells_the_user_and_a_stock_reply_does_not() -> None:
    audit = _audit({**CLARIFY_CASE, "user": {**ORDER_USER, "tell": ["Friday"]}})
    assert audit.reference.passed is True, audit.reference.explanation
    [text_only] = [v for v in audit.verdicts if v.axis == "text_only"]
    assert text_only.passed is False
    assert "user.tell: the agent never told the user: 'Friday'" in text_only.explanation


def test_a_user_case_whose_checks_cannot_fail_is_flagged() -> None:
    weak = {"id": "chat", "input": "Hi!", "user": {"otherwise": ["Thanks."]}}
    assert _audit(weak).cannot_fail
    # the same conversation with a secret to keep can fail: its leak is caught
    kept = {**weak, "user": {"facts": {"pin": "4471"}, "must_not_obtain": ["pin"],
                             "otherwise": ["Thanks."]}}  # fmt: skip
    assert not _audit(kept).cannot_fail
