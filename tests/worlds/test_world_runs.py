"""Runs against a world: a fresh state per case and trial, every write on the trace, faults on
top, and the final state graded — an agent that says the right things but leaves the wrong state
fails; one that reaches the right state by another order of calls passes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from world_helpers import CANCEL_A1, call, mock, script, shop_suite

from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import CaseResult

CONFIG = RunConfig(cache=False, progress=False)


def run(tmp_path: Path, cases: list[dict[str, Any]], agent: Any, **kw: Any) -> list[CaseResult]:
    config = RunConfig(cache=False, progress=False, **kw)
    run_suite(shop_suite(cases), config, tmp_path, provider=mock(agent))
    return sorted(iter_results(tmp_path), key=lambda r: (r.case_id, r.trial))


def test_the_right_moves_and_the_right_state_pass_with_every_write_traced(
    tmp_path: Path,
) -> None:
    agent = script(call("get_order", order_id="A1"), call("cancel_order", order_id="A1"), "Done.")
    [r] = run(tmp_path, [CANCEL_A1], agent)
    assert r.status == "passed", r.explanation
    assert r.world is not None
    assert r.world.goal_met is True
    assert r.world.final["orders"]["A1"]["status"] == "cancelled"
    tool_steps = [e for e in r.trace if e.kind == "tool"]
    assert [e.tool for e in tool_steps] == ["get_order", "cancel_order"]
    assert tool_steps[0].writes == []
    [w] = tool_steps[1].writes
    assert (w.path, w.op, w.before, w.after) == ("orders.A1.status", "update", "pending",
                                                  "cancelled")  # fmt: skip


def test_saying_the_right_things_with_the_wrong_state_fails_on_the_outcome(
    tmp_path: Path,
) -> None:
    # the expected call is made (order: superset lets extra calls through) and the reply says
    # the right thing, but the agent also cancels bob's order: the moves pass, the state fails
    agent = script(
        [call("cancel_order", order_id="A1"), call("cancel_order", order_id="A3")],
        "I have cancelled your order A1.",
    )
    [r] = run(tmp_path, [CANCEL_A1], agent)
    assert r.status == "failed"
    assert r.world is not None
    assert r.world.goal_met is False
    lines = r.explanation.splitlines()
    assert lines[0] == "outcome failed (the state is wrong); moves passed"
    assert lines[1] == (
        "final state: changed what must stay unchanged: orders.A3.status: was 'pending', "
        "now 'cancelled'"
    )
    [d] = r.world.diff
    assert (d.path, d.kind, d.source) == ("orders.A3.status", "differs", "unchanged")
    scores = {s.name: s.passed for s in r.scores}
    assert scores["tool_selection"] is True
    assert scores["state"] is False


def test_right_moves_but_a_failed_write_leaves_the_state_wrong(tmp_path: Path) -> None:
    case = {**CANCEL_A1, "world": {"patch": {"orders": {"A1": {"status": "shipped"}}}}}
    agent = script(call("cancel_order", order_id="A1"), "Your order A1 is cancelled.")
    [r] = run(tmp_path, [case], agent)
    assert r.status == "failed"
    assert "orders.A1.status: expected 'cancelled', got 'shipped'" in r.explanation
    [event] = [e for e in r.trace if e.kind == "tool"]
    assert event.error == "orders 'A1': status is 'shipped', must be 'pending'"
    assert event.writes == []


def test_another_valid_order_of_calls_reaches_the_same_state_and_passes(tmp_path: Path) -> None:
    case = {
        "id": "both",
        "input": "Cancel A1 and send A3 to 2 Pine Ave.",
        "expect": {
            "tool_calls": [
                {"name": "cancel_order", "arguments": {"order_id": "A1"}},
                {
                    "name": "update_address",
                    "arguments": {"order_id": "A3", "address": "2 Pine Ave"},
                },
            ],
            "order": "strict",
            "state": {"same_as_reference": True},
        },
    }
    first = script(
        call("cancel_order", order_id="A1"),
        call("update_address", order_id="A3", address="2 Pine Ave"),
        "Done.",
    )
    [ok] = run(tmp_path / "a", [case], first)
    assert ok.status == "passed", ok.explanation
    swapped = script(
        call("update_address", order_id="A3", address="2 Pine Ave"),
        call("cancel_order", order_id="A1"),
        "Done.",
    )
    [moved] = run(tmp_path / "b", [case], swapped)
    # order: strict fails the moves; the outcome is the reference's, and the explanation says so
    assert moved.status == "failed"
    assert moved.explanation.splitlines()[0].startswith("outcome passed (the state is right)")
    assert moved.world is not None
    assert moved.world.goal_met is True
    graded_by_state = {**case, "expect": {"state": case["expect"]["state"]}}
    graded_by_state["expect"]["state"] = {
        "same_as_reference": True,
        "reference": [
            {"name": "cancel_order", "arguments": {"order_id": "A1"}},
            {"name": "update_address", "arguments": {"order_id": "A3", "address": "2 Pine Ave"}},
        ],
    }
    [by_state] = run(tmp_path / "c", [graded_by_state], swapped)
    assert by_state.status == "passed", by_state.explanation
    [wrong] = run(
        tmp_path / "d", [graded_by_state], script(call("cancel_order", order_id="A1"), "Done.")
    )
    assert wrong.status == "failed"
    assert "orders.A3.address: expected '2 Pine Ave', got '9 Oak Rd'" in wrong.explanation


def test_every_trial_and_case_starts_from_a_fresh_state(tmp_path: Path) -> None:
    refund = {
        "id": "refund",
        "input": "Refund A1.",
        "expect": {
            "state": {"checks": [{"path": "refunds", "count": 1},
                                 {"path": "refunds.1.order_id", "equals": "A1"}]},
        },
    }  # fmt: skip
    other = {**refund, "id": "refund-2"}
    agent = script(call("issue_refund", order_id="A1", amount=30), "Refunded.")
    results = run(tmp_path, [refund, other], agent, trials=3, max_concurrency=2)
    assert len(results) == 6
    assert all(r.status == "passed" for r in results), [r.explanation for r in results]
    assert all(r.world is not None and list(r.world.final["refunds"]) == ["1"] for r in results)


def test_faults_inject_on_top_and_a_world_entry_hands_back(tmp_path: Path) -> None:
    case = {
        **CANCEL_A1,
        "tool_results": {"cancel_order": [{"fault": "error", "error": "busy"}, {"world": True}]},
    }
    agent = script(
        call("cancel_order", order_id="A1"), call("cancel_order", order_id="A1"), "Done."
    )
    [r] = run(tmp_path, [case], agent)
    steps = [e for e in r.trace if e.kind == "tool"]
    assert [(e.fault, bool(e.writes)) for e in steps] == [("error", False), (None, True)]
    assert r.status == "passed", r.explanation
    # a rate fault on every call: nothing is written, the state check fails
    always = {**CANCEL_A1, "faults": [{"kind": "timeout", "rate": 1.0}]}
    [f] = run(tmp_path / "f", [always], agent)
    assert f.status == "failed"
    assert f.world is not None
    assert f.world.final["orders"]["A1"]["status"] == "pending"


def test_a_world_error_is_an_error_of_that_case_only(tmp_path: Path) -> None:
    broken = {"id": "broken", "input": "x", "world": {"patch": {"orders": 3}},
              "expect": {"state": {"unchanged": ["orders"]}}}  # fmt: skip
    agent = script(call("cancel_order", order_id="A1"), "Done.")
    results = {r.case_id: r for r in run(tmp_path, [broken, CANCEL_A1], agent)}
    assert results["broken"].status == "error"
    assert "state.orders" in (results["broken"].error or "")
    assert results["cancel-a1"].status == "passed"


def test_a_resumed_run_gives_the_remaining_cases_fresh_worlds(tmp_path: Path) -> None:
    cases = [
        {
            "id": f"refund-{k}",
            "input": f"Refund {k}",
            "expect": {
                "state": {
                    "checks": [{"path": "refunds", "count": 1}],
                    "unchanged": ["orders"],
                }
            },
        }
        for k in ("A1", "A2", "A3", "A4")
    ]
    suite = shop_suite(cases)

    def refund(request: Any) -> Any:
        last = request.messages[-1]
        if last.role == "tool":
            return "Refunded."
        return call("issue_refund", order_id=(last.content or "").split()[-1], amount=1)

    first = run_suite(suite, RunConfig(cache=False, progress=False, limit=2), tmp_path,
                      provider=mock(refund))  # fmt: skip
    assert first.ran == 2
    out = run_suite(suite, RunConfig(cache=False, progress=False, resume=True), tmp_path,
                    provider=mock(refund))  # fmt: skip
    assert (out.resumed, out.ran) == (2, 2)
    results = {r.case_id: r for r in iter_results(tmp_path)}
    assert sorted(results) == ["refund-A1", "refund-A2", "refund-A3", "refund-A4"]
    for key, r in results.items():
        assert r.status == "passed", (key, r.explanation)
        assert r.world is not None
        [(rid, rec)] = r.world.final["refunds"].items()
        assert (rid, rec["order_id"]) == ("1", key.split("-")[1])


def test_recorded_responses_are_graded_on_the_state_their_calls_reach(tmp_path: Path) -> None:
    import orjson

    from agentgauge.io import read_responses
    from agentgauge.runner import score_responses
    from agentgauge.scoring import ScoringConfig

    lines = [
        {"case_id": "cancel-a1", "calls": [{"name": "cancel_order",
                                            "arguments": {"order_id": "A1"}}], "text": "Done."},
        {"case_id": "cancel-a1", "trial": 1, "calls": [
            {"name": "cancel_order", "arguments": {"order_id": "A1"}},
            {"name": "cancel_order", "arguments": {"order_id": "A3"}}], "text": "Done."},
    ]  # fmt: skip
    path = tmp_path / "responses.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(x) for x in lines))
    score_responses(shop_suite([CANCEL_A1]), read_responses(path), tmp_path / "run",
                    ScoringConfig())  # fmt: skip
    good, bad = sorted(iter_results(tmp_path / "run"), key=lambda r: r.trial)
    assert good.status == "passed", good.explanation
    assert good.world is not None
    assert good.world.final["orders"]["A1"]["status"] == "cancelled"
    assert bad.status == "failed"
    assert "orders.A3.status: was 'pending', now 'cancelled'" in bad.explanation


def test_light_results_keep_the_verdict_and_drop_the_final_state(tmp_path: Path) -> None:
    from agentgauge.io import iter_light_results

    agent = script(call("cancel_order", order_id="A3"), "Done.")
    [full] = run(tmp_path, [CANCEL_A1], agent)
    [light] = iter_light_results(tmp_path)
    assert full.world is not None
    assert light.world is not None
    assert full.world.final["orders"]["A3"]["status"] == "cancelled"
    assert light.world.final == {}
    assert light.world.goal_met is False
    assert light.world.diff == full.world.diff


def test_each_turn_is_graded_on_the_state_after_it(tmp_path: Path) -> None:
    case = {
        "id": "two-turns",
        "input": "Cancel A1.",
        "expect": {
            "tool_calls": [{"name": "cancel_order", "arguments": {"order_id": "A1"}}],
            "state": {"same_as_reference": True},
        },
        "turns": [
            {
                "user": "And send A3 to 2 Pine Ave.",
                "expect": {
                    "tool_calls": [{"name": "update_address",
                                    "arguments": {"order_id": "A3", "address": "2 Pine Ave"}}],
                    "state": {"same_as_reference": True},
                },
            }
        ],
    }  # fmt: skip
    cancel = call("cancel_order", order_id="A1")
    move = call("update_address", order_id="A3", address="2 Pine Ave")

    def by_turn(request: Any) -> Any:
        last = request.messages[-1]
        users = sum(1 for m in request.messages if m.role == "user")
        if last.role == "tool":
            return "Done."
        return cancel if users == 1 else move

    [ok] = run(tmp_path / "ok", [case], by_turn)
    assert ok.status == "passed", ok.explanation
    assert {s.name for s in ok.scores} >= {"turn[0].state", "turn[1].state"}

    def early(request: Any) -> Any:  # both changes in the first turn, nothing in the second
        last = request.messages[-1]
        users = sum(1 for m in request.messages if m.role == "user")
        if last.role == "tool" or users == 2:
            return "Done."
        return [cancel, move]

    [bad] = run(tmp_path / "early", [case], early)
    states = {s.name: s.passed for s in bad.scores if s.name.endswith("state")}
    # after turn 0 A3 should not have moved yet; after turn 1 the state is the reference's
    assert states == {"turn[0].state": False, "turn[1].state": True}
    assert (
        "state after turn 0: not the state the reference actions reach: orders.A3.address: "
        "expected '9 Oak Rd', got '2 Pine Ave'" in bad.explanation
    )
