"""The anthropic: and gemini: adapters through their real SDKs, against a loopback server."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import orjson
import pytest
from aiohttp import web

from agentgauge.errors import ProviderError, UserError
from agentgauge.providers import (
    GenerateConfig,
    ModelRequest,
    ModelResponse,
    close_provider,
    resolve_provider,
)
from agentgauge.schema import Message, ToolCall, ToolSpec

KEY = "sk-ant-loopback-0123456789abcdef"
WEATHER = ToolSpec(name="get_weather", parameters={"type": "object", "properties": {}})
REQUEST = ModelRequest(messages=[Message(role="user", content="Weather in Oslo?")], tools=[WEATHER])

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


async def _serve(routes: list[web.RouteDef]) -> tuple[web.AppRunner, str]:
    app = web.Application()
    app.add_routes(routes)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


def _run(routes: list[web.RouteDef], spec: str, request: ModelRequest = REQUEST) -> ModelResponse:
    async def go() -> ModelResponse:
        runner, url = await _serve(routes)
        provider = resolve_provider(spec, base_url=url, api_key=KEY)
        try:
            return await provider.generate(request)
        finally:
            await close_provider(provider)
            await runner.cleanup()

    return anyio.run(go)


# ---------------------------------------------------------------------- anthropic

ANTHROPIC_MESSAGE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-test",
    "content": [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 20, "output_tokens": 9},
}


def test_anthropic_round_trip() -> None:
    pytest.importorskip("anthropic")
    seen: list[dict[str, Any]] = []

    async def messages(request: web.Request) -> web.Response:
        seen.append(await request.json())
        assert any(KEY in v for v in request.headers.values())
        return web.json_response(ANTHROPIC_MESSAGE)

    r = _run([web.post("/v1/messages", messages)], "anthropic:claude-test")
    assert r.message.content == "Checking."
    assert r.message.tool_calls == [
        ToolCall(id="toolu_1", name="get_weather", arguments={"city": "Oslo"})
    ]
    assert (r.finish_reason, r.usage.input_tokens, r.usage.output_tokens) == ("tool_calls", 20, 9)
    assert seen[0]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo?"}]}
    ]
    assert seen[0]["tools"][0]["name"] == "get_weather"


def test_anthropic_streaming() -> None:
    pytest.importorskip("anthropic")
    events = [
        {"type": "message_start", "message": dict(ANTHROPIC_MESSAGE, content=[], stop_reason=None)},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Sunny"},
        },
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    ]

    async def messages(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await resp.prepare(request)
        for e in events:
            await resp.write(
                b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n"
            )
        await resp.write_eof()
        return resp

    stream_request = ModelRequest(messages=REQUEST.messages, config=GenerateConfig(stream=True))
    r = _run([web.post("/v1/messages", messages)], "anthropic:claude-test", stream_request)
    assert r.message.content == "Sunny"
    assert r.finish_reason == "stop"
    assert r.ttft_ms is not None
    assert (r.usage.input_tokens, r.usage.output_tokens) == (20, 3)


@pytest.mark.parametrize(("status", "transient"), [(429, True), (529, True), (400, False)])
def test_anthropic_errors(status: int, transient: bool) -> None:
    pytest.importorskip("anthropic")

    async def messages(request: web.Request) -> web.Response:
        return web.json_response(
            {"type": "error", "error": {"type": "x", "message": f"nope {KEY}"}},
            status=status,
            headers={"retry-after": "2"},
        )

    with pytest.raises(ProviderError) as info:
        _run([web.post("/v1/messages", messages)], "anthropic:claude-test")
    assert info.value.status == status
    assert info.value.transient is transient
    assert info.value.retry_after == 2.0
    assert KEY not in str(info.value)
    assert "nope" in str(info.value)


# ---------------------------------------------------------------------- gemini

GEMINI_REPLY = {
    "candidates": [
        {
            "content": {
                "role": "model",
                "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}],
            },
            "finishReason": "STOP",
        }
    ],
    "usageMetadata": {"promptTokenCount": 14, "candidatesTokenCount": 5},
    "modelVersion": "gemini-test",
}


def _gemini_routes(handler: Handler) -> list[web.RouteDef]:
    # the API version in the path differs between SDK releases
    return [
        web.post(f"/{version}/models/gemini-test:generateContent", handler)
        for version in ("v1", "v1beta")
    ]


def test_gemini_round_trip() -> None:
    pytest.importorskip("google.genai")
    seen: list[dict[str, Any]] = []

    async def generate(request: web.Request) -> web.Response:
        seen.append(await request.json())
        return web.json_response(GEMINI_REPLY)

    r = _run(_gemini_routes(generate), "gemini:gemini-test")
    assert r.message.tool_calls == [ToolCall(name="get_weather", arguments={"city": "Oslo"})]
    assert (r.finish_reason, r.usage.input_tokens, r.usage.output_tokens) == ("tool_calls", 14, 5)
    body = seen[0]
    assert body["contents"] == [{"role": "user", "parts": [{"text": "Weather in Oslo?"}]}]
    assert body["tools"][0]["functionDeclarations"][0]["name"] == "get_weather"


def test_gemini_errors() -> None:
    pytest.importorskip("google.genai")

    async def generate(request: web.Request) -> web.Response:
        return web.json_response(
            {"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}},
            status=429,
        )

    with pytest.raises(ProviderError) as info:
        _run(_gemini_routes(generate), "gemini:gemini-test")
    assert info.value.status == 429
    assert info.value.transient
    assert KEY not in str(info.value)


def test_missing_keys_are_user_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(UserError, match="ANTHROPIC_API_KEY"):
        resolve_provider("anthropic:claude-x")
    with pytest.raises(UserError, match="GEMINI_API_KEY"):
        resolve_provider("gemini:gemini-x")


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "anthropic", None)  # makes `import anthropic` fail
    with pytest.raises(UserError, match=r"pip install 'agentgauge\[anthropic\]'"):
        resolve_provider("anthropic:claude-x", api_key=KEY)
