"""The real openai: adapter against the loopback FakeOpenAIServer, end to end."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest

from agentgauge.errors import ProviderError, UserError
from agentgauge.providers import GenerateConfig, ModelRequest, ModelResponse, resolve_provider
from agentgauge.providers._openai import OpenAIProvider
from agentgauge.schema import Message, ToolCall, ToolSpec
from agentgauge.testing import FakeFault, FakeOpenAIServer

KEY = "sk-loopbacktest-0123456789abcdef"
WEATHER = ToolSpec(
    name="get_weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
SCRIPT = [ToolCall(name="get_weather", arguments={"city": "Paris"}), "It is sunny in Paris."]


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(SCRIPT) as srv:
        yield srv


def _provider(server: FakeOpenAIServer, spec: str = "openai:fake-model") -> OpenAIProvider:
    p = resolve_provider(spec, base_url=server.base_url, api_key=KEY)
    assert isinstance(p, OpenAIProvider)
    return p


def _tool_loop(provider: OpenAIProvider, stream: bool) -> list[ModelResponse]:
    async def go() -> list[ModelResponse]:
        config = GenerateConfig(stream=stream)
        messages = [Message(role="user", content="Weather in Paris?")]
        first = await provider.generate(
            ModelRequest(messages=messages, tools=[WEATHER], config=config)
        )
        messages += [
            first.message,
            Message(role="tool", name="get_weather", content='{"sky": "sunny"}'),
        ]
        second = await provider.generate(
            ModelRequest(messages=messages, tools=[WEATHER], config=config)
        )
        await provider.aclose()
        return [first, second]

    return anyio.run(go)


@pytest.mark.parametrize("transport", ["direct", "sdk"])
@pytest.mark.parametrize("api", ["chat", "responses"])
@pytest.mark.parametrize("stream", [False, True])
def test_tool_loop_end_to_end(
    server: FakeOpenAIServer, transport: str, api: str, stream: bool
) -> None:
    if transport == "sdk":
        pytest.importorskip("openai")
    provider = _provider(server, f"openai:fake-model?api={api}&transport={transport}")
    first, second = _tool_loop(provider, stream)
    call = first.message.tool_calls[0]
    assert (call.name, call.arguments) == ("get_weather", {"city": "Paris"})
    assert call.id
    assert first.finish_reason == "tool_calls"
    assert first.usage.input_tokens > 0
    assert first.usage.output_tokens > 0
    assert second.message.content == "It is sunny in Paris."
    assert second.finish_reason == "stop"
    assert second.model == "fake-model"
    if stream:
        assert first.ttft_ms is not None
        assert second.ttft_ms is not None
        assert second.ttft_ms >= 0
    else:
        assert first.ttft_ms is None
    # what the server received: the tool result answers the call the model made
    sent = server.requests[1].body
    assert sent["model"] == "fake-model"
    if api == "chat":
        assert server.requests[1].path == "/v1/chat/completions"
        assert sent["messages"][-1] == {
            "role": "tool",
            "tool_call_id": call.id,
            "content": '{"sky": "sunny"}',
        }
        assert sent["tools"][0]["function"]["name"] == "get_weather"
    else:
        assert server.requests[1].path == "/v1/responses"
        assert sent["input"][-1] == {
            "type": "function_call_output",
            "call_id": call.id,
            "output": '{"sky": "sunny"}',
        }


@pytest.mark.parametrize("transport", ["direct", "sdk"])
@pytest.mark.parametrize(
    ("fault", "status", "retry_after", "transient"),
    [
        (FakeFault(429, retry_after="7"), 429, 7.0, True),
        (FakeFault(500), 500, None, True),
        (FakeFault(503, retry_after="Wed, 21 Oct 2015 07:28:00 GMT"), 503, 0.0, True),
        (FakeFault(400, message="bad tools"), 400, None, False),
        (FakeFault(401, message=f"invalid key {KEY}"), 401, None, False),
    ],
)
def test_errors_map_to_provider_error(
    transport: str, fault: FakeFault, status: int, retry_after: float | None, transient: bool
) -> None:
    if transport == "sdk":
        pytest.importorskip("openai")
    with FakeOpenAIServer([fault]) as srv:
        provider = _provider(srv, f"openai:fake-model?transport={transport}")

        async def go() -> None:
            try:
                await provider.generate(ModelRequest(messages=[Message(role="user", content="x")]))
            finally:
                await provider.aclose()

        with pytest.raises(ProviderError) as info:
            anyio.run(go)
    err = info.value
    assert err.status == status
    assert err.retry_after == retry_after
    assert err.transient is transient
    assert KEY not in str(err)
    assert KEY not in repr(provider)
    assert fault.message.split()[0] in str(err)


def test_connection_refused_is_transient() -> None:
    with FakeOpenAIServer() as srv:
        url = srv.base_url
    provider = resolve_provider("openai:m", base_url=url, api_key=KEY)

    async def go() -> None:
        try:
            await provider.generate(ModelRequest(messages=[Message(role="user", content="x")]))
        finally:
            await provider.aclose()  # type: ignore[attr-defined]

    with pytest.raises(ProviderError) as info:
        anyio.run(go)
    assert info.value.transient
    assert info.value.status is None


def test_streaming_text_reports_ttft(server: FakeOpenAIServer) -> None:
    server._script = server._script[1:]  # text only
    provider = _provider(server)

    async def go() -> ModelResponse:
        request = ModelRequest(
            messages=[Message(role="user", content="hi")], config=GenerateConfig(stream=True)
        )
        try:
            return await provider.generate(request)
        finally:
            await provider.aclose()

    r = anyio.run(go)
    assert r.message.content == "It is sunny in Paris."
    assert r.ttft_ms is not None
    assert server.requests[0].body["stream"] is True


def test_sdk_streaming_survives_latency() -> None:
    pytest.importorskip("openai")
    with FakeOpenAIServer(["slow"], latency_ms=30) as srv:
        provider = _provider(srv, "openai:fake-model?transport=sdk")

        async def go() -> ModelResponse:
            request = ModelRequest(
                messages=[Message(role="user", content="hi")], config=GenerateConfig(stream=True)
            )
            try:
                return await provider.generate(request)
            finally:
                await provider.aclose()

        r = anyio.run(go)
    assert r.message.content == "slow"
    assert r.ttft_ms is not None
    assert r.ttft_ms >= 25


def test_name_and_repr_hold_no_key(server: FakeOpenAIServer) -> None:
    p = _provider(server, "openai:fake-model?api=responses")
    assert p.name == "openai:fake-model?api=responses"
    assert KEY not in repr(p)
    assert KEY not in p.name


def test_missing_key_for_openai_is_user_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(UserError, match="OPENAI_API_KEY"):
        resolve_provider("openai:gpt-4o-mini")
    with pytest.raises(UserError, match="unknown option"):
        resolve_provider("openai:gpt-4o-mini?colour=blue", base_url="http://127.0.0.1:1/v1")


def test_env_base_url_and_key(monkeypatch: pytest.MonkeyPatch, server: FakeOpenAIServer) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    p = resolve_provider("openai:fake-model")
    _tool_loop(p, stream=False)  # type: ignore[arg-type]
    assert server.count == 2


def test_azure_spec_builds_deployment_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AZURE_OPENAI_API_KEY", KEY)
    with FakeOpenAIServer(["hi from azure"]) as srv:
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", srv.url)
        provider = resolve_provider("azure:my-deployment?api_version=2024-10-21")
        assert provider.name == "azure:my-deployment"

        async def go() -> ModelResponse:
            try:
                return await provider.generate(
                    ModelRequest(messages=[Message(role="user", content="x")])
                )
            finally:
                await provider.aclose()  # type: ignore[attr-defined]

        # the fake server only knows /v1 paths: a 404 proves the Azure URL shape was used
        with pytest.raises(ProviderError) as info:
            anyio.run(go)
    assert info.value.status == 404
    monkeypatch.delenv("AZURE_OPENAI_ENDPOINT")
    with pytest.raises(UserError, match="AZURE_OPENAI_ENDPOINT"):
        resolve_provider("azure:x")


def test_error_inside_a_stream_is_a_provider_error() -> None:
    provider = OpenAIProvider("m", base_url="http://127.0.0.1:9/v1")

    async def events() -> AsyncIterator[Any]:
        yield {"choices": [{"delta": {"content": "par"}}]}
        yield {"error": {"message": "upstream overloaded"}}

    async def go() -> ModelResponse:
        return await provider._consume(events())

    with pytest.raises(ProviderError, match="upstream overloaded") as info:
        anyio.run(go)
    assert info.value.transient

    responses = OpenAIProvider("m", api="responses", base_url="http://127.0.0.1:9/v1")

    async def failed() -> AsyncIterator[Any]:
        yield {"type": "response.created", "response": {}}
        yield {"type": "response.failed", "response": {"error": {"message": "server_error"}}}

    async def go2() -> ModelResponse:
        return await responses._consume(failed())

    with pytest.raises(ProviderError, match="server_error"):
        anyio.run(go2)


def test_large_streamed_event_fits() -> None:
    big = "x" * 300_000
    with FakeOpenAIServer([big]) as srv:
        provider = _provider(srv, "openai:fake-model?api=responses")

        async def go() -> ModelResponse:
            request = ModelRequest(
                messages=[Message(role="user", content="hi")], config=GenerateConfig(stream=True)
            )
            try:
                return await provider.generate(request)
            finally:
                await provider.aclose()

        r = anyio.run(go)
    assert r.message.content == big
