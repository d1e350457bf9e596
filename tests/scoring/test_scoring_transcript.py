"""Result references, recovery after tool errors, multi-turn cases and response text checks."""

from __future__ import annotations

from typing import Any

from scoring_helpers import by_name, call, reply, result, score, tool

from agentgauge.schema import Message, ToolCall

TOOLS = [
    tool("lookup_contact", {"name": {"type": "string"}}),
    tool("get_open_invoices", {"customer_id": {"type": "string"}, "limit": {"type": "integer"}}),
    tool("get_weather", {"city": {"type": "string"}}),
]


def chain(found: Any, used: str) -> list[Message]:
    return [
        Message(
            role="assistant",
            tool_calls=[ToolCall(name="lookup_contact", arguments={"name": "Ann"}, id="1")],
        ),
        result("lookup_contact", found, "1"),
        Message(
            role="assistant",
            tool_calls=[
                ToolCall(name="get_open_invoices", arguments={"customer_id": used}, id="2")
            ],
        ),
        result("get_open_invoices", {"invoices": []}, "2"),
        Message(role="assistant", content="Ann has no open invoices."),
    ]


REF_EXPECT = {
    "tool_calls": [
        {"name": "lookup_contact", "arguments": {"name": "Ann"}},
        {
            "name": "get_open_invoices",
            "arguments": {
                "customer_id": {"ref": {"tool": "lookup_contact", "path": "contacts[0].id"}}
            },
        },
    ],
    "order": "strict",
}


def test_reference_to_an_earlier_result() -> None:
    found = {"contacts": [{"id": "C-42", "name": "Ann"}]}
    assert score(REF_EXPECT, chain(found, "C-42"), TOOLS).status == "passed"
    cs = score(REF_EXPECT, chain(found, "C-41"), TOOLS)
    assert cs.explanation == (
        "get_open_invoices.customer_id: expected 'C-42' "
        "(the value of lookup_contact.contacts[0].id), got 'C-41'"
    )


def test_reference_that_cannot_be_resolved() -> None:
    cs = score(REF_EXPECT, chain({"contacts": []}, "C-42"), TOOLS)
    assert cs.explanation == (
        "get_open_invoices.customer_id: lookup_contact.contacts[0].id: "
        "the result of lookup_contact has no 0 there"
    )
    exp = {
        "tool_calls": [
            {
                "name": "get_open_invoices",
                "arguments": {"customer_id": {"ref": {"tool": "lookup_contact", "path": "id"}}},
            }
        ]
    }
    cs = score(exp, reply(call("get_open_invoices", customer_id="C-1")), TOOLS)
    assert "no result of lookup_contact before this call" in cs.explanation


def test_reference_by_call_index_and_history_in_input() -> None:
    history = [
        Message(role="user", content="find Ann"),
        Message(
            role="assistant",
            tool_calls=[ToolCall(name="lookup_contact", arguments={"name": "Ann"}, id="h")],
        ),
        result("lookup_contact", {"id": "C-7"}, "h"),
    ]
    exp = {
        "tool_calls": [
            {
                "name": "get_open_invoices",
                "arguments": {
                    "customer_id": {"ref": {"tool": "lookup_contact", "path": "id", "call": 0}}
                },
            }
        ]
    }
    cs = score(exp, reply(call("get_open_invoices", customer_id="C-7")), TOOLS, input=history)
    assert cs.status == "passed", cs.explanation


def _attempts(*outcomes: Any, final: str | None = None) -> list[Message]:
    msgs: list[Message] = []
    for k, outcome in enumerate(outcomes):
        msgs.append(
            Message(
                role="assistant",
                tool_calls=[ToolCall(name="get_weather", arguments={"city": "Paris"}, id=str(k))],
            )
        )
        msgs.append(result("get_weather", outcome, str(k)))
    if final is not None:
        msgs.append(Message(role="assistant", content=final))
    return msgs


def test_recover_by_retrying() -> None:
    cs = score(
        {"behavior": "recover"}, _attempts({"error": "timeout"}, {"temp": 20}, final="20°C"), TOOLS
    )
    beh = by_name(cs, "behavior")
    assert (beh.passed, beh.actual) == (True, "retried")


def test_recover_by_explaining() -> None:
    msgs = _attempts(
        {"error": "service down"}, final="Sorry, the weather service is unavailable right now."
    )
    assert by_name(score({"behavior": "recover"}, msgs, TOOLS), "behavior").actual == "explained"
    msgs = _attempts({"error": "service down"}, final="It is sunny and 25°C.")
    cs = score({"behavior": "recover"}, msgs, TOOLS)
    assert cs.status == "failed"
    assert cs.explanation.startswith("did not recover from the failed get_weather call")


def test_recover_loop_fails() -> None:
    msgs = _attempts({"error": "x"}, {"error": "x"}, {"error": "x"}, final="The service failed.")
    cs = score({"behavior": "recover"}, msgs, TOOLS)
    assert cs.explanation == (
        'looped: the identical call get_weather({"city":"Paris"}) failed 3 times '
        "(at most 2 allowed)"
    )
    msgs = _attempts({"error": "x"}, {"error": "x"}, {"temp": 1}, final="1°C")
    assert score({"behavior": "recover"}, msgs, TOOLS).status == "passed"


def test_recover_without_error_is_skipped() -> None:
    cs = score({"behavior": "recover"}, _attempts({"temp": 3}, final="3°C"), TOOLS)
    beh = by_name(cs, "behavior")
    assert beh.passed is None
    assert cs.status == "passed"


def test_recover_with_expected_calls_ignores_failed_attempts() -> None:
    exp = {
        "behavior": "recover",
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    }
    msgs = _attempts({"error": "timeout"}, {"temp": 20}, final="20°C")
    assert score(exp, msgs, TOOLS).status == "passed"


def test_multi_turn_prefixes_and_all_turns_must_pass() -> None:
    turns = [
        reply(call("get_weather", city="Paris")),
        reply(text="Which day do you mean?"),
    ]
    expect = {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    case_turns = [{"user": "and tomorrow?", "expect": {"behavior": "clarify"}}]
    cs = score(expect, turns, TOOLS, turns=case_turns)
    assert cs.status == "passed"
    assert [s.name for s in cs.scores] == [
        "turn[0].tool_selection",
        "turn[0].arguments",
        "turn[1].tool_selection",
        "turn[1].behavior",
    ]
    assert cs.behavior == "clarify"
    turns[1] = reply(text="Tomorrow will be sunny.")
    cs = score(expect, turns, TOOLS, turns=case_turns)
    assert cs.status == "failed"
    assert cs.explanation == "expected behaviour clarify, got answer: 'Tomorrow will be sunny.'"
    assert 0.4 < cs.score < 1.0


def test_multi_turn_missing_segment_counts_as_silence() -> None:
    expect = {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    cs = score(
        expect,
        [reply(call("get_weather", city="Paris"))],
        TOOLS,
        turns=[{"user": "more?", "expect": {"behavior": "answer"}}],
    )
    assert cs.status == "passed"  # an empty reply classifies as an answer
    cs = score(
        expect,
        [reply(call("get_weather", city="Paris"))],
        TOOLS,
        turns=[{"user": "x", "expect": {"response_contains": ["sunny"]}}],
    )
    assert cs.explanation == "no reply text; expected it to contain 'sunny'"


def test_response_contains() -> None:
    msgs = _attempts({"temp": 20}, final="It is  Sunny in PARIS, 20°C.")
    cs = score({"response_contains": ["sunny in paris", "20°C"]}, msgs, TOOLS)
    assert cs.status == "passed"
    cs = score({"response_contains": ["sunny", "rain", "wind"]}, msgs, TOOLS)
    rc = by_name(cs, "response_contains")
    assert rc.explanation == "reply does not contain 'rain', 'wind'"
    assert abs(rc.value - 1 / 3) < 1e-9


def test_recover_retry_without_a_result_does_not_count() -> None:
    msgs = _attempts({"error": "timeout"})
    msgs.append(
        Message(
            role="assistant",
            tool_calls=[ToolCall(name="get_weather", arguments={"city": "Paris"}, id="z")],
        )
    )
    cs = score({"behavior": "recover"}, msgs, TOOLS)
    assert cs.status == "failed"
    assert cs.explanation.endswith("no successful retry and no reply after it")
