"""A reply without token counts says so (``ModelResponse.usage_reported``), through the response
cache too, so a run records unknown usage instead of 0 tokens (issue 22 item 2)."""

from __future__ import annotations

from agentgauge.providers import ModelResponse
from agentgauge.providers._cache import decode_response, encode_response
from agentgauge.providers._http import response_from_body
from agentgauge.providers._python import to_response
from agentgauge.schema import Message, ToolCall, Usage


def test_a_reply_without_usage_is_unreported_and_one_with_usage_is_reported() -> None:
    assert response_from_body({"text": "hi"}).usage_reported is False
    reported = response_from_body({"text": "hi", "usage": {"input_tokens": 3}})
    assert reported.usage_reported is True
    assert reported.usage.input_tokens == 3
    # a python: agent's bare text or calls carry no usage; its ModelResponse does
    assert to_response("hi").usage_reported is False
    assert to_response([ToolCall(name="t", arguments={})]).usage_reported is False
    assert to_response({"text": "x", "usage": {"output_tokens": 2}}).usage_reported is True
    own = ModelResponse(message=Message(role="assistant", content="x"), usage=Usage())
    assert to_response(own).usage_reported is True


def test_the_cache_keeps_unknown_usage_unknown() -> None:
    unknown = to_response("hi")
    assert decode_response(encode_response(unknown)).usage_reported is False
    known = response_from_body({"text": "hi", "usage": {"input_tokens": 0, "output_tokens": 0}})
    back = decode_response(encode_response(known))
    assert back.usage_reported is True
    assert back.usage == Usage()
