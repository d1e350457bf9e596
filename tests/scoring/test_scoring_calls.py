"""Several calls: optimal assignment, order modes, forbidden tools, call budget."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from scoring_helpers import by_name, call, reply, score, tool

from agentgauge.schema import Message, ToolCall
from agentgauge.scoring._assign import align, assign

TOOLS = [
    tool("a", {"x": {"type": "integer"}, "y": {"type": "integer"}}),
    tool("b", {"q": {"type": "string"}}),
    tool("c", {}),
    tool("delete_account", {}),
]


def expect(*calls: dict[str, Any], order: str = "any_order", **kw: Any) -> dict[str, Any]:
    return {"tool_calls": list(calls), "order": order, **kw}


def one_by_one(*calls: ToolCall) -> list[Message]:
    """Each call in its own assistant message (calls in one message are parallel)."""
    return [m for c in calls for m in reply(c)]


def test_parallel_calls_greedy_fails_optimal_passes() -> None:
    exp = expect(
        {"name": "a", "arguments": {"x": 1, "y": {"any": True}}},
        {"name": "a", "arguments": {"x": 1, "y": 2}},
    )
    # greedy first-fit pairs expected[0] (any y) with the first call (y=2), leaving y=3 for
    # expected[1], which needs y=2: it fails. The optimal assignment swaps them and passes.
    cs = score(exp, reply(call("a", x=1, y=2), call("a", x=1, y=3)), TOOLS)
    assert cs.status == "passed", cs.explanation
    assert cs.score == 1.0
    cs = score(exp, reply(call("a", x=1, y=3), call("a", x=1, y=4)), TOOLS)
    assert cs.status == "failed"
    assert cs.explanation == "a[1].y: expected 2, got 4"
    labels = [p.name for p in by_name(cs, "arguments").parts]
    assert labels == ["a[0].x", "a[0].y", "a[1].x", "a[1].y"]


def test_assign_and_align_primitives() -> None:
    w: list[list[float | None]] = [[5, 4], [4, None]]
    assert assign(w, 2) == [(0, 1), (1, 0)]  # total 8 beats greedy 5
    assert assign([[1.0, 2.0, 3.0]], 3) == [(0, 2)]
    assert assign([[None], [1.0], [2.0]], 1) == [(2, 0)]
    assert assign([], 3) == []
    assert align([[1.0, None, None], [None, None, 1.0]], 3) == [(0, 0), (1, 2)]
    assert align([[None, 1.0], [1.0, None]], 2) in ([(0, 1)], [(1, 0)])


def test_any_order_accepts_permutations() -> None:
    exp = expect({"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {"q": "z"}})
    assert score(exp, reply(call("b", q="z"), call("a", x=1)), TOOLS).status == "passed"
    cs = score(exp, reply(call("b", q="z"), call("a", x=1), call("c")), TOOLS)
    assert cs.explanation == "unexpected call(s) to c"
    cs = score(exp, reply(call("b", q="z")), TOOLS)
    assert cs.explanation == "missing call(s) to a"
    sel = by_name(cs, "tool_selection")
    assert (sel.expected, sel.actual, sel.value) == ("a, b", "b", 0.5)


def test_strict_order() -> None:
    exp = expect({"name": "a", "arguments": {"x": 1}}, {"name": "b"}, order="strict")
    assert score(exp, one_by_one(call("a", x=1), call("b")), TOOLS).status == "passed"
    cs = score(exp, one_by_one(call("b"), call("a", x=1)), TOOLS)
    assert cs.status == "failed"
    order = by_name(cs, "order")
    assert order.explanation == "calls out of order: expected a → b, got b → a (b came before a)"
    assert by_name(cs, "tool_selection").passed
    cs = score(exp, one_by_one(call("a", x=1), call("c"), call("b")), TOOLS)
    assert cs.status == "failed"
    assert "unexpected call(s) to c" in cs.explanation


def test_in_order_allows_calls_between() -> None:
    exp = expect({"name": "a", "arguments": {"x": 1}}, {"name": "b"}, order="in_order")
    assert score(exp, one_by_one(call("a", x=1), call("c"), call("b")), TOOLS).status == "passed"
    assert score(exp, one_by_one(call("b"), call("a", x=1)), TOOLS).status == "failed"
    assert score(exp, one_by_one(call("a", x=1)), TOOLS).status == "failed"


def test_in_order_prefers_the_well_matched_pair() -> None:
    exp = expect({"name": "a", "arguments": {"x": 1}}, {"name": "b"}, order="in_order")
    # the first a(x=2) is a wrong attempt, a(x=1) then b is the right sequence
    cs = score(exp, one_by_one(call("a", x=2), call("a", x=1), call("b")), TOOLS)
    assert cs.status == "passed", cs.explanation


def test_subset_and_superset() -> None:
    exp_sub = expect({"name": "a", "arguments": {"x": 1}}, {"name": "b"}, order="subset")
    assert score(exp_sub, reply(call("a", x=1)), TOOLS).status == "passed"
    assert score(exp_sub, reply(call("a", x=1), call("c")), TOOLS).status == "failed"
    assert score(exp_sub, reply(text="no"), TOOLS).status == "failed"
    exp_sup = expect({"name": "a", "arguments": {"x": 1}}, order="superset")
    assert score(exp_sup, reply(call("c"), call("a", x=1), call("b")), TOOLS).status == "passed"
    assert score(exp_sup, reply(call("c")), TOOLS).status == "failed"
    cs = score(exp_sup, reply(call("c"), call("a", x=1)), TOOLS)
    assert by_name(cs, "tool_selection").explanation == (
        "called c, a as expected (superset: extra call(s) to c allowed)"
    )
    cs = score(exp_sub, reply(call("a", x=1)), TOOLS)
    assert (
        by_name(cs, "tool_selection").explanation == "called a as expected (subset: b not called)"
    )


def test_forbidden_tools_and_max_calls() -> None:
    exp = expect(
        {"name": "a", "arguments": {"x": 1}}, order="superset", forbidden_tools=["delete_account"]
    )
    cs = score(exp, reply(call("a", x=1), call("delete_account"), call("delete_account")), TOOLS)
    forbidden = by_name(cs, "forbidden_tools")
    assert forbidden.passed is False
    assert forbidden.explanation == "forbidden tool called: delete_account (2×)"
    assert cs.status == "failed"
    exp = expect({"name": "a", "arguments": {"x": 1}}, order="superset", max_calls=2)
    cs = score(exp, reply(call("a", x=1), call("c"), call("c")), TOOLS)
    mc = by_name(cs, "max_calls")
    assert (mc.passed, mc.explanation) == (False, "3 tool call(s), at most 2 allowed")
    assert mc.value == pytest.approx(2 / 3)
    assert (
        score({"behavior": "no_tool", "max_calls": 0}, reply(text="hi"), TOOLS).status == "passed"
    )


def test_duplicate_call_is_unexpected_in_any_order() -> None:
    exp = expect({"name": "a", "arguments": {"x": 1}})
    cs = score(exp, reply(call("a", x=1), call("a", x=1)), TOOLS)
    assert cs.explanation == "unexpected call(s) to a"


def test_argument_score_over_matched_pairs() -> None:
    exp = expect(
        {"name": "a", "arguments": {"x": 1, "y": 2}}, {"name": "b", "arguments": {"q": "z"}}
    )
    cs = score(exp, reply(call("a", x=1, y=3), call("b", q="z")), TOOLS)
    args = by_name(cs, "arguments")
    assert args.value == pytest.approx(0.75)
    assert cs.explanation == "a.y: expected 2, got 3"


def _brute_force(weights: list[list[float | None]], n_cols: int) -> float:
    best = 0.0
    rows = len(weights)

    def go(i: int, used: frozenset[int], total: float) -> None:
        nonlocal best
        if i == rows:
            best = max(best, total)
            return
        go(i + 1, used, total)  # row i unmatched
        for j in range(n_cols):
            w = weights[i][j]
            if w is not None and j not in used:
                go(i + 1, used | {j}, total + w)

    go(0, frozenset(), 0.0)
    return best


def test_assign_is_optimal_on_random_matrices() -> None:
    rng = random.Random(7)
    for _ in range(300):
        n, m = rng.randint(1, 5), rng.randint(1, 5)
        weights: list[list[float | None]] = [
            [
                None if rng.random() < 0.3 else rng.choice([1.0, 1.5, 2.0, 7.0, 7.5])
                for _ in range(m)
            ]
            for _ in range(n)
        ]
        pairs = assign(weights, m)
        assert len({i for i, _ in pairs}) == len(pairs) == len({j for _, j in pairs})
        total = sum(w for i, j in pairs if (w := weights[i][j]) is not None)
        assert all(weights[i][j] is not None for i, j in pairs)
        assert total == pytest.approx(_brute_force(weights, m)), weights


def test_align_is_order_preserving_and_optimal() -> None:
    rng = random.Random(11)
    for _ in range(200):
        n, m = rng.randint(1, 5), rng.randint(1, 6)
        weights: list[list[float | None]] = [
            [None if rng.random() < 0.4 else rng.choice([1.0, 2.0, 7.0]) for _ in range(m)]
            for _ in range(n)
        ]
        pairs = align(weights, m)
        assert all(a[0] < b[0] and a[1] < b[1] for a, b in itertools.pairwise(pairs))
        total = sum(w for i, j in pairs if (w := weights[i][j]) is not None)
        # every order-preserving alignment is an assignment, so it cannot beat the assignment
        assert total <= _brute_force(weights, m) + 1e-9
        assert (
            total >= max((w for row in weights for w in row if w is not None), default=0.0) - 1e-9
        )
