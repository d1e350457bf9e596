"""Remote MCP servers the vendor calls (a suite's ``mcp_servers``), through the real SDKs against
loopback servers speaking the vendors' wire shapes: Anthropic's MCP connector (beta Messages API,
``anthropic-beta: mcp-client-2025-04-04``, or ``mcp-client-2025-11-20`` with ``mcp_toolset``
entries in ``tools``; ``mcp_tool_use`` / ``mcp_tool_result`` blocks) and the
Responses API's ``mcp`` tool (``mcp_call`` items). The reply's connector calls come back marked
(``ToolCall.mcp``) in ``server_steps``; the history is sent back in the connector's own shapes."""

from __future__ import annotations

import json
from typing import Any

import anyio
import orjson
import pytest
from aiohttp import web

from agentgauge.providers import (
    GenerateConfig,
    McpConnector,
    ModelRequest,
    ModelResponse,
    close_provider,
    resolve_provider,
)
from agentgauge.providers._cache import decode_response, encode_response
from agentgauge.schema import Message

KEY = "sk-loopback-0123456789abcdef"
TOKEN = "mcp-token-9f8e7d6c5b4a3210"
SERVER = McpConnector(name="docs", url="https://mcp.example.com/mcp", token=TOKEN, tools=("kb",))
ASK = [Message(role="user", content="What is the leave policy?")]
WITH_SERVER = ModelRequest(messages=ASK, config=GenerateConfig(mcp_servers=(SERVER,)))

CONNECTOR_MESSAGE: dict[str, Any] = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "content": [
        {"type": "text", "text": "Let me look."},
        {
            "type": "mcp_tool_use",
            "id": "mcptoolu_1",
            "name": "kb",
            "server_name": "docs",
            "input": {"q": "leave"},
        },
        {
            "type": "mcp_tool_result",
            "tool_use_id": "mcptoolu_1",
            "is_error": False,
            "content": [{"type": "text", "text": "25 days"}],
        },
        {"type": "text", "text": "You get 25 days."},
    ],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 30, "output_tokens": 12},
}


async def _serve(routes: list[web.RouteDef]) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


def _run(routes: list[web.RouteDef], spec: str, request: ModelRequest) -> ModelResponse:
    async def go() -> ModelResponse:
        runner, url = await _serve(routes)
        provider = resolve_provider(spec, base_url=url, api_key=KEY)
        try:
            return await provider.generate(request)
        finally:
            await close_provider(provider)
            await runner.cleanup()

    return anyio.run(go)


def _shape(messages: tuple[Message, ...] | list[Message]) -> list[Any]:
    return [
        (m.role, m.content, [(c.name, c.mcp, c.mcp_server, c.arguments) for c in m.tool_calls])
        for m in messages
    ]


# ---------------------------------------------------------------------- anthropic


def test_anthropic_connector_request_and_marked_reply() -> None:
    pytest.importorskip("anthropic")
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []

    async def messages(request: web.Request) -> web.Response:
        seen.append((dict(request.headers), await request.json()))
        return web.json_response(CONNECTOR_MESSAGE)

    r = _run([web.post("/v1/messages", messages)], "anthropic:claude-test", WITH_SERVER)
    headers, body = seen[0]
    assert "mcp-client-2025-04-04" in headers.get("anthropic-beta", "")
    assert body["mcp_servers"] == [
        {
            "type": "url",
            "url": "https://mcp.example.com/mcp",
            "name": "docs",
            "authorization_token": TOKEN,
            "tool_configuration": {"enabled": True, "allowed_tools": ["kb"]},
        }
    ]
    assert _shape(r.server_steps) == [
        ("assistant", "Let me look.", [("kb", True, "docs", {"q": "leave"})]),
        ("tool", "25 days", []),
    ]
    assert r.server_steps[1].tool_call_id == "mcptoolu_1"
    assert _shape([r.message]) == [("assistant", "You get 25 days.", [])]
    assert r.finish_reason == "stop"


TOOLSETS = "anthropic:claude-test?mcp_beta=2025-11-20"


def test_anthropic_toolset_beta_request_and_marked_reply() -> None:
    """``?mcp_beta=2025-11-20``: the newer connector beta; the servers carry no tool
    configuration, an ``mcp_toolset`` entry of ``tools`` does (the allow-list as every tool
    disabled but the listed ones); the reply's blocks read as with the older beta."""
    pytest.importorskip("anthropic")
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []

    async def messages(request: web.Request) -> web.Response:
        seen.append((dict(request.headers), await request.json()))
        return web.json_response(CONNECTOR_MESSAGE)

    r = _run([web.post("/v1/messages", messages)], TOOLSETS, WITH_SERVER)
    headers, body = seen[0]
    assert headers.get("anthropic-beta") == "mcp-client-2025-11-20"
    assert body["mcp_servers"] == [
        {
            "type": "url",
            "url": "https://mcp.example.com/mcp",
            "name": "docs",
            "authorization_token": TOKEN,
        }
    ]
    assert body["tools"] == [
        {
            "type": "mcp_toolset",
            "mcp_server_name": "docs",
            "default_config": {"enabled": False},
            "configs": {"kb": {"enabled": True}},
        }
    ]
    assert _shape(r.server_steps) == [
        ("assistant", "Let me look.", [("kb", True, "docs", {"q": "leave"})]),
        ("tool", "25 days", []),
    ]
    assert _shape([r.message]) == [("assistant", "You get 25 days.", [])]


def test_anthropic_toolset_beta_keeps_the_suite_tools_and_all_server_tools() -> None:
    """A server without an allow-list gets a bare ``mcp_toolset`` (all its tools), after the
    case's own tools; the history goes back under the same beta."""
    pytest.importorskip("anthropic")
    from agentgauge.schema import ToolSpec

    bodies: list[tuple[dict[str, str], dict[str, Any]]] = []

    async def messages(request: web.Request) -> web.Response:
        bodies.append((dict(request.headers), await request.json()))
        return web.json_response(CONNECTOR_MESSAGE)

    everything = McpConnector(name="docs", url="https://mcp.example.com/mcp")
    weather = ToolSpec(name="get_weather", description="Weather.", parameters={"type": "object"})
    request = ModelRequest(
        messages=ASK, tools=[weather], config=GenerateConfig(mcp_servers=(everything,))
    )
    r = _run([web.post("/v1/messages", messages)], TOOLSETS, request)
    _, body = bodies[0]
    assert [t.get("name") or t["type"] for t in body["tools"]] == ["get_weather", "mcp_toolset"]
    assert body["tools"][1] == {"type": "mcp_toolset", "mcp_server_name": "docs"}
    assert "authorization_token" not in body["mcp_servers"][0]
    history = [*ASK, *r.server_steps, r.message, Message(role="user", content="Thanks")]
    _run([web.post("/v1/messages", messages)], TOOLSETS, ModelRequest(messages=history))
    headers, again = bodies[1]
    assert headers.get("anthropic-beta") == "mcp-client-2025-11-20"
    assert "mcp_servers" not in again
    assert [b["type"] for b in again["messages"][1]["content"]][1:3] == [
        "mcp_tool_use",
        "mcp_tool_result",
    ]


def test_anthropic_mcp_beta_option() -> None:
    pytest.importorskip("anthropic")
    from agentgauge.errors import UserError

    default = resolve_provider("anthropic:claude-test", api_key=KEY)
    newer = resolve_provider("anthropic:claude-test?mcp_beta=mcp-client-2025-11-20", api_key=KEY)
    # the newer beta's requests differ: its replies are cached apart; the default's keys stay
    assert (getattr(default, "cache_tag", ""), newer.cache_tag) == ("", "mcp-client-2025-11-20")
    with pytest.raises(UserError, match=r"mcp_beta must be one of 2025-04-04, 2025-11-20"):
        resolve_provider("anthropic:claude-test?mcp_beta=2026-01-01", api_key=KEY)


def test_anthropic_without_servers_uses_the_plain_api() -> None:
    pytest.importorskip("anthropic")
    seen: list[tuple[dict[str, str], dict[str, Any]]] = []
    plain = {**CONNECTOR_MESSAGE, "content": [{"type": "text", "text": "25 days."}]}

    async def messages(request: web.Request) -> web.Response:
        seen.append((dict(request.headers), await request.json()))
        return web.json_response(plain)

    r = _run(
        [web.post("/v1/messages", messages)], "anthropic:claude-test", ModelRequest(messages=ASK)
    )
    headers, body = seen[0]
    assert "mcp_servers" not in body
    assert "anthropic-beta" not in headers
    assert r.server_steps == ()
    assert r.message.content == "25 days."


def test_anthropic_error_result_and_history_sent_back() -> None:
    """A failed connector call is an error result; on the next request the connector's call
    and result go back as its own blocks inside the assistant's message."""
    pytest.importorskip("anthropic")
    failing = json.loads(json.dumps(CONNECTOR_MESSAGE))
    failing["content"][2]["is_error"] = True
    failing["content"][2]["content"] = [{"type": "text", "text": "server down"}]
    bodies: list[dict[str, Any]] = []

    async def messages(request: web.Request) -> web.Response:
        bodies.append(await request.json())
        return web.json_response(failing)

    r = _run([web.post("/v1/messages", messages)], "anthropic:claude-test", WITH_SERVER)
    assert json.loads(r.server_steps[1].content or "") == {"error": "server down"}
    history = [*ASK, *r.server_steps, r.message, Message(role="user", content="Thanks")]
    again = ModelRequest(messages=history, config=GenerateConfig(mcp_servers=(SERVER,)))
    _run([web.post("/v1/messages", messages)], "anthropic:claude-test", again)
    assistant = bodies[1]["messages"][1]
    assert assistant["role"] == "assistant"
    assert [b["type"] for b in assistant["content"]] == [
        "text",
        "mcp_tool_use",
        "mcp_tool_result",
        "text",
    ]
    assert assistant["content"][1]["server_name"] == "docs"
    assert assistant["content"][2]["is_error"] is True


@pytest.mark.parametrize(
    ("spec", "beta"),
    [("anthropic:claude-test", "mcp-client-2025-04-04"), (TOOLSETS, "mcp-client-2025-11-20")],
)
def test_anthropic_connector_streamed(spec: str, beta: str) -> None:
    pytest.importorskip("anthropic")
    use = {
        "type": "mcp_tool_use",
        "id": "mcptoolu_1",
        "name": "kb",
        "server_name": "docs",
        "input": {},
    }
    result = CONNECTOR_MESSAGE["content"][2]
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {**CONNECTOR_MESSAGE, "content": [], "stop_reason": None},
        },
        {"type": "content_block_start", "index": 0, "content_block": use},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": '{"q": "leave"}'},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": result},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 2,
            "delta": {"type": "text_delta", "text": "25 days."},
        },
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 5},
        },
        {"type": "message_stop"},
    ]

    async def messages(request: web.Request) -> web.StreamResponse:
        assert request.headers.get("anthropic-beta") == beta
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for e in events:
            await resp.write(
                b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n"
            )
        await resp.write_eof()
        return resp

    streamed = ModelRequest(messages=ASK, config=GenerateConfig(stream=True, mcp_servers=(SERVER,)))
    r = _run([web.post("/v1/messages", messages)], spec, streamed)
    assert _shape(r.server_steps) == [
        ("assistant", None, [("kb", True, "docs", {"q": "leave"})]),
        ("tool", "25 days", []),
    ]
    assert r.message.content == "25 days."


# ---------------------------------------------------------------------- openai responses

RESPONSES_REPLY: dict[str, Any] = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1,
    "model": "gpt-test",
    "status": "completed",
    "output": [
        {
            "type": "mcp_list_tools",
            "id": "mcpl_1",
            "server_label": "docs",
            "tools": [{"name": "kb", "input_schema": {"type": "object"}}],
        },
        {
            "type": "mcp_call",
            "id": "mcp_1",
            "name": "kb",
            "server_label": "docs",
            "arguments": '{"q": "leave"}',
            "output": "25 days",
            "error": None,
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": "You get 25 days.", "annotations": []}],
        },
    ],
    "usage": {"input_tokens": 40, "output_tokens": 10, "total_tokens": 50},
}


@pytest.mark.parametrize("transport", ["direct", "sdk"])
def test_responses_mcp_tool_and_marked_calls(transport: str) -> None:
    if transport == "sdk":
        pytest.importorskip("openai")
    bodies: list[dict[str, Any]] = []

    async def responses(request: web.Request) -> web.Response:
        bodies.append(await request.json())
        return web.json_response(RESPONSES_REPLY)

    spec = f"openai:gpt-test?api=responses&transport={transport}"
    r = _run([web.post("/responses", responses)], spec, WITH_SERVER)
    assert bodies[0]["tools"] == [
        {
            "type": "mcp",
            "server_label": "docs",
            "server_url": "https://mcp.example.com/mcp",
            "require_approval": "never",
            "authorization": TOKEN,
            "allowed_tools": ["kb"],
        }
    ]
    assert _shape(r.server_steps) == [
        ("assistant", None, [("kb", True, "docs", {"q": "leave"})]),
        ("tool", "25 days", []),
    ]
    assert (r.message.content, r.message.tool_calls, r.finish_reason) == (
        "You get 25 days.",
        [],
        "stop",
    )
    # the history goes back as one mcp_call item holding its output
    history = [*ASK, *r.server_steps, r.message, Message(role="user", content="Thanks")]
    again = ModelRequest(messages=history, config=GenerateConfig(mcp_servers=(SERVER,)))
    _run([web.post("/responses", responses)], spec, again)
    items = bodies[1]["input"]
    (call,) = [i for i in items if i.get("type") == "mcp_call"]
    assert (call["name"], call["server_label"], call["output"]) == ("kb", "docs", "25 days")
    assert not [i for i in items if i.get("type") in ("function_call", "function_call_output")]


def test_responses_failed_mcp_call_is_an_error_result() -> None:
    reply = json.loads(json.dumps(RESPONSES_REPLY))
    reply["output"][1].update(output=None, error="timeout")

    async def responses(request: web.Request) -> web.Response:
        return web.json_response(reply)

    r = _run([web.post("/responses", responses)], "openai:gpt-test?api=responses", WITH_SERVER)
    assert json.loads(r.server_steps[1].content or "") == {"error": "timeout"}


def test_the_cache_keeps_the_steps_and_marks() -> None:
    async def responses(request: web.Request) -> web.Response:
        return web.json_response(RESPONSES_REPLY)

    r = _run([web.post("/responses", responses)], "openai:gpt-test?api=responses", WITH_SERVER)
    back = decode_response(encode_response(r))
    assert back.server_steps == r.server_steps
    assert [c.mcp for m in back.server_steps for c in m.tool_calls] == [True]
    assert TOKEN.encode() not in encode_response(r)
