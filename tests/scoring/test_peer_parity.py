"""The peers' deterministic tool checks, written as agentgauge expectations (docs/scoring.md,
"How the peers' checks map to ours"): on each peer's own kind of example, our verdict is the
verdict the peer's rule gives (worked out from its documented rule, written in each row)."""

from __future__ import annotations

from typing import Any

import pytest
from scoring_helpers import call, reply, result, score, tool

from agentgauge.schema import Message, ToolCall

TOOLS = [
    tool(n, {"location": {"type": "string"}, "q": {"type": "string"}})
    for n in (
        "WebSearch",
        "ToolQuery",
        "weather_check",
        "uv_index_lookup",
        "read_file",
        "grep",
        "edit_file",
        "search",
        "search_kb",
        "reply_to_customer",
        "issue_refund",
        "A",
        "B",
        "C",
    )
]


def seq(*calls: ToolCall) -> list[Message]:
    """Each call in its own message (a sequence), answered, then a reply."""
    out: list[Message] = []
    for c in calls:
        out += reply(c)
        out.append(result(c.name, {"ok": True}))
    return out + reply(text="done")


def names(*tools: str) -> list[dict[str, Any]]:
    return [{"name": n, "args_match": "ignore"} for n in tools]


W_PARIS = call("weather_check", location="Paris")
UV_PARIS = call("uv_index_lookup", location="Paris")
PARIS = {"location": "Paris"}


def calls_in(mode: str, *tools: str) -> dict[str, Any]:
    """These tools (any arguments) expected in order mode ``mode``."""
    return {"tool_calls": names(*tools), "order": mode}


def paris(mode: str) -> dict[str, Any]:
    """ragas' reference calls: weather_check and uv_index_lookup for Paris."""
    expected = [{"name": n, "arguments": PARIS} for n in ("weather_check", "uv_index_lookup")]
    return {"tool_calls": expected, "order": mode}


def one(mode: str) -> dict[str, Any]:
    """weather_check(location=Paris) with argument mode ``mode``."""
    return {"tool_calls": [{"name": "weather_check", "arguments": PARIS, "args_match": mode}]}


def guard(**checks: Any) -> dict[str, Any]:
    return {"behavior": "any_tool", **checks}


A, B, C = call("A"), call("B"), call("C")
WEB, QUERY, SEARCH = call("WebSearch"), call("ToolQuery"), call("search")
READ, GREP, EDIT = call("read_file"), call("grep"), call("edit_file")
KB, REFUND = call("search_kb"), call("issue_refund")
PERMIT = {"allowed_tools": ["search_kb", "reply_to_customer"], "forbidden_tools": ["issue_refund"]}
TWO_SEARCHES = calls_in("superset", "search", "search")
AT_MOST_ONE = guard(**{"not": TWO_SEARCHES})
RW = ("read_file", "edit_file")
EXTRA_ARG = call("weather_check", location="Paris", q="x")

# (peer rule and example, the calls made, our expectation, the peer's verdict)
ROWS: list[tuple[str, list[ToolCall], dict[str, Any], bool]] = [
    # ADK tool_trajectory_avg_score, expected [A, B]
    ("ADK EXACT, [A, B]", [A, B], calls_in("strict", "A", "B"), True),
    ("ADK EXACT, [A, C, B]", [A, C, B], calls_in("strict", "A", "B"), False),
    ("ADK IN_ORDER, [A, C, B]", [A, C, B], calls_in("in_order", "A", "B"), True),
    ("ADK IN_ORDER, [B, A]", [B, A], calls_in("in_order", "A", "B"), False),
    ("ADK ANY_ORDER, [B, C, A]", [B, C, A], calls_in("superset", "A", "B"), True),
    ("ADK ANY_ORDER, [B, C]", [B, C], calls_in("superset", "A", "B"), False),
    # deepeval ToolCorrectnessMetric, expected [WebSearch], called [WebSearch, ToolQuery]
    ("deepeval default: every expected tool called", [WEB, QUERY],
     calls_in("superset", "WebSearch"), True),
    ("deepeval should_exact_match", [WEB, QUERY], calls_in("strict", "WebSearch"), False),
    # expected [WebSearch, ToolQuery, WebSearch], used [WebSearch, WebSearch]: LCS 2/3 < 1
    ("deepeval should_consider_ordering, threshold 1", [WEB, WEB],
     calls_in("in_order", "WebSearch", "ToolQuery", "WebSearch"), False),
    # deepeval ToolPermissionMetric: allowed [search_kb, reply_to_customer], denied [issue_refund]
    ("deepeval ToolPermission, [search_kb]", [KB], guard(**PERMIT), True),
    ("deepeval ToolPermission, [search_kb, issue_refund]", [KB, REFUND], guard(**PERMIT), False),
    # ragas, reference [weather_check(Paris), uv_index_lookup(Paris)]
    ("ragas ToolCallAccuracy strict_order, in order", [W_PARIS, UV_PARIS], paris("strict"), True),
    ("ragas ToolCallAccuracy strict_order, swapped", [UV_PARIS, W_PARIS], paris("strict"), False),
    ("ragas ToolCallAccuracy unordered, swapped", [UV_PARIS, W_PARIS], paris("any_order"), True),
    ("ragas ToolCallF1 0.67: one of the two", [W_PARIS], paris("any_order"), False),
    ("ragas ToolCallAccuracy, a wrong argument",
     [call("weather_check", location="Lyon"), UV_PARIS], paris("strict"), False),
    # promptfoo trajectory assertions
    ("promptfoo tool-sequence in_order", [READ, GREP, EDIT], calls_in("in_order", *RW), True),
    ("promptfoo tool-sequence exact", [READ, GREP, EDIT], calls_in("strict", *RW), False),
    ("promptfoo tool-sequence, patterns", [READ, EDIT], calls_in("in_order", "read_*", "ed*"),
     True),
    ("promptfoo tool-used {search, min: 2}, once", [SEARCH], TWO_SEARCHES, False),
    ("promptfoo tool-used {search, min: 2}, twice", [SEARCH, SEARCH], TWO_SEARCHES, True),
    ("promptfoo tool-used {search, max: 1}, twice", [SEARCH, SEARCH], AT_MOST_ONE, False),
    ("promptfoo tool-used {search, max: 1}, once", [SEARCH], AT_MOST_ONE, True),
    ("promptfoo not-trajectory:tool-used", [KB, REFUND], guard(forbidden_tools=["issue_refund"]),
     False),
    ("promptfoo tool-args-match partial", [EXTRA_ARG], one("superset"), True),
    ("promptfoo tool-args-match exact", [EXTRA_ARG], one("exact"), False),
    ("promptfoo not-tool-args-match", [W_PARIS],
     guard(forbidden_arguments={"weather_check": PARIS}), False),
    ("promptfoo step-count {type: tool, max: 2}, 3 calls", [A, B, C], guard(max_calls=2), False),
]  # fmt: skip


@pytest.mark.parametrize(("rule", "calls", "expect", "verdict"), ROWS, ids=[r[0] for r in ROWS])
def test_our_verdict_is_the_peers(
    rule: str, calls: list[ToolCall], expect: dict[str, Any], verdict: bool
) -> None:
    cs = score(expect, seq(*calls), TOOLS)
    assert (cs.status == "passed") is verdict, cs.explanation
