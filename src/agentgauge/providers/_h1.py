"""A minimal HTTP/1.1 keep-alive client for JSON POSTs, on a raw asyncio protocol.

Why: at concurrency 64 every CPU-microsecond per request delays the next request in the wave
(see ``benchmarks/bench_http.py``). aiohttp costs about 0.2 CPU-ms per POST here, this client
about 0.08. It does one thing: ``POST`` a body, read a ``Content-Length``, chunked or
read-until-close reply, keep the connection for the next request. Streaming replies, proxies and
anything unusual stay with aiohttp (``_wire``).

A reply is never buffered past the body cap (``_bodycap``): a declared ``Content-Length`` over it
fails at once, a chunked or read-until-close body as soon as it grows past it; interim (1xx)
responses are skipped in a loop, at most :data:`_MAX_INTERIM` of them.
"""

from __future__ import annotations

import asyncio
import ssl
from urllib.parse import urlsplit

from .._version import __version__
from ._bodycap import ResponseTooLarge, max_response_bytes

__all__ = ["H1Pool", "H1Response"]

_MAX_IDLE = 1024
_MAX_HEADER = 64 * 1024
#: interim (1xx) responses skipped before one reply; more is a misbehaving server
_MAX_INTERIM = 100


class H1Response:
    """Status, lower-cased headers and the whole body."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body


class _Incomplete(Exception):
    """Not enough bytes yet."""


class _Connection(asyncio.Protocol):
    def __init__(self, max_body: int = 0) -> None:
        self.max_body = max_body or max_response_bytes()
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.waiter: asyncio.Future[H1Response] | None = None
        self.closed = False
        self.eof = False
        self.keep_alive = True
        self.received = 0
        self.chunks = _Chunks()

    # -------------------------------------------------------------- protocol callbacks

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.eof = True
        self._deliver(exc or ConnectionResetError("the server closed the connection"))

    def eof_received(self) -> bool | None:
        self.eof = True
        self._deliver(ConnectionResetError("the server closed the connection"))
        return None

    def data_received(self, data: bytes) -> None:
        self.buf += data
        self.received += len(data)
        if self.waiter is not None and not self.waiter.done():
            self._deliver(None)
        elif len(self.buf) > _MAX_HEADER and self.transport is not None:
            # bytes nobody asked for (an idle connection, or past a finished reply): drop it
            self.keep_alive = False
            self.buf.clear()
            self.transport.close()

    # -------------------------------------------------------------- parsing

    def _deliver(self, error: BaseException | None) -> None:
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        try:
            response = self._parse()
        except _Incomplete:
            if error is not None:
                waiter.set_exception(error)
            return
        except ValueError as exc:
            self.keep_alive = False
            waiter.set_exception(ConnectionError(f"malformed HTTP response: {exc}"))
            return
        except ResponseTooLarge as exc:
            self.keep_alive = False
            waiter.set_exception(exc)
            return
        waiter.set_result(response)

    def _parse(self) -> H1Response:
        buf = self.buf
        for _ in range(_MAX_INTERIM + 1):
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                if len(buf) > _MAX_HEADER:
                    raise ValueError("header section too long")
                raise _Incomplete
            lines = bytes(buf[:end]).split(b"\r\n")
            parts = lines[0].split(b" ", 2)
            if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
                raise ValueError(f"bad status line {lines[0][:80]!r}")
            status = int(parts[1])
            if not 100 <= status < 200:
                break
            del buf[: end + 4]  # an interim response (100 Continue): skip it
        else:
            raise ValueError(f"more than {_MAX_INTERIM} interim (1xx) responses")
        headers: dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
        if headers.get("connection", "").lower() == "close" or parts[0] == b"HTTP/1.0":
            self.keep_alive = False
        body = self._body(headers, end + 4)
        if buf:  # bytes beyond the response: do not trust this connection again
            self.keep_alive = False
        return H1Response(status, headers, body)

    def _body(self, headers: dict[str, str], start: int) -> bytes:
        """The body starting at ``start``, removed from the buffer (with the head before it)."""
        buf, cap = self.buf, self.max_body
        length = headers.get("content-length")
        if "chunked" in headers.get("transfer-encoding", "").lower():
            if self.chunks.start != start:
                self.chunks = _Chunks(start)
            body, consumed = _dechunk(buf, self.chunks, cap)
            del buf[:consumed]
            self.chunks = _Chunks()
            return body
        if length is not None:
            if not length.strip().isdigit():
                raise ValueError(f"bad Content-Length {length[:40]!r}")
            n = int(length)
            if n > cap:
                raise ResponseTooLarge(cap, declared=n)
            if len(buf) < start + n:
                raise _Incomplete
            body = bytes(buf[start : start + n])
            del buf[: start + n]
            return body
        # no framing: the body runs to the end of the connection
        if len(buf) - start > cap:
            raise ResponseTooLarge(cap)
        if not self.eof:
            raise _Incomplete
        body = bytes(buf[start:])
        buf.clear()
        self.keep_alive = False
        return body


class _Chunks:
    """Where decoding a chunked body stopped: it resumes there when more bytes arrive, so a
    body trickled in small pieces is decoded once, not once per piece (quadratic before)."""

    __slots__ = ("out", "pos", "start")

    def __init__(self, start: int = -1) -> None:
        self.start = start  # where the body starts in the buffer (-1: no body begun)
        self.pos = start  # the next chunk-size line
        self.out = bytearray()


def _dechunk(buf: bytearray, state: _Chunks, cap: int) -> tuple[bytes, int]:
    """Decode the chunked body ``state`` is at, from where it stopped; (body, index after it)."""
    out = state.out
    while True:
        pos = state.pos
        line_end = buf.find(b"\r\n", pos)
        if line_end < 0:
            if len(buf) - pos > _MAX_HEADER:
                raise ValueError("chunk size line too long")
            raise _Incomplete
        size = int(bytes(buf[pos:line_end]).split(b";", 1)[0].strip() or b"0", 16)
        if size < 0:
            raise ValueError("negative chunk size")
        if len(out) + size > cap:
            raise ResponseTooLarge(cap)
        data = line_end + 2
        if size == 0:
            trailer_end = buf.find(b"\r\n\r\n", data - 2)
            if trailer_end < 0:
                if len(buf) - data > _MAX_HEADER:
                    raise ValueError("trailer section too long")
                raise _Incomplete
            return bytes(out), trailer_end + 4
        if len(buf) < data + size + 2:
            raise _Incomplete
        out += buf[data : data + size]
        state.pos = data + size + 2


def _expire(waiter: asyncio.Future[H1Response]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError("read timed out"))


class H1Pool:
    """Keep-alive connections to one origin, for ``POST`` requests with a fixed header block."""

    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        *,
        timeout_s: float | None,
        max_body: int | None = None,
    ) -> None:
        parts = urlsplit(url)
        self.max_body = max_response_bytes() if max_body is None else max_body
        self.secure = parts.scheme == "https"
        self.host = parts.hostname or "localhost"
        self.port = parts.port or (443 if self.secure else 80)
        default_port = 443 if self.secure else 80
        host_header = self.host if self.port == default_port else f"{self.host}:{self.port}"
        if ":" in self.host and not self.host.startswith("["):  # IPv6 literal
            host_header = f"[{self.host}]" + ("" if self.port == default_port else f":{self.port}")
        self.timeout_s = timeout_s
        self._base_headers = (
            f"Host: {host_header}\r\n"
            + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            + "Accept: application/json\r\nContent-Type: application/json\r\n"
            + f"User-Agent: agentgauge/{__version__}\r\n"
        ).encode("latin-1")
        self._idle: list[_Connection] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ssl: ssl.SSLContext | None = ssl.create_default_context() if self.secure else None

    def request_head(self, url: str) -> bytes:
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return b"POST " + target.encode("latin-1") + b" HTTP/1.1\r\n" + self._base_headers

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        _, conn = await loop.create_connection(
            lambda: _Connection(self.max_body),
            self.host,
            self.port,
            ssl=self._ssl,
            server_hostname=self.host if self._ssl else None,
        )
        return conn

    def _take_idle(self) -> _Connection | None:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # connections belong to the loop that opened them
            self._idle = []
            self._loop = loop
        while self._idle:
            conn = self._idle.pop()
            if not conn.closed and not conn.eof:
                return conn
        return None

    async def post(self, head: bytes, body: bytes) -> H1Response:
        """Send one request (``head`` from :meth:`request_head`) and read the reply.

        A reused connection that fails before any reply byte arrives (the server closed it
        while idle) is retried once on a fresh connection.
        """
        data = head + b"Content-Length: %d\r\n\r\n" % len(body) + body
        conn = self._take_idle()
        reused = conn is not None
        if conn is None:
            conn = await self._connect()
        try:
            return await self._exchange(conn, data)
        except ConnectionError:
            if not reused or conn.received:
                raise
        return await self._exchange(await self._connect(), data)

    async def _exchange(self, conn: _Connection, data: bytes) -> H1Response:
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[H1Response] = loop.create_future()
        conn.waiter = waiter
        conn.received = 0
        conn.chunks = _Chunks()
        assert conn.transport is not None
        conn.transport.write(data)
        timer = None
        if self.timeout_s is not None:
            timer = loop.call_later(self.timeout_s, _expire, waiter)
        try:
            response = await waiter
        except BaseException:
            conn.keep_alive = False
            if conn.transport is not None:
                conn.transport.close()
            raise
        finally:
            conn.waiter = None
            if timer is not None:
                timer.cancel()
        if conn.keep_alive and not conn.closed and len(self._idle) < _MAX_IDLE:
            self._idle.append(conn)
        elif conn.transport is not None:
            conn.transport.close()
        return response

    def close(self) -> None:
        for conn in self._idle:
            if conn.transport is not None:
                conn.transport.close()
        self._idle = []
