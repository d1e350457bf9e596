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
from ._common import SdkProvider, sdk_error, split_options
from ._gemini_convert import GeminiStream, gemini_request, gemini_response

__all__ = ["GeminiProvider", "create"]


def _as_dict(obj: Any) -> dict[str, Any]:
    if isinstance(obj, dict):
        return obj
    dumped = obj.model_dump(mode="json", exclude_none=True)
    assert isinstance(dumped, dict)
    return dumped


class GeminiProvider(SdkProvider):
    """Gemini models via ``google.genai.Client(...).aio``."""

    prefix = "gemini"
    sdk = ("google.genai", "google-genai", "gemini")

    def _get_client(self) -> Any:
        if self._client is None:
            http_options: dict[str, Any] = {}
            if self.base_url:
                http_options["base_url"] = self.base_url
            if self._timeout_s is not None:
                http_options["timeout"] = int(self._timeout_s * 1000)  # milliseconds
            self._client = self._sdk.Client(api_key=self._api_key, http_options=http_options)
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            aclose = getattr(self._client.aio, "aclose", None)
            if aclose is not None:
                await aclose()
            self._client = None

    async def generate(self, request: ModelRequest) -> ModelResponse:
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
                async for chunk in stream:
                    if acc.feed(_as_dict(chunk)) and ttft is None:
                        ttft = (time.perf_counter() - start) * 1000
                return acc.result(ttft)
            response = await models.generate_content(
                model=self.model, contents=contents, config=config
            )
        except ProviderError:
            raise
        except Exception as exc:
            raise sdk_error(self.name, exc, (self._api_key,)) from None
        return gemini_response(_as_dict(response))


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
