"""The raw HTTP/1.1 keep-alive client: framing variants, reuse, stale connections, timeouts."""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from agentgauge.providers._h1 import H1Pool

Reply = Callable[[bytes, int], list[bytes] | None]


async def _server(reply: Reply) -> tuple[asyncio.Server, str, list[int]]:
    """A server whose ``reply(request, n)`` gives the byte pieces to send (None: close)."""
    connections: list[int] = []
    counter = [0]

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(1)
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                body = await reader.readexactly(length)
                counter[0] += 1
                pieces = reply(head + body, counter[0])
                if pieces is None:
                    writer.close()
                    return
                for piece in pieces:
                    writer.write(piece)
                    await writer.drain()
                    await asyncio.sleep(0)
                if any(b"Connection: close" in p for p in pieces):
                    writer.close()
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}/v1/x?q=1", connections


def _run(
    reply: Reply, n: int = 1, timeout_s: float | None = 5.0
) -> tuple[list[tuple[int, bytes]], int]:
    async def go() -> tuple[list[tuple[int, bytes]], int]:
        server, url, connections = await _server(reply)
        pool = H1Pool(url, {"Authorization": "Bearer k"}, timeout_s=timeout_s)
        head = pool.request_head(url)
        out = []
        try:
            for _ in range(n):
                r = await pool.post(head, b'{"a":1}')
                out.append((r.status, r.body))
        finally:
            pool.close()
            server.close()
        return out, len(connections)

    return asyncio.run(go())


def _ok(body: bytes, extra: bytes = b"") -> list[bytes]:
    return [b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n" % (len(body), extra) + body]


def test_content_length_and_keep_alive() -> None:
    seen: list[bytes] = []

    def reply(request: bytes, n: int) -> list[bytes]:
        seen.append(request)
        return _ok(b'{"n":%d}' % n)

    out, connections = _run(reply, n=3)
    assert out == [(200, b'{"n":1}'), (200, b'{"n":2}'), (200, b'{"n":3}')]
    assert connections == 1
    assert seen[0].startswith(b"POST /v1/x?q=1 HTTP/1.1\r\nHost: 127.0.0.1:")
    assert b"Authorization: Bearer k\r\n" in seen[0]
    assert seen[0].endswith(b'Content-Length: 7\r\n\r\n{"a":1}')


def test_split_and_chunked_replies_and_interim_100() -> None:
    def reply(request: bytes, n: int) -> list[bytes]:
        if n == 1:  # headers and body split over several writes
            return [b"HTTP/1.1 200 OK\r\nContent-Le", b"ngth: 4\r\n\r\nab", b"cd"]
        if n == 2:
            return [
                b"HTTP/1.1 100 Continue\r\n\r\n",
                b"HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n",
                b"3;ext=1\r\nabc\r\n",
                b"2\r\nde\r\n0\r\nX-Trailer: 1\r\n\r\n",
            ]
        return _ok(b"last")

    out, connections = _run(reply, n=3)
    assert out == [(200, b"abcd"), (201, b"abcde"), (200, b"last")]
    assert connections == 1


def test_connection_close_and_unframed_body() -> None:
    def reply(request: bytes, n: int) -> list[bytes]:
        if n == 1:
            return _ok(b"one", b"Connection: close\r\n")
        return [b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil-close"]

    out, connections = _run(reply, n=2)
    assert out == [(200, b"one"), (200, b"until-close")]
    assert connections == 2


def test_stale_idle_connection_is_retried_once() -> None:
    def reply(request: bytes, n: int) -> list[bytes] | None:
        if n == 2:
            return None  # the server drops the kept-alive connection without answering
        return _ok(b"fine")

    out, connections = _run(reply, n=3)
    assert out == [(200, b"fine")] * 3
    assert connections == 2


def test_error_status_keeps_headers() -> None:
    def reply(request: bytes, n: int) -> list[bytes]:
        return [b"HTTP/1.1 429 Too Many\r\nRetry-After: 3\r\nContent-Length: 2\r\n\r\n{}"]

    async def go() -> tuple[int, str]:
        server, url, _ = await _server(reply)
        pool = H1Pool(url, {}, timeout_s=5)
        try:
            r = await pool.post(pool.request_head(url), b"{}")
        finally:
            pool.close()
            server.close()
        return r.status, r.headers["retry-after"]

    assert asyncio.run(go()) == (429, "3")


def test_read_timeout() -> None:
    def reply(request: bytes, n: int) -> list[bytes]:
        return [b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial"]

    with pytest.raises(TimeoutError):
        _run(reply, timeout_s=0.2)


def test_malformed_reply_is_a_connection_error() -> None:
    def reply(request: bytes, n: int) -> list[bytes]:
        return [b"garbage\r\n\r\n"]

    with pytest.raises(ConnectionError, match="malformed"):
        _run(reply)


def test_tls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs the openssl command to make a test certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    made = subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ],
        capture_output=True,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.skip("openssl could not make a certificate")
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # trust it for the client's default context

    async def go() -> tuple[int, bytes]:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)

        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.readuntil(b"\r\n\r\n")
            await reader.readexactly(2)
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecure")
            await writer.drain()

        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
        url = f"https://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"
        pool = H1Pool(url, {}, timeout_s=5)
        try:
            r = await pool.post(pool.request_head(url), b"{}")
        finally:
            pool.close()
            server.close()
        return r.status, r.body

    assert asyncio.run(go()) == (200, b"secure")
