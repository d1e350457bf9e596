"""A lean JSON-over-HTTP client shared by the OpenAI-compatible and HTTP adapters.

Measured on a 2-core machine at concurrency 64: the openai SDK costs 1.0-2.5 CPU-ms per request
(request-option models, parameter transforms, httpx), aiohttp about 0.2 ms, the raw keep-alive
client of ``_h1`` about 0.1 ms. Plain POSTs go through ``_h1``; streamed replies, and every
request when an HTTP(S)_PROXY is configured, go through one ``aiohttp.ClientSession`` per event
loop. Pools are unbounded (the runner bounds concurrency); JSON is encoded and decoded with
orjson. Both paths read at most the body cap (``_bodycap``): a larger reply is a non-transient
ProviderError.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import orjson

from .._secrets import CREDENTIAL_HEADER, register, register_header
from ..errors import ProviderError
from ._bodycap import ResponseTooLarge, declared_length, max_response_bytes
from ._common import error_from_status, first_bytes, redact
from ._h1 import H1Pool

__all__ = ["WireClient"]

#: how much of an error reply is read (its message is shown shortened)
_ERROR_HEAD = 64 * 1024


class WireClient:
    """POST JSON, get JSON (or server-sent events) back; failures become ProviderErrors.

    ``headers`` may hold credentials: they are never shown in reprs or error messages.
    """

    def __init__(
        self,
        provider: str,
        headers: Mapping[str, str],
        *,
        timeout_s: float | None = 600.0,
        connect_timeout_s: float = 30.0,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.provider = provider
        self._headers = {"Content-Type": "application/json", **headers}
        self._timeout_s = timeout_s
        self._connect_timeout_s = connect_timeout_s
        self._max_body = max_response_bytes()
        self._secrets = secrets
        # scrubbed from everything agentgauge writes: keys and tokens, and the values of
        # credential headers (not, say, a Content-Type the caller added)
        header_names = {v: k for k, v in headers.items()}
        register(
            *(
                s
                for s in secrets
                if s not in header_names or CREDENTIAL_HEADER.search(header_names[s])
            )
        )
        for name, value in headers.items():
            if CREDENTIAL_HEADER.search(name):
                register_header(value)
        self._session: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._auth_headers = dict(headers)
        self._h1_pools: dict[str, H1Pool] = {}
        self._h1_heads: dict[str, tuple[H1Pool, bytes]] = {}
        # with a proxy configured, requests go through aiohttp, which honours it
        self._use_proxy = any(
            os.environ.get(v) for v in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy")
        )

    def __repr__(self) -> str:
        return f"WireClient({self.provider!r})"

    def _get_session(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop or self._session.closed:
            import aiohttp

            self._session = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(limit=0, ttl_dns_cache=300),
                headers=self._headers,
                timeout=aiohttp.ClientTimeout(
                    total=None, sock_connect=self._connect_timeout_s, sock_read=self._timeout_s
                ),
                skip_auto_headers=("User-Agent",),
                trust_env=self._use_proxy,
                auto_decompress=True,
                # a streamed `response.completed` event carries the whole response on one line
                read_bufsize=1 << 20,
            )
            self._loop = loop
        return self._session

    async def aclose(self) -> None:
        for pool in self._h1_pools.values():
            pool.close()
        self._h1_pools.clear()
        self._h1_heads.clear()
        if self._session is not None and not self._session.closed:
            await self._session.close()
        self._session = None

    def _connection_error(self, exc: BaseException) -> ProviderError:
        kind = "timed out" if isinstance(exc, TimeoutError) else "connection failed"
        detail = redact(str(exc) or type(exc).__name__, self._secrets)
        return ProviderError(f"{self.provider}: {kind}: {detail}", status=None, transient=True)

    def _h1(self, url: str) -> tuple[H1Pool, bytes] | None:
        """The raw keep-alive pool for ``url`` (None when a proxy is configured: aiohttp then)."""
        cached = self._h1_heads.get(url)
        if cached is not None:
            return cached
        if self._use_proxy:
            return None
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        pool = self._h1_pools.get(origin)
        if pool is None:
            pool = self._h1_pools[origin] = H1Pool(
                url, self._auth_headers, timeout_s=self._timeout_s, max_body=self._max_body
            )
        entry = (pool, pool.request_head(url))
        self._h1_heads[url] = entry
        return entry

    async def post_json(self, url: str, payload: Any) -> Any:
        """POST ``payload`` as JSON; return the decoded JSON body of a 2xx reply."""
        h1 = self._h1(url)
        if h1 is None:
            status, headers, data = await self._post_aiohttp(url, payload)
        else:
            pool, head = h1
            try:
                response = await pool.post(head, orjson.dumps(payload))
            except ResponseTooLarge as exc:
                raise exc.as_provider_error(self.provider) from None
            except (TimeoutError, OSError) as exc:
                raise self._connection_error(exc) from None
            status, headers, data = response.status, response.headers, response.body
        if status >= 300:
            raise error_from_status(self.provider, status, data, headers, secrets=self._secrets)
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            kind = headers.get("content-type") or headers.get("Content-Type") or "no content type"
            raise ProviderError(
                f"{self.provider}: the server replied with invalid JSON ({kind}): "
                + first_bytes(data, self._secrets),
                status=status,
                transient=False,
            ) from None

    async def _post_aiohttp(self, url: str, payload: Any) -> tuple[int, Any, bytes]:
        import aiohttp

        session = self._get_session()
        try:
            async with session.post(url, data=orjson.dumps(payload)) as resp:
                return resp.status, resp.headers, await self._read(resp)
        except ResponseTooLarge as exc:
            raise exc.as_provider_error(self.provider) from None
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise self._connection_error(exc) from None

    async def _read(self, resp: Any, cap: int | None = None) -> bytes:
        """An aiohttp reply's (decoded) body, refused past the cap (or ``cap`` bytes)."""
        limit = self._max_body if cap is None else cap
        declared = declared_length(resp.headers)
        if declared is not None and declared > limit and cap is None:
            raise ResponseTooLarge(limit, declared=declared)
        out = bytearray()
        async for chunk in resp.content.iter_chunked(1 << 16):
            out += chunk
            if len(out) > limit:
                if cap is not None:  # only the head is wanted (an error body)
                    return bytes(out[:limit])
                raise ResponseTooLarge(limit)
        return bytes(out)

    def _not_a_stream(self, status: int, what: str, data: bytes) -> ProviderError:
        return ProviderError(
            f"{self.provider}: expected server-sent events, got {what}: "
            + first_bytes(data, self._secrets),
            status=status,
            transient=False,
        )

    async def stream_events(self, url: str, payload: Any) -> AsyncIterator[Any]:
        """POST ``payload`` and yield each server-sent event's ``data`` decoded as JSON.

        A 2xx reply that is not an event stream (an HTML page, a JSON object: a proxy's login
        page, a server that ignored ``stream``), an event whose data is not JSON, and a stream
        with no event at all are ProviderErrors showing the first bytes, never an empty answer.
        """
        import aiohttp

        session = self._get_session()
        try:
            async with session.post(url, data=orjson.dumps(payload)) as resp:
                if resp.status >= 300:
                    raise error_from_status(
                        self.provider,
                        resp.status,
                        await self._read(resp, _ERROR_HEAD),
                        resp.headers,
                        secrets=self._secrets,
                    )
                declared = declared_length(resp.headers)
                if declared is not None and declared > self._max_body:
                    raise ResponseTooLarge(self._max_body, declared=declared)
                kind = resp.headers.get("Content-Type", "").split(";")[0].strip().lower()
                if kind and kind != "text/event-stream":
                    raise self._not_a_stream(resp.status, kind, await resp.content.read(4096))
                events = 0
                head = b""
                seen = 0
                async for line in resp.content:
                    seen += len(line)
                    if seen > self._max_body:
                        raise ResponseTooLarge(self._max_body)
                    if len(head) < 200:
                        head += line
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        break
                    if data:
                        try:
                            event = orjson.loads(data)
                        except orjson.JSONDecodeError:
                            raise self._not_a_stream(
                                resp.status, "an event that is not JSON", data
                            ) from None
                        events += 1
                        yield event
                if not events:
                    raise self._not_a_stream(resp.status, "no events", head)
        except ResponseTooLarge as exc:
            raise exc.as_provider_error(self.provider) from None
        except (TimeoutError, aiohttp.ClientError, OSError) as exc:
            raise self._connection_error(exc) from None
        except ValueError as exc:  # an event line longer than the read buffer
            raise ProviderError(f"{self.provider}: bad event stream: {exc}") from None
