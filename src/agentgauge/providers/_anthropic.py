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
from ._anthropic_convert import AnthropicStream, anthropic_payload, anthropic_response
from ._base import ModelRequest, ModelResponse
from ._common import SdkProvider, sdk_error, split_options

__all__ = ["AnthropicProvider", "create"]


class AnthropicProvider(SdkProvider):
    """Claude models via ``anthropic.AsyncAnthropic``."""

    prefix = "anthropic"
    sdk = ("anthropic", "anthropic", "anthropic")

    def _get_client(self) -> Any:
        if self._client is None:
            self._client = self._sdk.AsyncAnthropic(
                api_key=self._api_key,
                base_url=self.base_url,
                max_retries=0,
                timeout=self._timeout_s,
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    async def generate(self, request: ModelRequest) -> ModelResponse:
        payload = anthropic_payload(request, self.model)
        client = self._get_client()
        try:
            payload = _split_extra(client.messages.create, payload)
            if request.config.stream:
                return await self._stream(client, payload)
            raw = await client.messages.with_raw_response.create(**payload)
            body = orjson.loads(raw.http_response.content)
        except ProviderError:
            raise
        except Exception as exc:
            raise sdk_error(self.name, exc, (self._api_key,)) from None
        return anthropic_response(body)

    async def _stream(self, client: Any, payload: dict[str, Any]) -> ModelResponse:
        start = time.perf_counter()
        ttft: float | None = None
        acc = AnthropicStream()
        events = await client.messages.create(stream=True, **payload)
        async for event in events:
            data = event.model_dump(mode="json") if hasattr(event, "model_dump") else event
            if acc.feed(data) and ttft is None:
                ttft = (time.perf_counter() - start) * 1000
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


def create(rest: str, **options: Any) -> AnthropicProvider:
    """``anthropic:MODEL[?base_url=...]``."""
    model, opts = split_options(rest, options)
    api_key = opts.pop("api_key", None) or os.environ.get("ANTHROPIC_API_KEY")
    base_url = opts.pop("base_url", None) or os.environ.get("ANTHROPIC_BASE_URL")
    timeout = opts.pop("timeout_s", 600.0)
    if opts:
        raise UserError(f"anthropic:{model}: unknown option(s) {sorted(opts)}")
    if not api_key:
        raise UserError(f"anthropic:{model}: set ANTHROPIC_API_KEY")
    return AnthropicProvider(
        model,
        api_key=api_key,
        base_url=base_url,
        timeout_s=None if timeout is None else float(timeout),
    )
