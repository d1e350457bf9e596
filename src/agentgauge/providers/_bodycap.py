"""The cap on the size of a network reply, on every client path agentgauge uses.

A server can lie about its reply (``Content-Length: 10000000000``), send an endless body, or a
small gzip body that inflates to gigabytes; none of that may be buffered whole. Every HTTP
client agentgauge drives reads a reply body up to :func:`max_response_bytes` (64 MiB unless
``AGENTGAUGE_MAX_RESPONSE_BYTES`` says otherwise; ``512K``, ``16M``, ``1G`` are accepted) and
then gives up with :class:`ResponseTooLarge`, which the adapters turn into a non-transient
:class:`~agentgauge.errors.ProviderError` recorded on the case (retrying would not help):

- the lean keep-alive client (``_h1``) and the aiohttp session (``_wire``): the OpenAI-compatible
  hot path, streamed replies, the ``http://`` agent, the judges that use them;
- the vendor SDKs (openai ``transport=sdk``, anthropic, google-genai) and the MCP client over
  streamable HTTP: their ``httpx``/``httpx2`` client gets :func:`cap_httpx_client`'s response
  hook, which refuses a declared length over the cap and wraps the body stream in a counter
  (the decoded size of a gzip/deflate body is counted too).

The limit is a size, not a time: a slow server is bounded by the read timeouts and the case
timeout.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import AsyncIterator
from typing import Any

from ..errors import ProviderError, UserError

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "MAX_RESPONSE_ENV",
    "ResponseTooLarge",
    "cap_httpx_client",
    "max_response_bytes",
    "too_large_in",
]

MAX_RESPONSE_ENV = "AGENTGAUGE_MAX_RESPONSE_BYTES"
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024
_UNITS = {"": 1, "B": 1, "K": 1024, "KB": 1024, "KIB": 1024, "M": 1 << 20, "MB": 1 << 20}
_UNITS |= {"MIB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30}


def max_response_bytes(environ: dict[str, str] | None = None) -> int:
    """The cap in bytes: ``AGENTGAUGE_MAX_RESPONSE_BYTES`` or 64 MiB; a bad value is a UserError."""
    raw = (os.environ if environ is None else environ).get(MAX_RESPONSE_ENV, "").strip()
    if not raw:
        return DEFAULT_MAX_RESPONSE_BYTES
    number = raw.rstrip("bBiIkKmMgG")
    unit = raw[len(number) :].strip().upper()
    try:
        value = int(number.strip().replace("_", "")) * _UNITS[unit]
    except (ValueError, KeyError):
        value = 0
    if value <= 0:
        raise UserError(
            f"{MAX_RESPONSE_ENV}: '{raw}' is not a positive byte count "
            "(e.g. 67108864, 512K, 64M or 1G)"
        )
    return value


def _size(n: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1024)):
        if n >= factor:
            return f"{n / factor:.4g} {unit}"
    return f"{n} bytes"


class ResponseTooLarge(Exception):
    """A reply body over the cap (declared by its headers or counted while reading)."""

    def __init__(self, limit: int, *, declared: int | None = None) -> None:
        self.limit = limit
        self.declared = declared
        if declared is not None:
            what = f"declares a body of {_size(declared)}, over the limit of {_size(limit)}"
        else:
            what = f"body grew past the limit of {_size(limit)}"
        super().__init__(
            f"the reply {what} ({MAX_RESPONSE_ENV}={limit}; raise it if such replies are expected)"
        )

    def as_provider_error(self, provider: str) -> ProviderError:
        return ProviderError(f"{provider}: {self}", transient=False)


def too_large_in(exc: BaseException | None) -> ResponseTooLarge | None:
    """The ResponseTooLarge behind ``exc`` (an SDK wraps it in its own connection error)."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, ResponseTooLarge):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


_INFLATE_STEP = 1 << 20


class _Inflated:
    """Counts the decoded size of a gzip/deflate body without keeping it."""

    def __init__(self, encoding: str) -> None:
        wbits = 16 + zlib.MAX_WBITS if encoding in ("gzip", "x-gzip") else zlib.MAX_WBITS
        self._d: Any = zlib.decompressobj(wbits)
        self.size = 0

    def feed(self, data: bytes, limit: int) -> None:
        try:
            out = self._d.decompress(data, _INFLATE_STEP)
            self.size += len(out)
            while self._d.unconsumed_tail and self.size <= limit:
                out = self._d.decompress(self._d.unconsumed_tail, _INFLATE_STEP)
                self.size += len(out)
        except zlib.error:
            self._d = None  # not what it claims: httpx reports the decoding error itself


class _CappedStream:
    """An httpx/httpx2 async byte stream that stops past ``limit`` bytes (mixed into the
    library's own ``AsyncByteStream``, which httpx checks for)."""

    def __init__(self, inner: Any, limit: int, encoding: str) -> None:
        self._inner = inner
        self._limit = limit
        self._seen = 0
        self._inflated = _Inflated(encoding) if encoding in ("gzip", "x-gzip", "deflate") else None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._seen += len(chunk)
            inflated = self._inflated
            if inflated is not None and inflated._d is not None:
                inflated.feed(chunk, self._limit)
            if self._seen > self._limit or (inflated is not None and inflated.size > self._limit):
                raise ResponseTooLarge(self._limit)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


def declared_length(headers: Any) -> int | None:
    """The Content-Length a reply declares, or None (absent or not a number)."""
    raw = headers.get("content-length") if headers is not None else None
    if raw is None:
        return None
    raw = str(raw).strip()
    return int(raw) if raw.isdigit() else None


_STREAM_CLASSES: dict[str, type] = {}


def _stream_class(client: Any) -> type:
    import importlib

    for name in ("httpx2", "httpx"):
        try:
            lib = importlib.import_module(name)
        except ImportError:
            continue
        if isinstance(client, lib.AsyncClient):
            if name not in _STREAM_CLASSES:
                _STREAM_CLASSES[name] = type(
                    "CappedStream", (_CappedStream, lib.AsyncByteStream), {}
                )
            return _STREAM_CLASSES[name]
    raise TypeError(f"not an httpx or httpx2 AsyncClient: {type(client).__name__}")


def cap_httpx_client(client: Any, limit: int | None = None) -> Any:
    """Give an ``httpx``/``httpx2`` async client the body cap (a response event hook)."""
    cap = max_response_bytes() if limit is None else limit
    stream_class = _stream_class(client)

    async def hook(response: Any) -> None:
        declared = declared_length(response.headers)
        if declared is not None and declared > cap:
            await response.aclose()
            raise ResponseTooLarge(cap, declared=declared)
        encoding = str(response.headers.get("content-encoding", "")).strip().lower()
        response.stream = stream_class(response.stream, cap, encoding)

    hooks = dict(client.event_hooks)
    hooks["response"] = [*hooks.get("response", []), hook]
    client.event_hooks = hooks
    return client
