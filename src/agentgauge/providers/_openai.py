"""OpenAI and every OpenAI-compatible server (vLLM, Ollama, llama.cpp server, LM Studio, Azure).

Specs::

    openai:MODEL                         chat completions at OPENAI_BASE_URL or api.openai.com
    openai:MODEL?api=responses           the Responses API
    openai:MODEL?base_url=http://localhost:11434/v1
    openai:MODEL?transport=sdk           send through the official SDK's own HTTP stack
    azure:DEPLOYMENT                     Azure OpenAI (AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY)

Options (spec query or keyword arguments): ``api`` (``chat`` | ``responses``), ``base_url``,
``api_key``, ``transport`` (``direct`` | ``sdk``), ``timeout_s``, and for Azure ``endpoint``,
``api_version``.

The default ``direct`` transport posts the same JSON bodies the SDK would send over a lean
keep-alive client (see ``_wire`` and ``_h1``): the SDK's per-request overhead is about ten times
larger and would cap a run at a few hundred requests per second. ``transport=sdk`` uses
``openai.AsyncOpenAI`` / ``AsyncAzureOpenAI`` (SDK retries disabled: the runner retries) when
you need an SDK feature such as an Azure AD token provider.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any, Literal

import orjson

from .._secrets import public_url, register_url
from ..errors import ProviderError, UserError
from ._base import ModelRequest, ModelResponse
from ._common import (
    MALFORMED,
    as_bool,
    error_from_status,
    first_bytes,
    malformed_reply,
    redact,
    require,
    split_options,
)
from ._openai_convert import (
    ChatStream,
    chat_payload,
    chat_response,
    responses_payload,
    responses_response,
    responses_stream_final,
)
from ._wire import WireClient

__all__ = ["OpenAIProvider", "create", "create_azure"]

OPENAI_URL = "https://api.openai.com/v1"
#: the HTTP stacks under the SDK, whose own errors may reach us unwrapped
_HTTP_LIBS = frozenset({"aiohttp", "httpx", "httpx2", "httpcore", "h11"})
AZURE_API_VERSION = "2024-10-21"

_RESPONSES_TOKEN_EVENTS = frozenset(
    {
        "response.output_text.delta",
        "response.function_call_arguments.delta",
        "response.refusal.delta",
    }
)


class OpenAIProvider:
    """An OpenAI-compatible model behind chat completions or the Responses API."""

    def __init__(
        self,
        model: str,
        *,
        api: Literal["chat", "responses"] = "chat",
        base_url: str | None = None,
        api_key: str | None = None,
        transport: Literal["direct", "sdk"] = "direct",
        timeout_s: float | None = 600.0,
        azure_endpoint: str | None = None,
        api_version: str | None = None,
        name: str | None = None,
    ) -> None:
        if api not in ("chat", "responses"):
            raise UserError(f"openai:{model}: api must be 'chat' or 'responses', not '{api}'")
        if transport not in ("direct", "sdk"):
            raise UserError(f"openai:{model}: transport must be 'direct' or 'sdk'")
        self.model = model
        self.api = api
        self.azure = azure_endpoint is not None
        prefix = "azure" if self.azure else "openai"
        self.name = name or (f"{prefix}:{model}" + ("?api=responses" if api == "responses" else ""))
        self._transport = transport
        self._timeout_s = timeout_s
        self._api_version = api_version
        self._azure_endpoint = azure_endpoint.rstrip("/") if azure_endpoint else None
        self._api_key = api_key
        #: the endpoint (part of the runner's cache key): the server root, or the Azure endpoint
        self.base_url = (base_url or azure_endpoint or "").rstrip("/")
        register_url(self.base_url)  # a password or key in the URL is scrubbed like the key
        headers: dict[str, str] = {}
        if self.azure:
            assert self._azure_endpoint is not None
            if api_key:
                headers["api-key"] = api_key
            if api == "responses":
                self._url = f"{self._azure_endpoint}/openai/v1/responses"
            else:
                self._url = (
                    f"{self._azure_endpoint}/openai/deployments/{model}/chat/completions"
                    f"?api-version={api_version or AZURE_API_VERSION}"
                )
        else:
            if api_key:
                headers["Authorization"] = f"Bearer {api_key}"
            path = "/responses" if api == "responses" else "/chat/completions"
            self._url = self.base_url + path
        self._wire = WireClient(
            self.name, headers, timeout_s=timeout_s, secrets=(api_key,) if api_key else ()
        )
        self._sdk: Any = None

    @property
    def mcp_connector(self) -> bool:
        """Whether a suite's ``mcp_servers`` can be given to the API (the Responses API's
        ``mcp`` tool; chat completions has none)."""
        return self.api == "responses"

    def __repr__(self) -> str:
        where = public_url(self._azure_endpoint or self.base_url)
        return f"OpenAIProvider(name={self.name!r}, url={where!r}, transport={self._transport!r})"

    async def aclose(self) -> None:
        await self._wire.aclose()
        if self._sdk is not None:
            await self._sdk.close()
            self._sdk = None

    # ------------------------------------------------------------------ generate

    async def generate(self, request: ModelRequest) -> ModelResponse:
        try:
            return await self._generate_once(request)
        except MALFORMED as exc:  # a reply of the wrong shape: one line on the case
            raise malformed_reply(self.name, exc) from None

    async def _generate_once(self, request: ModelRequest) -> ModelResponse:
        if self.api == "responses":
            payload = responses_payload(request, self.model)
        else:
            payload = chat_payload(request, self.model)
        if self._transport == "sdk":
            return await self._generate_sdk(payload, request.config.stream)
        if not request.config.stream:
            body = await self._wire.post_json(self._url, payload)
            return self._parse(body)
        return await self._consume(self._wire.stream_events(self._url, payload))

    def _secrets(self) -> tuple[str, ...]:
        return (self._api_key,) if self._api_key else ()

    def _fail(self, what: str, detail: Any, *, transient: bool = False) -> ProviderError:
        """A ProviderError whose server-supplied ``detail`` is shortened and redacted."""
        if isinstance(detail, bytes):
            detail = detail.decode(errors="replace")
        elif not isinstance(detail, str):
            detail = orjson.dumps(detail, default=str).decode()
        return ProviderError(
            f"{self.name}: {what}: {first_bytes(detail, self._secrets())}", transient=transient
        )

    def _parse(self, body: Any) -> ModelResponse:
        """A decoded reply as a response; anything the protocol does not allow is an error."""
        if not isinstance(body, dict):
            raise self._fail("unexpected reply (not a JSON object)", body)
        err = body.get("error")
        if self.api == "responses":
            if body.get("status") == "failed" or (err and not body.get("output")):
                message = err.get("message", err) if isinstance(err, dict) else err
                raise self._fail("response failed", message or body, transient=True)
            if not isinstance(body.get("output"), list):
                raise self._fail("unexpected reply (no 'output' list)", body)
            return responses_response(body)
        if not body.get("choices") and err:
            message = err.get("message", err) if isinstance(err, dict) else err
            raise self._fail("the server replied with an error", message)
        choices = body.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise self._fail("unexpected reply (no 'choices')", body)
        return chat_response(body)

    async def _consume(
        self, events: AsyncIterator[Any], start: float | None = None
    ) -> ModelResponse:
        """Read a stream of decoded events; record the time to the first content token."""
        start = time.perf_counter() if start is None else start
        ttft: float | None = None
        if self.api == "responses":
            final: dict[str, Any] | None = None
            async for event in events:
                if not isinstance(event, dict):
                    raise self._fail("unexpected stream event", event)
                if event.get("type") in ("error", "response.failed"):
                    # an ``error`` event carries message/code at its top level
                    err = event.get("error") or (event.get("response") or {}).get("error")
                    err = err or {k: v for k, v in event.items() if k in ("code", "message")}
                    message = err.get("message", err) if isinstance(err, dict) else err
                    raise self._fail("stream error", message or event, transient=True)
                if ttft is None and event.get("type") in _RESPONSES_TOKEN_EVENTS:
                    ttft = (time.perf_counter() - start) * 1000
                final = responses_stream_final(event) or final
            if final is None:
                raise ProviderError(f"{self.name}: the stream ended without a final response")
            out = self._parse(final)
            return replace(out, ttft_ms=ttft)
        acc = ChatStream()
        chunks = 0
        async for chunk in events:
            if not isinstance(chunk, dict):
                raise self._fail("unexpected stream event", chunk)
            if chunk.get("error") and not chunk.get("choices"):
                err = chunk["error"]
                message = err.get("message", err) if isinstance(err, dict) else err
                raise self._fail("stream error", message, transient=True)
            if not isinstance(chunk.get("choices"), list):
                raise self._fail("unexpected stream event (no 'choices')", chunk)
            chunks += 1
            if acc.feed(chunk) and ttft is None:
                ttft = (time.perf_counter() - start) * 1000
        if not chunks:
            raise ProviderError(
                f"{self.name}: the stream held no chat completion chunks", transient=False
            )
        return acc.result(ttft_ms=ttft)

    # ------------------------------------------------------------------ SDK transport

    def _client(self) -> Any:
        if self._sdk is None:
            from ._bodycap import cap_httpx_client

            openai = require("openai", "openai", "openai")
            try:
                import httpx2

                limits = httpx2.Limits(max_connections=None, max_keepalive_connections=1024)
                http_client = openai.DefaultAioHttpClient(limits=limits)
            except (ImportError, RuntimeError, AttributeError):
                http_client = openai.DefaultAsyncHttpxClient()
            cap_httpx_client(http_client)  # every reply read under the body cap
            common: dict[str, Any] = {
                "api_key": self._api_key or "none",
                "max_retries": 0,
                "timeout": self._timeout_s,
                "http_client": http_client,
            }
            if self.azure:
                self._sdk = openai.AsyncAzureOpenAI(
                    azure_endpoint=self._azure_endpoint,
                    api_version=self._api_version or AZURE_API_VERSION,
                    **common,
                )
            else:
                self._sdk = openai.AsyncOpenAI(base_url=self.base_url, **common)
        return self._sdk

    async def _generate_sdk(self, payload: dict[str, Any], stream: bool) -> ModelResponse:
        client = self._client()
        endpoint = client.responses if self.api == "responses" else client.chat.completions
        try:
            if stream:
                start = time.perf_counter()
                events = await endpoint.create(**payload)
                response = getattr(events, "response", None)
                headers = getattr(response, "headers", None) or {}
                kind = str(headers.get("content-type", "")).split(";")[0].strip().lower()
                if response is not None and kind and kind != "text/event-stream":
                    # the SDK would read no events from it: show what came instead
                    body = await response.aread()
                    raise self._fail(f"expected server-sent events, got {kind}", body)
                return await self._consume(_dump_events(events), start)
            raw = await endpoint.with_raw_response.create(**payload)
            content = raw.http_response.content
            try:
                body = orjson.loads(content)
            except orjson.JSONDecodeError:
                raise self._fail("the server replied with invalid JSON", content) from None
            return self._parse(body)
        except ProviderError:
            raise
        except Exception as exc:
            raise self._map_sdk_error(exc) from None

    def _map_sdk_error(self, exc: Exception) -> Exception:
        from ._bodycap import too_large_in

        openai = require("openai", "openai", "openai")
        secrets = (self._api_key,)
        too_large = too_large_in(exc)
        if too_large is not None:
            return too_large.as_provider_error(self.name)
        if isinstance(exc, openai.APIStatusError):
            response = exc.response
            return error_from_status(
                self.name, exc.status_code, response.content, response.headers, secrets=secrets
            )
        if isinstance(exc, openai.APIConnectionError | openai.APITimeoutError):
            detail = redact(str(exc), secrets)
            return ProviderError(f"{self.name}: connection failed: {detail}", transient=True)
        if isinstance(exc, openai.OpenAIError):
            return ProviderError(f"{self.name}: {redact(str(exc), secrets)}", transient=False)
        if isinstance(exc, OSError) or type(exc).__module__.split(".")[0] in _HTTP_LIBS:
            # the SDK's HTTP stack let a transport error through (a reply that is not HTTP)
            detail = " ".join(redact(f"{type(exc).__name__}: {exc}", secrets).split())[:300]
            return ProviderError(f"{self.name}: connection failed: {detail}", transient=True)
        return exc


async def _dump_events(events: Any) -> AsyncIterator[Any]:
    async for event in events:
        yield event.model_dump(mode="json", exclude_none=False)


# ---------------------------------------------------------------------- factories

_OPTION_NAMES = {"api", "responses", "base_url", "api_key", "transport", "timeout_s", "name"}


def _check_options(spec: str, options: dict[str, Any], allowed: set[str]) -> None:
    unknown = set(options) - allowed
    if unknown:
        raise UserError(f"{spec}: unknown option(s) {sorted(unknown)} (known: {sorted(allowed)})")


def _timeout(options: dict[str, Any]) -> float | None:
    value = options.pop("timeout_s", 600.0)
    return None if value in (None, "", "none") else float(value)


def create(rest: str, **options: Any) -> OpenAIProvider:
    """``openai:MODEL[?api=responses&base_url=...&transport=sdk]``."""
    model, opts = split_options(rest, options)
    _check_options(f"openai:{model}", opts, _OPTION_NAMES)
    if as_bool(opts.pop("responses", False)):
        opts["api"] = "responses"
    base_url = opts.pop("base_url", None) or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
    api_key = opts.pop("api_key", None) or os.environ.get("OPENAI_API_KEY")
    if not api_key and base_url.rstrip("/") == OPENAI_URL:
        raise UserError(
            f"openai:{model}: set OPENAI_API_KEY (or pass --base-url for a local "
            "OpenAI-compatible server such as vLLM or Ollama)"
        )
    return OpenAIProvider(
        model,
        api=opts.pop("api", "chat"),
        base_url=base_url,
        api_key=api_key,
        transport=opts.pop("transport", "direct"),
        timeout_s=_timeout(opts),
        name=opts.pop("name", None),
    )


def create_azure(rest: str, **options: Any) -> OpenAIProvider:
    """``azure:DEPLOYMENT[?endpoint=https://NAME.openai.azure.com&api_version=...]``."""
    deployment, opts = split_options(rest, options)
    _check_options(f"azure:{deployment}", opts, _OPTION_NAMES | {"endpoint", "api_version"})
    endpoint = (
        opts.pop("endpoint", None)
        or opts.pop("base_url", None)
        or os.environ.get("AZURE_OPENAI_ENDPOINT")
    )
    if not endpoint:
        raise UserError(f"azure:{deployment}: set AZURE_OPENAI_ENDPOINT (or ?endpoint=...)")
    api_key = opts.pop("api_key", None) or os.environ.get("AZURE_OPENAI_API_KEY")
    if not api_key:
        raise UserError(f"azure:{deployment}: set AZURE_OPENAI_API_KEY")
    return OpenAIProvider(
        deployment,
        api=opts.pop("api", "chat"),
        api_key=api_key,
        transport=opts.pop("transport", "direct"),
        timeout_s=_timeout(opts),
        azure_endpoint=endpoint,
        api_version=opts.pop("api_version", None) or os.environ.get("OPENAI_API_VERSION"),
        name=opts.pop("name", None),
    )
