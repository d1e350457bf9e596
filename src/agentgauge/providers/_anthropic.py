"""Anthropic's Messages API through the official SDK (``anthropic:MODEL``).

Key from ``ANTHROPIC_API_KEY`` (or the ``api_key`` option); ``base_url`` for a proxy or gateway.
SDK retries are disabled: the runner retries transient errors itself.
"""

from __future__ import annotations

import inspect
import os
import time
from typing import Any

import orjson

from ..errors import ProviderError, UserError
from ._anthropic_convert import (
    AnthropicStream,
    anthropic_payload,
    anthropic_response,
    structured_reply,
)
from ._base import ModelRequest, ModelResponse
from ._common import (
    MALFORMED,
    SdkProvider,
    first_bytes,
    malformed_reply,
    sdk_error,
    split_options,
)
from ._connector import MCP_BETA, MCP_BETAS

__all__ = ["AnthropicProvider", "create"]


class AnthropicProvider(SdkProvider):
    """Claude models via ``anthropic.AsyncAnthropic``."""

    prefix = "anthropic"
    sdk = ("anthropic", "anthropic", "anthropic")
    #: a suite's ``mcp_servers`` go to Anthropic's MCP connector (the beta Messages API)
    mcp_connector = True

    def __init__(self, model: str, *, mcp_beta: str = MCP_BETA, **kw: Any) -> None:
        super().__init__(model, **kw)
        #: the MCP connector's beta (``?mcp_beta=``): its request shape differs, so a beta other
        #: than the default is part of the cache key (the default's keys stay as they were)
        self.mcp_beta = mcp_beta
        self.cache_tag = "" if mcp_beta == MCP_BETA else mcp_beta

    def _get_client(self) -> Any:
        if self._client is None:
            from ._bodycap import cap_httpx_client

            self._client = self._sdk.AsyncAnthropic(
                api_key=self._api_key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self._timeout_s,
                # the SDK's own client with its defaults, given the body cap
                http_client=cap_httpx_client(self._sdk.DefaultAsyncHttpxClient()),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def generate(self, request: ModelRequest) -> ModelResponse:
        try:
            return await self._generate_once(request)
        except MALFORMED as exc:  # a reply of the wrong shape: one line on the case
            raise malformed_reply(self.name, exc) from None

    async def _generate_once(self, request: ModelRequest) -> ModelResponse:
        response = await self._generate(request)
        if request.config.response_schema is not None:
            return structured_reply(response)
        return response

    async def _generate(self, request: ModelRequest) -> ModelResponse:
        payload = anthropic_payload(request, self.model, self.mcp_beta)
        client = self._get_client()
        try:
            # the MCP connector's fields and blocks exist only in the beta Messages API
            messages = client.beta.messages if "betas" in payload else client.messages
            payload = _split_extra(messages.create, payload)
            if request.config.stream:
                return await self._stream(messages, payload)
            raw = await messages.with_raw_response.create(**payload)
            content = raw.http_response.content
            try:
                body = orjson.loads(content)
            except orjson.JSONDecodeError:
                raise self._fail("the server replied with invalid JSON", content) from None
        except ProviderError:
            raise
        except Exception as exc:
            raise sdk_error(self.name, exc, (self._api_key,)) from None
        if not isinstance(body, dict) or not isinstance(body.get("content"), list):
            # e.g. a 200 whose body is an {"error": ...} object: an error, never an empty answer
            raise self._fail("unexpected reply (no 'content' list)", content)
        return anthropic_response(body)

    def _fail(self, what: str, data: bytes | str) -> ProviderError:
        return ProviderError(
            f"{self.name}: {what}: {first_bytes(data, (self._api_key,))}", transient=False
        )

    async def _stream(self, messages: Any, payload: dict[str, Any]) -> ModelResponse:
        start = time.perf_counter()
        ttft: float | None = None
        acc = AnthropicStream()
        started = False
        events = await messages.create(stream=True, **payload)
        async for event in events:  # an SDK error here reaches _generate's sdk_error
            data = event.model_dump(mode="json") if hasattr(event, "model_dump") else event
            kind = data.get("type") if isinstance(data, dict) else None
            if kind == "error":
                err = data.get("error") or {}
                message = err.get("message", err) if isinstance(err, dict) else err
                raise ProviderError(
                    f"{self.name}: stream error: {first_bytes(str(message), (self._api_key,))}"
                )
            started = started or kind == "message_start"
            if acc.feed(data) and ttft is None:
                ttft = (time.perf_counter() - start) * 1000
        if not started:
            # a 200 that was not an event stream (an HTML page, a JSON object) yields no events
            raise ProviderError(
                f"{self.name}: the reply held no message stream events", transient=False
            )
        return acc.result(ttft)


_PARAMS: dict[Any, frozenset[str]] = {}


def _split_extra(method: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """Keyword arguments for an SDK method: body fields its signature lacks (SDK versions
    differ: e.g. ``temperature``) travel in ``extra_body``."""
    func = getattr(method, "__func__", method)
    known = _PARAMS.get(func)
    if known is None:
        known = _PARAMS[func] = frozenset(inspect.signature(method).parameters)
    extra = {k: v for k, v in payload.items() if k not in known}
    if not extra:
        return payload
    kwargs = {k: v for k, v in payload.items() if k in known}
    kwargs["extra_body"] = extra
    return kwargs


def _mcp_beta(model: str, value: Any) -> str:
    """The connector beta ``?mcp_beta=`` names (its date, or the whole beta name)."""
    text = str(value).strip()
    beta = text if text.startswith("mcp-client-") else f"mcp-client-{text}"
    if beta not in MCP_BETAS:
        dates = ", ".join(b.removeprefix("mcp-client-") for b in MCP_BETAS)
        raise UserError(f"anthropic:{model}: mcp_beta must be one of {dates}, not {text!r}")
    return beta


def create(rest: str, **options: Any) -> AnthropicProvider:
    """``anthropic:MODEL[?base_url=...&mcp_beta=2025-11-20]``."""
    model, opts = split_options(rest, options)
    api_key = opts.pop("api_key", None) or os.environ.get("ANTHROPIC_API_KEY")
    base_url = opts.pop("base_url", None) or os.environ.get("ANTHROPIC_BASE_URL")
    timeout = opts.pop("timeout_s", 600.0)
    mcp_beta = _mcp_beta(model, opts.pop("mcp_beta", MCP_BETA))
    if opts:
        raise UserError(f"anthropic:{model}: unknown option(s) {sorted(opts)}")
    if not api_key:
        raise UserError(f"anthropic:{model}: set ANTHROPIC_API_KEY")
    return AnthropicProvider(
        model,
        api_key=api_key,
        base_url=base_url,
        timeout_s=None if timeout is None else float(timeout),
        mcp_beta=mcp_beta,
    )
