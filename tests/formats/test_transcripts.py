"""Conversations in vendor formats: detection, conversion, round trips, one-line rejections."""

from __future__ import annotations

import json
from typing import Any

import pytest

from agentgauge.formats._transcripts import (
    TRANSCRIPT_FORMATS,
    TranscriptError,
    detect_format,
    messages_from_data,
)
from agentgauge.formats._transcripts_write import messages_to_format
from agentgauge.schema import Message, ToolCall

CONVERSATION = [
    Message(role="system", content="You book flights."),
    Message(role="user", content="Book the cheapest flight JFK to LHR on 2026-03-20."),
    Message(
        role="assistant",
        content="Searching.",
        tool_calls=[
            ToolCall(
                id="c1",
                name="search_flights",
                arguments={"origin": "JFK", "destination": "LHR", "date": "2026-03-20"},
            )
        ],
    ),
    Message(
        role="tool",
        tool_call_id="c1",
        name="search_flights",
        content='[{"flight": "XA205", "price_usd": 389}]',
    ),
    Message(
        role="assistant",
        tool_calls=[
            ToolCall(id="c2", name="book_flight", arguments={"flight": "XA205"}),
            ToolCall(id="c3", name="notify", arguments={"channel": "email"}),
        ],
    ),
    Message(role="tool", tool_call_id="c2", name="book_flight", content='{"ok": true}'),
    Message(role="tool", tool_call_id="c3", name="notify", content='{"sent": true}'),
    Message(role="assistant", content="Booked XA205 for $389."),
    Message(role="user", content="Thanks!"),
]


@pytest.mark.parametrize("fmt", TRANSCRIPT_FORMATS)
def test_every_format_round_trips_a_conversation_with_parallel_calls(fmt: str) -> None:
    data = json.loads(json.dumps(messages_to_format(CONVERSATION, fmt)))  # type: ignore[arg-type]
    assert detect_format(data) == fmt
    messages, found = messages_from_data(data)
    assert found == fmt
    assert messages == CONVERSATION


def test_openai_chat_completions_messages_convert() -> None:
    data: list[dict[str, Any]] = [
        {"role": "developer", "content": [{"type": "text", "text": "Be brief."}]},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 18}'},
    ]
    messages, fmt = messages_from_data(data)
    assert fmt == "openai"
    assert messages[0] == Message(role="system", content="Be brief.")
    assert messages[2].tool_calls == [
        ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
    ]
    assert messages[3].tool_call_id == "call_1"


def test_anthropic_tool_results_become_tool_messages_named_after_their_call() -> None:
    body = {
        "system": [{"type": "text", "text": "Sys."}],
        "messages": [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "..."},
                    {"type": "tool_use", "id": "tu1", "name": "get_weather", "input": {"c": 1}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "tu1",
                        "content": [{"type": "text", "text": "18C"}],
                    },
                    {"type": "text", "text": "And tomorrow?"},
                ],
            },
        ],
    }
    messages, fmt = messages_from_data(body)
    assert fmt == "anthropic"
    assert [m.role for m in messages] == ["system", "user", "assistant", "tool", "user"]
    assert messages[3] == Message(
        role="tool", tool_call_id="tu1", name="get_weather", content="18C"
    )
    assert messages[4].content == "And tomorrow?"


def test_gemini_snake_case_and_langchain_dumps_convert() -> None:
    gemini = [
        {"role": "user", "parts": [{"text": "Hi"}]},
        {"role": "model", "parts": [{"function_call": {"name": "f", "args": {"x": 1}}}]},
        {"role": "user", "parts": [{"function_response": {"name": "f", "response": {"y": 2}}}]},
    ]
    messages, fmt = messages_from_data(gemini)
    assert fmt == "gemini"
    assert messages[1].tool_calls == [ToolCall(name="f", arguments={"x": 1})]
    assert messages[2] == Message(role="tool", name="f", content='{"y": 2}')

    lc = [
        {"type": "human", "data": {"content": "Hi", "type": "human"}},
        {
            "lc": 1,
            "type": "constructor",
            "id": ["langchain", "schema", "messages", "AIMessage"],
            "kwargs": {"content": "", "tool_calls": [{"name": "f", "args": {}, "id": "a"}]},
        },
        {"type": "tool", "content": "ok", "tool_call_id": "a", "name": "f"},
    ]
    messages, fmt = messages_from_data(lc)
    assert fmt == "langchain"
    assert [m.role for m in messages] == ["user", "assistant", "tool"]
    assert messages[1].content is None
    assert messages[1].tool_calls[0].id == "a"


def test_plain_role_content_messages_are_native() -> None:
    assert detect_format([{"role": "user", "content": "hi"}]) == "native"


@pytest.mark.parametrize(
    ("data", "index", "needle"),
    [
        (
            [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{x"}}]}],
            0,
            "arguments are not valid JSON",
        ),
        ([{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}], 0, "image_url"),
        ([{"role": "model", "parts": [{"inline_data": {}}]}], 0, "unsupported part"),
        ([{"type": "ai", "content": "x"}, {"type": "robot", "content": "y"}], 1, "robot"),
        ([{"type": "message", "role": "wizard", "content": "x"}], 0, "role"),
        (
            [{"role": "user", "content": [{"type": "tool_use", "name": "f", "input": [1]}]}],
            0,
            "expected an object",
        ),
    ],
)
def test_a_bad_message_is_one_line_naming_its_index(data: Any, index: int, needle: str) -> None:
    with pytest.raises(TranscriptError) as info:
        messages_from_data(data)
    assert info.value.index == index
    assert needle in info.value.detail
    assert "\n" not in info.value.detail


def test_too_many_messages_are_refused() -> None:
    with pytest.raises(TranscriptError, match="more than the limit"):
        messages_from_data([{"role": "user", "content": "x"}] * 10_001)
