"""The declarative world: every operation, its error results, the writes it reports, and the
helpers under it (paths, diffs, merge patches)."""

from __future__ import annotations

from typing import Any

import pytest
from world_helpers import OPERATIONS, STATE, call

from agentgauge.schema import Case, WorldSpec
from agentgauge.worlds import (
    MISSING,
    TableWorld,
    WorldBuilder,
    WorldError,
    diff_states,
    format_path,
    get_path,
    merge_patch,
    parse_path,
    state_writes,
)

SPEC = WorldSpec.model_validate({"state": STATE, "operations": OPERATIONS})


def world() -> TableWorld:
    return TableWorld(SPEC, SPEC.state)


def test_get_returns_the_record_with_its_key_and_errs_on_a_missing_one() -> None:
    w = world()
    got = w.apply(call("get_order", order_id="A1"))
    assert got.error is None
    assert got.writes == ()
    assert got.result == {"id": "A1", **STATE["orders"]["A1"]}
    missing = w.apply(call("get_order", order_id="Z9"))
    assert missing.error == "orders: no record 'Z9'"
    assert w.apply(call("get_order")).error == "get_order: missing argument 'order_id'"


def test_find_matches_fields_of_the_arguments() -> None:
    found = world().apply(call("find_orders", customer="ann")).result
    assert [r["id"] for r in found] == ["A1", "A2"]
    assert world().apply(call("find_orders", customer="zoe")).result == []


def test_update_writes_set_values_and_records_before_and_after() -> None:
    w = world()
    reply = w.apply(call("cancel_order", order_id="A1"))
    assert reply.error is None
    assert reply.result["status"] == "cancelled"
    assert [(x.path, x.op, x.before, x.after) for x in reply.writes] == [
        ("orders.A1.status", "update", "pending", "cancelled")
    ]
    assert w.snapshot()["orders"]["A1"]["status"] == "cancelled"


def test_a_failed_precondition_is_an_error_result_and_writes_nothing() -> None:
    w = world()
    reply = w.apply(call("cancel_order", order_id="A2"))
    assert reply.error == "orders 'A2': status is 'shipped', must be 'pending'"
    assert reply.writes == ()
    assert w.snapshot() == SPEC.state


def test_update_with_every_other_argument_and_insert_with_a_generated_key() -> None:
    w = world()
    moved = w.apply(call("update_address", order_id="A3", address="2 Pine Ave"))
    assert [x.path for x in moved.writes] == ["orders.A3.address"]
    refund = w.apply(call("issue_refund", order_id="A1", amount=30))
    assert refund.result == {"id": "1", "order_id": "A1", "amount": 30}
    assert [(x.path, x.op) for x in refund.writes] == [("refunds.1", "insert")]
    again = w.apply(call("issue_refund", order_id="A1", amount=5))
    assert again.result["id"] == "2"


def test_insert_refuses_an_existing_key_and_delete_removes() -> None:
    spec = WorldSpec.model_validate(
        {
            "state": {"users": [{"id": "u1", "name": "Ann"}]},
            "operations": {
                "add_user": {"op": "insert", "collection": "users"},
                "remove_user": {"op": "delete", "collection": "users", "key": "user"},
            },
        }
    )
    assert spec.state == {"users": {"u1": {"name": "Ann"}}}  # a list of records is keyed
    w = TableWorld(spec, spec.state)
    assert w.apply(call("add_user", id="u1", name="X")).error == "users: 'u1' already exists"
    gone = w.apply(call("remove_user", user="u1"))
    assert gone.result == {"deleted": "u1"}
    assert [(x.path, x.op, x.before) for x in gone.writes] == [
        ("users.u1", "delete", {"name": "Ann"})
    ]
    assert w.snapshot() == {"users": {}}


def test_the_world_owns_its_copy_of_the_state() -> None:
    w = world()
    snap = w.snapshot()
    snap["orders"]["A1"]["status"] = "tampered"
    assert w.snapshot()["orders"]["A1"]["status"] == "pending"
    w.apply(call("cancel_order", order_id="A1"))
    assert SPEC.state["orders"]["A1"]["status"] == "pending"


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"state": {"orders": [{"name": "x"}]}}, "needs its key field 'id'"),
        ({"state": {"orders": 3}}, "a collection is a mapping"),
        ({"state": {"orders": {"A1": 3}}}, "a record is a mapping"),
        (
            {"class": "w.py:W", "operations": {"x": {"op": "get", "collection": "c"}}},
            "not class and operations",
        ),
        ({"operations": {"x": {"op": "get", "collection": "c", "set": {"a": 1}}}}, "'set'"),
        ({"operations": {"x": {"op": "insert", "collection": "c", "require": {"a": 1}}}}, "req"),
    ],
)
def test_bad_world_specs_are_refused(raw: dict[str, Any], problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        WorldSpec.model_validate(raw)


def test_a_case_patch_merges_and_a_case_state_replaces() -> None:
    builder = WorldBuilder(SPEC)
    patched = Case.model_validate(
        {"id": "p", "input": "x",
         "world": {"patch": {"orders": {"A1": {"status": "shipped"}, "A3": None}}}}
    )  # fmt: skip
    state = builder.build(patched).snapshot()
    assert state["orders"]["A1"]["status"] == "shipped"
    assert state["orders"]["A1"]["total"] == 30
    assert "A3" not in state["orders"]
    own = Case.model_validate(
        {"id": "o", "input": "x", "world": {"state": {"orders": {"B1": {"status": "new"}}}}}
    )
    assert builder.build(own).snapshot() == {"orders": {"B1": {"status": "new"}}}
    broken = Case.model_validate({"id": "b", "input": "x", "world": {"patch": {"orders": 5}}})
    with pytest.raises(WorldError, match=r"state\.orders"):
        builder.build(broken)


def test_paths_round_trip_and_look_up() -> None:
    segs = parse_path('orders.A1.items[0]["sku.v2"]')
    assert segs == ("orders", "A1", "items", 0, "sku.v2")
    assert format_path(segs) == 'orders.A1.items[0]["sku.v2"]'
    state = {"orders": {"A1": {"items": [{"sku.v2": "X"}]}}}
    assert get_path(state, segs) == "X"
    assert get_path(state, parse_path("orders.A1.items.0")) == {"sku.v2": "X"}
    assert get_path(state, parse_path("orders.A9")) is MISSING
    for bad in ["", "a..b", ".a", "a[x]", "a b"]:
        with pytest.raises(ValueError):
            parse_path(bad)


def test_diffs_name_each_record_and_field() -> None:
    expected = {"orders": {"A1": {"status": "cancelled", "total": 30}, "A2": {"s": 1}}}
    actual = {"orders": {"A1": {"status": "pending", "total": 30.0}, "A3": {"s": 1}}}
    got = [(d.path, d.kind, d.expected, d.actual) for d in diff_states(expected, actual)]
    assert got == [
        ("orders.A1.status", "differs", "cancelled", "pending"),
        ("orders.A2", "missing", {"s": 1}, None),
        ("orders.A3", "unexpected", None, {"s": 1}),
    ]
    ignored = diff_states(expected, actual, ignore=[("orders", "A1", "status")])
    assert [d.path for d in ignored] == ["orders.A2", "orders.A3"]
    writes = state_writes(expected, actual)
    assert [(w.path, w.op) for w in writes] == [
        ("orders.A1.status", "update"),
        ("orders.A2", "delete"),
        ("orders.A3", "insert"),
    ]
    assert diff_states({"a": True}, {"a": 1})  # a boolean is not a number


def test_merge_patch_follows_rfc_7386() -> None:
    target = {"a": {"b": 1, "c": 2}, "d": [1]}
    assert merge_patch(target, {"a": {"b": None, "e": 3}, "d": [2]}) == {
        "a": {"c": 2, "e": 3},
        "d": [2],
    }
    assert target == {"a": {"b": 1, "c": 2}, "d": [1]}
