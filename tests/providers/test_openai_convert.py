from __future__ import annotations

from typing import Any

import pytest

from agentgauge.providers import GenerateConfig, ModelRequest
from agentgauge.providers._common import RAW_ARGUMENTS_KEY
from agentgauge.providers._openai_convert import (
    ChatStream,
    chat_payload,
    chat_response,
    responses_payload,
    responses_response,
)
from agentgauge.schema import Message, ToolCall, ToolSpec

WEATHER = ToolSpec(
    name="get_weather",
    description="Weather for a city",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)

CONVERSATION = [
    Message(role="system", content="Be brief."),
    Message(role="user", content="Weather in Paris and Rome?"),
    Message(
        role="assistant",
        tool_calls=[
            ToolCall(name="get_weather", arguments={"city": "Paris"}),
            ToolCall(name="get_weather", arguments={"city": "Rome"}, id="abc"),
        ],
    ),
    Message(role="tool", name="get_weather", content='{"temp": 20}'),
    Message(role="tool", name="get_weather", tool_call_id="abc", content='{"temp": 25}'),
    Message(role="assistant", content="Paris 20, Rome 25."),
]


def test_chat_payload_messages_tools_and_config() -> None:
    request = ModelRequest(
        messages=CONVERSATION,
        tools=[WEATHER],
        config=GenerateConfig(temperature=0.2, max_tokens=50, seed=7, stream=True),
    )
    p = chat_payload(request, "gpt-x")
    assert p["model"] == "gpt-x"
    assert p["messages"][0] == {"role": "system", "content": "Be brief."}
    assistant = p["messages"][2]
    assert assistant["content"] is None
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_2_0", "abc"]
    assert assistant["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
    }
    # a tool result without an id answers the oldest pending call
    assert p["messages"][3] == {
        "role": "tool",
        "tool_call_id": "call_2_0",
        "content": '{"temp": 20}',
    }
    assert p["messages"][4]["tool_call_id"] == "abc"
    assert p["messages"][5] == {"role": "assistant", "content": "Paris 20, Rome 25."}
    assert p["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather for a city",
                "parameters": WEATHER.parameters,
            },
        }
    ]
    assert (p["temperature"], p["max_tokens"], p["seed"]) == (0.2, 50, 7)
    assert p["stream"] is True
    assert p["stream_options"] == {"include_usage": True}


def test_chat_payload_omits_unset_options() -> None:
    request = ModelRequest(
        messages=[Message(role="user", content="hi")],
        config=GenerateConfig(temperature=None, seed=None),
    )
    assert chat_payload(request, "m") == {
        "model": "m",
        "messages": [{"role": "user", "content": "hi"}],
    }


def _chat_body(message: dict[str, Any], finish: str | None = "stop") -> dict[str, Any]:
    return {
        "model": "gpt-x",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 11, "completion_tokens": 3},
    }


@pytest.mark.parametrize(
    ("message", "content", "calls", "finish"),
    [
        ({"role": "assistant", "content": "hello"}, "hello", [], "stop"),
        (
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "function": {"name": "f", "arguments": '{"a": 1}'}},
                    {"id": "c2", "function": {"name": "g", "arguments": ""}},
                ],
            },
            None,
            [ToolCall(id="c1", name="f", arguments={"a": 1}), ToolCall(id="c2", name="g")],
            "stop",
        ),
        (
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": '{"a": 1'}}],
            },
            None,
            [ToolCall(id="c1", name="f", arguments={RAW_ARGUMENTS_KEY: '{"a": 1'})],
            "stop",
        ),
        (
            {"role": "assistant", "content": [{"type": "text", "text": "par"}, {"text": "ts"}]},
            "parts",
            [],
            "stop",
        ),
    ],
)
def test_chat_response(
    message: dict[str, Any], content: str | None, calls: list[ToolCall], finish: str
) -> None:
    r = chat_response(_chat_body(message))
    assert r.message.role == "assistant"
    assert r.message.content == content
    assert r.message.tool_calls == calls
    assert (r.usage.input_tokens, r.usage.output_tokens) == (11, 3)
    assert r.model == "gpt-x"
    assert r.finish_reason == finish


def test_chat_response_missing_finish_reason_with_calls() -> None:
    body = _chat_body(
        {"tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "[1]"}}]}, None
    )
    r = chat_response(body)
    assert r.finish_reason == "tool_calls"
    assert r.message.tool_calls[0].arguments == {RAW_ARGUMENTS_KEY: "[1]"}


def test_chat_stream_accumulates_text_calls_and_usage() -> None:
    acc = ChatStream()
    chunks = [
        {"model": "m", "choices": [{"delta": {"role": "assistant", "content": ""}}]},
        {"choices": [{"delta": {"content": "Hel"}}]},
        {"choices": [{"delta": {"content": "lo"}}]},
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [
                            {"index": 0, "id": "c1", "function": {"name": "f", "arguments": ""}}
                        ]
                    }
                }
            ]
        },
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"a"'}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 2}"}}]}}]},
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 9}},
    ]
    produced = [acc.feed(c) for c in chunks]
    assert produced == [False, True, True, True, True, True, False, False]
    r = acc.result(ttft_ms=12.5)
    assert r.message.content == "Hello"
    assert r.message.tool_calls == [ToolCall(id="c1", name="f", arguments={"a": 2})]
    assert r.finish_reason == "tool_calls"
    assert (r.usage.input_tokens, r.usage.output_tokens) == (5, 9)
    assert r.ttft_ms == 12.5
    assert r.model == "m"


def test_responses_payload() -> None:
    request = ModelRequest(
        messages=CONVERSATION, tools=[WEATHER], config=GenerateConfig(max_tokens=20, seed=3)
    )
    p = responses_payload(request, "gpt-r")
    assert p["model"] == "gpt-r"
    assert p["store"] is False
    assert "seed" not in p
    assert p["max_output_tokens"] == 20
    items = p["input"]
    assert items[0] == {"role": "system", "content": "Be brief."}
    assert items[2] == {
        "type": "function_call",
        "call_id": "call_2_0",
        "name": "get_weather",
        "arguments": '{"city":"Paris"}',
    }
    assert items[4] == {
        "type": "function_call_output",
        "call_id": "call_2_0",
        "output": '{"temp": 20}',
    }
    assert items[5]["call_id"] == "abc"
    assert items[6] == {"role": "assistant", "content": "Paris 20, Rome 25."}
    assert p["tools"][0]["name"] == "get_weather"
    assert p["tools"][0]["type"] == "function"


def test_responses_response() -> None:
    body = {
        "model": "gpt-r",
        "status": "completed",
        "output": [
            {"type": "reasoning", "summary": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Checking."}],
            },
            {"type": "function_call", "call_id": "c9", "name": "f", "arguments": '{"x": true}'},
            {"type": "function_call", "call_id": "c10", "name": "g", "arguments": "oops"},
        ],
        "usage": {"input_tokens": 40, "output_tokens": 12},
    }
    r = responses_response(body)
    assert r.message.content == "Checking."
    assert r.message.tool_calls == [
        ToolCall(id="c9", name="f", arguments={"x": True}),
        ToolCall(id="c10", name="g", arguments={RAW_ARGUMENTS_KEY: "oops"}),
    ]
    assert (r.usage.input_tokens, r.usage.output_tokens) == (40, 12)
    assert r.finish_reason == "tool_calls"


def test_responses_incomplete_is_length() -> None:
    body = {
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "output": [],
    }
    r = responses_response(body)
    assert r.finish_reason == "length"
    assert r.message.content is None
