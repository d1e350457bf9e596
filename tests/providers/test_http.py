"""The http:// agent adapter: contract translation and a loopback round trip."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from agentgauge.errors import ProviderError, UserError
from agentgauge.providers import GenerateConfig, ModelRequest, ModelResponse, resolve_provider
from agentgauge.providers._common import RAW_ARGUMENTS_KEY
from agentgauge.providers._http import HttpProvider, request_body, response_from_body
from agentgauge.schema import Message, ToolCall, ToolSpec
from agentgauge.testing import FakeFault, FakeOpenAIServer, FakeRaw

TOOL = ToolSpec(name="lookup", description="Find", parameters={"type": "object"})


def test_request_body_shape() -> None:
    request = ModelRequest(
        messages=[
            Message(role="user", content="hi"),
            Message(role="assistant", tool_calls=[ToolCall(name="lookup", id="c1")]),
            Message(role="tool", name="lookup", tool_call_id="c1", content="[]"),
        ],
        tools=[TOOL],
        config=GenerateConfig(temperature=0.5, max_tokens=9, seed=1),
    )
    assert request_body(request) == {
        "messages": [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"name": "lookup", "arguments": {}, "id": "c1"}],
            },
            {"role": "tool", "content": "[]", "tool_call_id": "c1", "name": "lookup"},
        ],
        "tools": [{"name": "lookup", "description": "Find", "parameters": {"type": "object"}}],
        "config": {"temperature": 0.5, "max_tokens": 9, "seed": 1},
    }


@pytest.mark.parametrize(
    ("body", "text", "calls"),
    [
        ({"text": "hello"}, "hello", []),
        ({}, None, []),
        (
            {"tool_calls": [{"name": "lookup", "arguments": {"q": "x"}, "id": 5}]},
            None,
            [ToolCall(name="lookup", arguments={"q": "x"}, id="5")],
        ),
        (
            {"text": "t", "tool_calls": [{"name": "lookup", "arguments": '{"q": 1}'}]},
            "t",
            [ToolCall(name="lookup", arguments={"q": 1})],
        ),
        (
            {"tool_calls": [{"name": "lookup", "arguments": "{broken"}]},
            None,
            [ToolCall(name="lookup", arguments={RAW_ARGUMENTS_KEY: "{broken"})],
        ),
    ],
)
def test_response_from_body(body: dict[str, Any], text: str | None, calls: list[ToolCall]) -> None:
    r = response_from_body(body)
    assert r.message.content == text
    assert r.message.tool_calls == calls
    assert r.finish_reason == ("tool_calls" if calls else "stop")


@pytest.mark.parametrize(
    "body", [[1], {"tool_calls": {"name": "x"}}, {"tool_calls": [{"arguments": {}}]}]
)
def test_malformed_reply_is_non_transient_error(body: Any) -> None:
    with pytest.raises(ProviderError) as info:
        response_from_body(body)
    assert not info.value.transient


def _call(provider: HttpProvider) -> ModelResponse:
    async def go() -> ModelResponse:
        try:
            return await provider.generate(
                ModelRequest(messages=[Message(role="user", content="find x")], tools=[TOOL])
            )
        finally:
            await provider.aclose()

    return anyio.run(go)


def test_loopback_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTGAUGE_HTTP_TOKEN", "tok-secret-123456")
    with FakeOpenAIServer([ToolCall(name="lookup", arguments={"q": "x"})]) as srv:
        provider = resolve_provider(srv.url + "/agent?key=abcdefgh123")
        assert isinstance(provider, HttpProvider)
        assert provider.name == srv.url + "/agent"
        r = _call(provider)
        assert srv.requests[0].body["messages"] == [{"role": "user", "content": "find x"}]
        assert srv.requests[0].body["tools"][0]["name"] == "lookup"
    assert r.message.tool_calls == [ToolCall(name="lookup", arguments={"q": "x"})]
    assert r.usage.input_tokens > 0
    assert "tok-secret" not in repr(provider)


def test_loopback_errors() -> None:
    with FakeOpenAIServer([FakeFault(429, retry_after="4"), FakeFault(422)]) as srv:
        provider = resolve_provider(srv.url + "/agent")
        assert isinstance(provider, HttpProvider)
        with pytest.raises(ProviderError) as first:
            _call(provider)
        with pytest.raises(ProviderError) as second:
            _call(provider)
    assert (first.value.status, first.value.retry_after, first.value.transient) == (429, 4.0, True)
    assert (second.value.status, second.value.transient) == (422, False)


def test_bad_url_and_options() -> None:
    with pytest.raises(UserError):
        resolve_provider("http://")
    with pytest.raises(UserError, match="unknown option"):
        resolve_provider("http://127.0.0.1:9/agent", colour="red")


def test_an_error_in_a_200_reply_is_a_provider_error_not_an_empty_answer() -> None:
    body = '{"error": {"message": "quota exceeded"}}'
    with FakeOpenAIServer([FakeRaw(200, body, "application/json")]) as srv:
        provider = resolve_provider(srv.url + "/agent")
        with pytest.raises(ProviderError) as info:
            _call(provider)
    assert "the agent replied with an error" in str(info.value)
    assert "quota exceeded" in str(info.value)
    assert info.value.transient is False
    # an error beside a real answer is not the reply's meaning: the unknown key is refused
    with pytest.raises(ProviderError, match=r"unknown field\(s\) \['error'\]"):
        response_from_body({"text": "hi", "error": "x"})
