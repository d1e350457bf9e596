"""Replies of the right framing but the wrong shape: a field of the wrong type, usage that is
not a count, a message that is a string. Each is one non-transient ProviderError line on the
case, never a ValueError, AttributeError or a multi-line pydantic error (as before)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from provider_error_helpers import provider_error

from agentgauge.errors import ProviderError
from agentgauge.providers import ModelRequest, resolve_provider
from agentgauge.providers._common import token_count
from agentgauge.schema import Message
from agentgauge.testing import FakeOpenAIServer, FakeRaw, FakeRequest

KEY = "sk-malformed-0123456789abcdef"


def _chat(message: Any = None, usage: Any = None) -> str:
    body: dict[str, Any] = {
        "id": "x",
        "choices": [
            {
                "index": 0,
                "message": message
                if message is not None
                else {"role": "assistant", "content": "hi"},
                "finish_reason": "stop",
            }
        ],
    }
    if usage is not None:
        body["usage"] = usage
    return json.dumps(body)


CHAT = {
    "usage-word": (_chat(usage={"prompt_tokens": "many"}), "a token count must be an integer"),
    "usage-negative": (_chat(usage={"completion_tokens": -3}), "not '-3'"),
    "usage-huge": (_chat(usage={"prompt_tokens": 10**30}), "from 0 to 10**12"),
    "content-object": (
        _chat({"role": "assistant", "content": {"a": 1}}),
        "ValidationError: content: Input should be a valid string",
    ),
    "calls-string": (_chat({"role": "assistant", "tool_calls": "nope"}), "AttributeError"),
    "calls-numbers": (_chat({"role": "assistant", "tool_calls": [7]}), "AttributeError"),
    "message-string": (_chat("hello"), "AttributeError"),
}
AGENT = {
    "usage-word": ('{"text": "x", "usage": {"input_tokens": "many"}}', "a token count"),
    "usage-negative": ('{"text": "x", "usage": {"output_tokens": -5}}', "not '-5'"),
    "usage-bool": ('{"text": "x", "usage": {"output_tokens": true}}', "not True"),
}


def _reply(bodies: dict[str, tuple[str, str]]) -> Any:
    def reply(request: FakeRequest) -> FakeRaw:
        mode = request.body["messages"][0]["content"]
        return FakeRaw(200, bodies[mode][0], "application/json")

    return reply


def _error(spec: str, mode: str) -> ProviderError:
    provider = resolve_provider(spec)
    request = ModelRequest(messages=[Message(role="user", content=mode)])
    return provider_error(provider, request, mode)


@pytest.mark.parametrize("mode", sorted(CHAT))
def test_a_chat_reply_of_the_wrong_shape_is_one_line(mode: str) -> None:
    with FakeOpenAIServer(_reply(CHAT)) as srv:
        err = _error(f"openai:m?base_url={srv.base_url}&api_key={KEY}", mode)
    text = str(err)
    assert text.startswith("openai:m: the reply could not be read ("), text
    assert CHAT[mode][1] in text, text
    assert "\n" not in text
    assert err.transient is False


@pytest.mark.parametrize("mode", sorted(AGENT))
def test_an_http_agent_reply_of_the_wrong_shape_is_one_line(mode: str) -> None:
    with FakeOpenAIServer(_reply(AGENT)) as srv:
        err = _error(srv.url + "/agent", mode)
    text = str(err)
    assert "the reply could not be read (ValueError: " in text, text
    assert AGENT[mode][1] in text, text
    assert err.transient is False


@pytest.mark.parametrize(
    ("value", "count"), [(None, 0), ("", 0), (0, 0), (12, 12), (12.0, 12), (" 7 ", 7)]
)
def test_token_counts_that_are_counts(value: Any, count: int) -> None:
    assert token_count(value) == count


@pytest.mark.parametrize("value", [-1, 1.5, "many", True, [1], 10**13, "-3"])
def test_token_counts_that_are_not(value: Any) -> None:
    with pytest.raises(ValueError, match="a token count must be an integer"):
        token_count(value)
