"""The outcome checks, pure: each assertion kind fails on a wrong state and passes on the right
one, ``unchanged`` and the reference comparison name each differing record and field, and the
score is a function of the expectation and the snapshots alone."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from agentgauge.schema import Case, StateExpectation
from agentgauge.scoring import score_case
from agentgauge.worlds import WorldOutcome

START: dict[str, Any] = {
    "orders": {
        "A1": {"status": "pending", "total": 30, "note": "gift for Ann",
               "items": [{"sku": "X1", "qty": 2}, {"sku": "Y2", "qty": 1}]},
        "A2": {"status": "shipped", "total": 50.0},
    },
    "users": {"U1": {"email": "ann@example.com"}},
}  # fmt: skip


def state(**changes: Any) -> dict[str, Any]:
    """START with ``orders.A1`` fields changed (``None`` deletes the field)."""
    out = copy.deepcopy(START)
    for k, v in changes.items():
        if v is None:
            out["orders"]["A1"].pop(k, None)
        else:
            out["orders"]["A1"][k] = v
    return out


def verdict(exp: dict[str, Any], final: dict[str, Any], **kw: Any) -> tuple[bool, str]:
    case = Case.model_validate({"id": "c", "input": "x", "expect": {"state": exp}})
    world = WorldOutcome(initial=START, turns=[final], **kw)
    got = score_case(case, [[]], {}, world=world)
    assert got.goal_met is (got.status == "passed")
    return got.status == "passed", got.explanation


@pytest.mark.parametrize(
    ("check", "right", "wrong", "says"),
    [
        ({"path": "orders.A1.status", "equals": "cancelled"}, state(status="cancelled"),
         state(), "orders.A1.status: expected 'cancelled', got 'pending'"),
        ({"path": "orders.A2.total", "equals": 50}, START, state(),  # 50 == 50.0
         None),
        ({"path": "orders.A1.note", "contains": "Ann"}, START, state(note="for Bob"),
         "orders.A1.note: expected something containing 'Ann', got 'for Bob'"),
        ({"path": "orders.A1.items", "contains": {"sku": "Y2"}}, START,
         state(items=[{"sku": "X1", "qty": 2}]), "expected something containing {\"sku\":\"Y2\"}"),
        ({"path": "orders.A1", "contains": {"status": "pending"}}, START,
         state(status="cancelled"), "orders.A1: expected something containing"),
        ({"path": "users.U1.email", "matches": r"[a-z]+@example\.com"}, START,
         {**START, "users": {"U1": {"email": "ann@evil.test"}}},
         "users.U1.email: expected a match of /[a-z]+@example\\.com/, got 'ann@evil.test'"),
        ({"path": "orders.A1.coupon", "absent": True}, START, state(coupon="X"),
         "orders.A1.coupon: expected absent, got 'X'"),
        ({"path": "orders.A1.note", "absent": False}, START, state(note=None),
         "orders.A1.note: expected something, got nothing"),
        ({"path": "orders", "count": 2}, START,
         {**START, "orders": {"A1": START["orders"]["A1"]}}, "orders: expected 2 items, got 1"),
        ({"path": "orders", "count": 1, "where": {"status": "cancelled"}},
         state(status="cancelled"), START,
         "orders: expected 1 items where {\"status\":\"cancelled\"}, got 0"),
        ({"path": "orders.A1.items[1].qty", "equals": 1}, START,
         state(items=[{"sku": "X1", "qty": 2}]), "orders.A1.items[1].qty: missing (expected 1)"),
    ],
)  # fmt: skip
def test_each_assertion_kind_fails_on_the_wrong_state(
    check: dict[str, Any], right: dict[str, Any], wrong: dict[str, Any], says: str | None
) -> None:
    ok, why = verdict({"checks": [check]}, right)
    assert ok, why
    if says is None:  # a number compared by value: 50 == 50.0 is no mistake
        return
    bad, explanation = verdict({"checks": [check]}, wrong)
    assert not bad
    assert says in explanation, explanation


def test_a_boolean_is_not_a_number() -> None:
    ok, _ = verdict({"checks": [{"path": "orders.A1.total", "equals": 1}]}, state(total=True))
    assert not ok


def test_unchanged_names_each_changed_record_and_field() -> None:
    moved = copy.deepcopy(START)
    moved["orders"]["A2"]["status"] = "lost"
    del moved["users"]["U1"]
    moved["users"]["U9"] = {"email": "x"}
    ok, why = verdict({"unchanged": ["orders.A2", "users"]}, moved)
    assert not ok
    assert why == (
        "final state: changed what must stay unchanged: orders.A2.status: was 'shipped', now "
        '\'lost\'; users.U1: removed (was {"email":"ann@example.com"}); users.U9: added '
        '{"email":"x"}'
    )
    assert verdict({"unchanged": ["orders.A2", "users"]}, state(status="x"))[0]


def test_the_reference_comparison_lists_every_difference_and_honours_ignore() -> None:
    reference = state(status="cancelled", refund=30)
    ok, why = verdict({"same_as_reference": True}, state(status="refunded"),
                      reference=[reference])  # fmt: skip
    assert not ok
    assert "orders.A1.status: expected 'cancelled', got 'refunded'" in why
    assert "orders.A1.refund: missing (expected 30)" in why
    assert verdict({"same_as_reference": True}, reference, reference=[reference])[0]
    ignored = {"same_as_reference": True, "ignore": ["orders.A1.refund"]}
    assert verdict(ignored, state(status="cancelled"), reference=[reference])[0]
    missing = verdict({"same_as_reference": True}, START, reference_problem="no reference: x")
    assert missing == (False, "final state: reference: no reference: x")


def test_without_snapshots_the_state_check_fails_never_passes() -> None:
    case = Case.model_validate(
        {"id": "c", "input": "x", "expect": {"state": {"unchanged": ["orders"]}}}
    )
    got = score_case(case, [[]], {})
    assert got.status == "failed"
    assert got.explanation == "final state: no world state recorded"
    assert got.goal_met is False


def test_scoring_reads_the_snapshots_and_changes_none() -> None:
    final = state(status="cancelled")
    before = copy.deepcopy(final)
    verdict({"checks": [{"path": "orders.A1.status", "equals": "x"}], "unchanged": ["orders"],
             "same_as_reference": True}, final, reference=[START])  # fmt: skip
    assert final == before


def test_an_expectation_needs_one_kind_per_check_and_something_to_check() -> None:
    with pytest.raises(ValueError, match="exactly one of"):
        StateExpectation.model_validate({"checks": [{"path": "a"}]})
    with pytest.raises(ValueError, match="'where' filters"):
        StateExpectation.model_validate({"checks": [{"path": "a", "equals": 1, "where": {"b": 1}}]})
    with pytest.raises(ValueError, match="give checks, unchanged or same_as_reference"):
        StateExpectation.model_validate({})
    assert StateExpectation.model_validate({"checks": [{"path": "a", "equals": None}]})
