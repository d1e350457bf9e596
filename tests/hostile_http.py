"""A loopback HTTP server that misbehaves on purpose, for the body-cap and protocol tests.

Each connection reads one request (head and ``Content-Length`` body), then answers as
``server.mode`` says:

- ``lying-length``: ``Content-Length: 10000000000``, a few bytes, then silence;
- ``endless``: a chunked body of ``server.total`` bytes (far over the cap the tests set), of
  ``server.content_type`` (``text/event-stream``: SSE comment lines);
- ``until-close``: no framing, ``server.total`` bytes, then close;
- ``gzip-bomb``: a small gzip body that inflates to ``server.total`` bytes (declared length
  small and true);
- ``continues``: ``server.count`` ``100 Continue`` interim responses, then a valid reply;
- ``slowloris``: the head of a 200 reply, then one byte every 0.2 s (up to 60 s);
- ``garbage``: bytes that are not HTTP.

Every write stops as soon as the client hangs up, so a client that gives up early ends the
server's loop too.
"""

from __future__ import annotations

import gzip
import socket
import socketserver
import threading
import time
from typing import Any

import orjson

__all__ = ["HostileServer", "chat_reply"]


def chat_reply(text: str = "ok") -> bytes:
    """A valid chat-completions body."""
    return orjson.dumps(
        {
            "id": "c1",
            "object": "chat.completion",
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    )


def _read_request(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return head


class _Handler(socketserver.BaseRequestHandler):
    server: _Server

    def handle(self) -> None:
        sock: socket.socket = self.request
        try:
            head = _read_request(sock)
            if not head:
                return
            self.server.owner.requests += 1
            getattr(self, "_" + self.server.owner.mode.replace("-", "_"))(sock)
        except OSError:
            return  # the client hung up: what the cap is for

    def _lying_length(self, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        sock.sendall(b'Content-Length: 10000000000\r\n\r\n{"id": ')
        self.server.owner.hold(30)

    def _endless(self, sock: socket.socket) -> None:
        kind = self.server.owner.content_type.encode()
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: " + kind + b"\r\n")
        sock.sendall(b"Transfer-Encoding: chunked\r\n\r\n")
        block = (b": " + b"x" * 1021 + b"\n") * 64 if b"event-stream" in kind else b"x" * 65536
        chunk = b"%x\r\n" % len(block) + block + b"\r\n"
        for _ in range(self.server.owner.total // len(block)):
            sock.sendall(chunk)
        sock.sendall(b"0\r\n\r\n")

    def _until_close(self, sock: socket.socket) -> None:
        sock.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
        )
        block = b"x" * 65536
        for _ in range(self.server.owner.total // len(block)):
            sock.sendall(block)

    def _gzip_bomb(self, sock: socket.socket) -> None:
        body = self.server.owner.bomb()
        sock.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            + b"Content-Length: %d\r\n\r\n" % len(body)
            + body
        )

    def _continues(self, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n" * self.server.owner.count)
        body = chat_reply("after the continues")
        sock.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            + b"Content-Length: %d\r\n\r\n" % len(body)
            + body
        )

    def _slowloris(self, sock: socket.socket) -> None:
        sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n")
        sock.sendall(b"Content-Length: 100000\r\n\r\n")
        for _ in range(300):
            if self.server.owner.stopping.wait(0.2):
                return
            sock.sendall(b" ")

    def _garbage(self, sock: socket.socket) -> None:
        sock.sendall(b"\x00\xffTHIS IS NOT HTTP AT ALL\r\n\r\n")


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: HostileServer


class HostileServer:
    """``with HostileServer("endless", total=8 << 20) as srv: ... srv.url``."""

    def __init__(
        self,
        mode: str,
        *,
        total: int = 8 << 20,
        count: int = 5000,
        content_type: str = "application/json",
    ) -> None:
        self.mode = mode
        self.content_type = content_type
        self.total = total
        self.count = count
        self.requests = 0
        self.stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.owner = self
        self.port: int = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._bomb: bytes | None = None

    def hold(self, seconds: float) -> None:
        self.stopping.wait(seconds)

    def bomb(self) -> bytes:
        if self._bomb is None:
            self._bomb = gzip.compress(b"[" + b" " * self.total + b"]", compresslevel=9)
        return self._bomb

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)
        time.sleep(0)
