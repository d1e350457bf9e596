"""Google Gemini through the ``google-genai`` SDK (``gemini:MODEL``).

Key from ``GEMINI_API_KEY`` or ``GOOGLE_API_KEY`` (or the ``api_key`` option); ``base_url`` for
a proxy. The SDK's automatic function calling is disabled: agentgauge simulates the tools.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ..errors import ProviderError, UserError
from ._base import ModelRequest, ModelResponse
from ._common import (
    MALFORMED,
    SdkProvider,
    first_bytes,
    malformed_reply,
    sdk_error,
    split_options,
)
from ._gemini_convert import GeminiStream, gemini_request, gemini_response

__all__ = ["GeminiProvider", "create"]


def _as_dict(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return obj
    dumped = obj.model_dump(mode="json", exclude_none=True)
    assert isinstance(dumped, dict)
    return dumped


def _capped_httpx() -> Any:
    from ._bodycap import cap_httpx_client

    try:
        import httpx2 as httpx
    except ImportError:  # pragma: no cover - older google-genai installs: httpx
        import httpx  # type: ignore[no-redef]
    return cap_httpx_client(httpx.AsyncClient())


class GeminiProvider(SdkProvider):
    """Gemini models via ``google.genai.Client(...).aio``."""

    prefix = "gemini"
    sdk = ("google.genai", "google-genai", "gemini")
    _httpx: Any = None

    def _get_client(self) -> Any:
        if self._client is None:
            http_options: dict[str, Any] = {}
            if self.base_url:
                http_options["base_url"] = self.base_url
            if self._timeout_s is not None:
                http_options["timeout"] = int(self._timeout_s * 1000)  # milliseconds
            # an httpx client of our own, given the body cap (the SDK would use aiohttp)
            http_options["httpx_async_client"] = self._httpx = _capped_httpx()
            self._client = self._sdk.Client(api_key=self._api_key, http_options=http_options)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            aclose = getattr(self._client.aio, "aclose", None)
            if aclose is not None:
                await aclose()
            self._client = None
        httpx_client, self._httpx = self._httpx, None
        if httpx_client is not None:
            await httpx_client.aclose()

    async def generate(self, request: ModelRequest) -> ModelResponse:
        try:
            return await self._generate_once(request)
        except MALFORMED as exc:  # a reply of the wrong shape: one line on the case
            raise malformed_reply(self.name, exc) from None

    async def _generate_once(self, request: ModelRequest) -> ModelResponse:
        contents, config = gemini_request(request)
        models = self._get_client().aio.models
        try:
            if request.config.stream:
                start = time.perf_counter()
                ttft: float | None = None
                acc = GeminiStream()
                stream = await models.generate_content_stream(
                    model=self.model, contents=contents, config=config
                )
                useful: dict[str, Any] = {}
                async for chunk in stream:
                    data = _as_dict(chunk)
                    if data.get("candidates") or data.get("prompt_feedback"):
                        useful = data
                    if acc.feed(data) and ttft is None:
                        ttft = (time.perf_counter() - start) * 1000
                self._check(useful)
                return acc.result(ttft)
            response = await models.generate_content(
                model=self.model, contents=contents, config=config
            )
        except ProviderError:
            raise
        except Exception as exc:
            raise sdk_error(self.name, exc, (self._api_key,)) from None
        body = _as_dict(response)
        self._check(body)
        return gemini_response(body)

    def _check(self, body: dict[str, Any]) -> None:
        """A reply with neither candidates nor prompt feedback (e.g. a 200 carrying an error
        object, which the SDK reads as an empty response) is an error, never an empty answer."""
        if body.get("candidates") or body.get("prompt_feedback"):
            return
        fields = {k: v for k, v in body.items() if k != "sdk_http_response"}
        detail = first_bytes(str(fields), (self._api_key,)) if fields else "an empty reply"
        raise ProviderError(
            f"{self.name}: unexpected reply (no candidates): {detail}", transient=False
        )


def create(rest: str, **options: Any) -> GeminiProvider:
    """``gemini:MODEL[?base_url=...]``."""
    model, opts = split_options(rest, options)
    api_key = (
        opts.pop("api_key", None)
        or os.environ.get("GEMINI_API_KEY")
        or os.environ.get("GOOGLE_API_KEY")
    )
    base_url = opts.pop("base_url", None)
    timeout = opts.pop("timeout_s", 600.0)
    if opts:
        raise UserError(f"gemini:{model}: unknown option(s) {sorted(opts)}")
    if not api_key:
        raise UserError(f"gemini:{model}: set GEMINI_API_KEY (or GOOGLE_API_KEY)")
    return GeminiProvider(
        model,
        api_key=api_key,
        base_url=base_url,
        timeout_s=None if timeout is None else float(timeout),
    )
