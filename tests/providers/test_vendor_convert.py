"""Anthropic and Gemini translation, table-tested offline."""

from __future__ import annotations

from agentgauge.providers import GenerateConfig, ModelRequest
from agentgauge.providers._anthropic_convert import (
    AnthropicStream,
    anthropic_payload,
    anthropic_response,
)
from agentgauge.providers._common import RAW_ARGUMENTS_KEY
from agentgauge.providers._gemini_convert import GeminiStream, gemini_request, gemini_response
from agentgauge.schema import Message, ToolCall, ToolSpec

WEATHER = ToolSpec(
    name="get_weather",
    description="Weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
CONVERSATION = [
    Message(role="system", content="Be brief."),
    Message(role="user", content="Paris and Rome?"),
    Message(
        role="assistant",
        content="Checking.",
        tool_calls=[
            ToolCall(name="get_weather", arguments={"city": "Paris"}, id="t1"),
            ToolCall(name="get_weather", arguments={"city": "Rome"}, id="t2"),
        ],
    ),
    Message(role="tool", name="get_weather", tool_call_id="t1", content='{"temp": 20}'),
    Message(role="tool", name="get_weather", tool_call_id="t2", content="25 degrees"),
    Message(role="user", content="Thanks, and Oslo?"),
]


def test_anthropic_payload() -> None:
    p = anthropic_payload(
        ModelRequest(messages=CONVERSATION, tools=[WEATHER], config=GenerateConfig(seed=3)),
        "claude-x",
    )
    assert p["model"] == "claude-x"
    assert p["system"] == "Be brief."
    assert p["max_tokens"] == 1024
    assert p["temperature"] == 0.0
    assert "seed" not in p
    assert p["tools"] == [
        {"name": "get_weather", "description": "Weather", "input_schema": WEATHER.parameters}
    ]
    msgs = p["messages"]
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[1]["content"] == [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}},
        {"type": "tool_use", "id": "t2", "name": "get_weather", "input": {"city": "Rome"}},
    ]
    # both results and the next user text share one user turn (roles must alternate)
    assert msgs[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": '{"temp": 20}'},
        {"type": "tool_result", "tool_use_id": "t2", "content": "25 degrees"},
        {"type": "text", "text": "Thanks, and Oslo?"},
    ]


def test_anthropic_response() -> None:
    body = {
        "model": "claude-x",
        "content": [
            {"type": "text", "text": "Let me check."},
            {"type": "tool_use", "id": "tu1", "name": "get_weather", "input": {"city": "Oslo"}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 30, "output_tokens": 12},
    }
    r = anthropic_response(body)
    assert r.message.content == "Let me check."
    assert r.message.tool_calls == [
        ToolCall(id="tu1", name="get_weather", arguments={"city": "Oslo"})
    ]
    assert r.finish_reason == "tool_calls"
    assert (r.usage.input_tokens, r.usage.output_tokens) == (30, 12)
    assert (
        anthropic_response({"content": [], "stop_reason": "max_tokens"}).finish_reason == "length"
    )


def test_anthropic_stream() -> None:
    acc = AnthropicStream()
    events = [
        {"type": "message_start", "message": {"model": "claude-x", "usage": {"input_tokens": 9}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "a", "name": "f", "input": {}},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": '{"x": '},
        },
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "input_json_delta", "partial_json": "1}"},
        },
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 7},
        },
        {"type": "message_stop"},
    ]
    produced = [acc.feed(e) for e in events]
    assert produced == [False, False, True, True, True, True, False, False]
    r = acc.result(5.0)
    assert r.message.content == "Hi"
    assert r.message.tool_calls == [ToolCall(id="a", name="f", arguments={"x": 1})]
    assert (r.usage.input_tokens, r.usage.output_tokens) == (9, 7)
    assert (r.finish_reason, r.ttft_ms, r.model) == ("tool_calls", 5.0, "claude-x")


def test_gemini_request() -> None:
    contents, config = gemini_request(
        ModelRequest(
            messages=CONVERSATION, tools=[WEATHER], config=GenerateConfig(max_tokens=64, seed=2)
        )
    )
    assert config["system_instruction"] == "Be brief."
    assert config["automatic_function_calling"] == {"disable": True}
    assert config["tools"][0]["function_declarations"][0] == {
        "name": "get_weather",
        "description": "Weather",
        "parameters_json_schema": WEATHER.parameters,
    }
    assert (config["max_output_tokens"], config["seed"], config["temperature"]) == (64, 2, 0.0)
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    assert contents[1]["parts"][1] == {
        "function_call": {"name": "get_weather", "args": {"city": "Paris"}, "id": "t1"}
    }
    assert contents[2]["parts"] == [
        {"function_response": {"name": "get_weather", "response": {"temp": 20}, "id": "t1"}},
        {
            "function_response": {
                "name": "get_weather",
                "response": {"result": "25 degrees"},
                "id": "t2",
            }
        },
        {"text": "Thanks, and Oslo?"},
    ]


def test_gemini_response_and_stream() -> None:
    body = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "thinking...", "thought": True},
                        {"text": "Sure."},
                        {"function_call": {"name": "get_weather", "args": {"city": "Oslo"}}},
                        {"function_call": {"name": "g", "args": "oops"}},
                    ],
                },
                "finish_reason": "STOP",
            }
        ],
        "usage_metadata": {"prompt_token_count": 21, "candidates_token_count": 4},
        "model_version": "gemini-x",
    }
    r = gemini_response(body)
    assert r.message.content == "Sure."
    assert r.message.tool_calls == [
        ToolCall(name="get_weather", arguments={"city": "Oslo"}),
        ToolCall(name="g", arguments={RAW_ARGUMENTS_KEY: "oops"}),
    ]
    assert (r.finish_reason, r.model) == ("tool_calls", "gemini-x")
    assert (r.usage.input_tokens, r.usage.output_tokens) == (21, 4)
    text_only = {
        "candidates": [{"content": {"parts": [{"text": "a"}]}, "finish_reason": "MAX_TOKENS"}]
    }
    assert gemini_response(text_only).finish_reason == "length"
    acc = GeminiStream()
    assert acc.feed({"candidates": [{"content": {"parts": [{"text": "He"}]}}]})
    assert acc.feed(
        {"candidates": [{"content": {"parts": [{"text": "llo"}]}, "finish_reason": "STOP"}]}
    )
    assert not acc.feed({"usage_metadata": {"prompt_token_count": 2, "candidates_token_count": 2}})
    out = acc.result(3.0)
    assert (out.message.content, out.finish_reason, out.usage.output_tokens) == ("Hello", "stop", 2)
