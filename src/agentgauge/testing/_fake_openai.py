"""A loopback OpenAI-compatible server for tests and benchmarks.

It speaks just enough HTTP/1.1 (keep-alive, ``Content-Length`` bodies, chunked SSE replies) on
a raw :class:`asyncio.Protocol` to stay cheap: a benchmark's server must not eat the CPU the
client under test needs. Endpoints:

- ``POST /v1/chat/completions`` (plain JSON or ``"stream": true`` server-sent events),
- ``POST /v1/responses`` (the Responses API, plain or streamed),
- ``POST /agent`` (agentgauge's own HTTP agent contract: ``{"text", "tool_calls", "usage"}``),
- ``GET /v1/models``.

For tests of what reaches disk, ``echo_key=True`` makes the server echo the credential it
received (``Authorization: Bearer ...``, ``api-key``, ``x-api-key`` or ``x-goog-api-key``): every
``{key}`` in a reply (text, tool-call arguments, fault messages, raw bodies; ``model="{key}"``
for the model field) is replaced by it, and it is sent back in an ``X-Echo-Key`` header.
:class:`FakeRaw` sends any status and body as is (an HTML page, invalid JSON, a 200 with an
``{"error": ...}`` object, also to a streaming request); :class:`FakeStreamError` sends a
started stream that ends in an error event; :class:`FakeDrop` closes the connection unanswered.
``azure=True`` also serves Azure OpenAI's paths (``/openai/deployments/NAME/chat/completions``,
``/openai/v1/responses``).

A known capacity, for load tests (docs/load.md): ``max_concurrent=K`` serves at most K completions
at once (from the request's arrival to its last byte); the rest wait in a queue
(``over_capacity="queue"``, served first come first served) or get an HTTP 429 at once
(``over_capacity="reject"``). ``in_flight``, ``peak_in_flight``, ``queued_peak`` and
``rejected`` count what happened.

```python
from agentgauge.testing import FakeOpenAIServer
from agentgauge.schema import ToolCall

with FakeOpenAIServer([ToolCall(name="get_weather", arguments={"city": "Paris"}), "Sunny."]) as srv:
    ...  # point openai:fake-model at srv.base_url
```
"""

from __future__ import annotations

import asyncio
import collections
import itertools
import random
import threading
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any, Literal

import orjson

from ._fake_replies import (
    FakeDrop,
    FakeFault,
    FakeRaw,
    FakeReply,
    FakeRequest,
    FakeStreamError,
    _normalise,
    _Reply,
)
from ._fake_wire import _chat_body, _chat_chunks, _responses_body, _responses_events

__all__ = [
    "FakeDrop",
    "FakeFault",
    "FakeOpenAIServer",
    "FakeRaw",
    "FakeReply",
    "FakeRequest",
    "FakeStreamError",
]


#: request headers that carry a credential (echoed with ``echo_key``)
_KEY_HEADERS = frozenset({b"authorization", b"api-key", b"x-api-key", b"x-goog-api-key"})

_REASONS = {
    200: b"OK",
    400: b"Bad Request",
    401: b"Unauthorized",
    404: b"Not Found",
    408: b"Request Timeout",
    429: b"Too Many Requests",
    500: b"Internal Server Error",
    503: b"Service Unavailable",
}


class FakeOpenAIServer:
    """Serve scripted chat completions on ``127.0.0.1`` (random free port by default).

    ``replies`` is a list played in order (the last one repeats) or a function of the
    :class:`FakeRequest` returning a reply; by default every request gets the text ``"ok"``.
    ``latency_ms`` delays every reply (before the first byte); ``chunk_delay_ms`` spaces the
    events of a streamed reply. ``error_rate`` replaces that fraction of replies (seeded) by
    ``error`` (a :class:`FakeFault`, 500 by default). ``max_concurrent`` / ``over_capacity``:
    a capacity of K completions at once, the rest queued or refused with 429 (module docstring).
    Use it as a context manager
    (the server runs in a background thread) or ``await server.start_async()`` inside a running
    event loop. ``count`` is the number of requests served; ``requests`` holds them when
    ``record`` is true.
    """

    def __init__(
        self,
        replies: Iterable[FakeReply] | Callable[[FakeRequest], FakeReply] | None = None,
        *,
        latency_ms: float = 0.0,
        chunk_delay_ms: float = 0.0,
        error_rate: float = 0.0,
        error: FakeFault = FakeFault(500),
        seed: int = 0,
        host: str = "127.0.0.1",
        port: int = 0,
        model: str = "fake-model",
        record: bool = True,
        echo_key: bool = False,
        azure: bool = False,
        max_concurrent: int | None = None,
        over_capacity: Literal["queue", "reject"] = "queue",
    ) -> None:
        if max_concurrent is not None and max_concurrent < 1:
            raise ValueError("max_concurrent must be at least 1")
        self._func: Callable[[FakeRequest], FakeReply] | None = None
        self._script: list[_Reply] = []
        if callable(replies):
            self._func = replies
        else:
            self._script = [_normalise(r) for r in (replies or ["ok"])]
        self.latency_s = latency_ms / 1000
        self.chunk_delay_s = chunk_delay_ms / 1000
        self.error_rate = error_rate
        self.error = error
        self._random = random.Random(seed)
        self.host = host
        self.port = port
        self.model = model
        self.record = record
        self.echo_key = echo_key
        self.azure = azure
        self.count = 0
        self._played = 0
        self.requests: list[FakeRequest] = []
        self._ids = itertools.count(1)
        self._server: asyncio.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._model_bytes = orjson.dumps(model)
        self.max_concurrent = max_concurrent
        self.over_capacity = over_capacity
        #: completions being served now, the most ever served at once, the most ever waiting,
        #: and the requests refused with 429 for want of capacity
        self.in_flight = 0
        self.peak_in_flight = 0
        self.queued_peak = 0
        self.rejected = 0
        self._waiting: collections.deque[tuple[Any, ...]] = collections.deque()

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://{self.host}:{self.port}/v1"

    @property
    def url(self) -> str:
        """The server root, ``http://127.0.0.1:PORT``."""
        return f"http://{self.host}:{self.port}"

    # ------------------------------------------------------------------ lifecycle

    async def start_async(self) -> None:
        """Listen in the running event loop."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._server = await loop.create_server(
            lambda: _Protocol(self), self.host, self.port, backlog=1024
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop_async(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None

    async def serve_forever(self) -> None:
        await self.start_async()
        assert self._server is not None
        await self._server.serve_forever()

    def start(self) -> FakeOpenAIServer:
        """Run the server in a daemon thread; returns once it is listening."""
        ready = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self.start_async())
            except BaseException as exc:  # report bind errors to the caller
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.stop_async())
            loop.close()

        self._thread = threading.Thread(target=run, name="fake-openai", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self

    def stop(self) -> None:
        if self._thread is not None and self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # ------------------------------------------------------------------ replies

    def _next_reply(self, request: FakeRequest) -> _Reply:
        if self._func is not None:
            return _normalise(self._func(request))
        index = min(self._played, len(self._script) - 1)
        self._played += 1
        return self._script[index]

    def respond(self, proto: _Protocol, method: bytes, path: bytes, body: bytes) -> None:
        self.count += 1
        route = path.split(b"?", 1)[0]
        if method == b"GET" and route.endswith(b"/models"):
            data = b'{"object":"list","data":[{"id":' + self._model_bytes + b',"object":"model"}]}'
            proto.send(200, data)
            return
        kind = {
            b"/v1/chat/completions": "chat",
            b"/chat/completions": "chat",
            b"/v1/responses": "responses",
            b"/responses": "responses",
            b"/agent": "agent",
        }.get(route)
        if kind is None and self.azure and route.startswith(b"/openai/"):
            if route.endswith(b"/chat/completions"):
                kind = "chat"
            elif route.endswith(b"/responses"):
                kind = "responses"
        if method != b"POST" or kind is None:
            proto.send(404, b'{"error":{"message":"not found","type":"invalid_request_error"}}')
            return
        try:
            payload = orjson.loads(body) if body else {}
        except orjson.JSONDecodeError:
            proto.send(400, b'{"error":{"message":"invalid JSON body"}}')
            return
        request = FakeRequest(path=route.decode(), body=payload)
        if self.record:
            self.requests.append(request)
        reply = self._next_reply(request)
        if self.error_rate and self._random.random() < self.error_rate:
            reply = _Reply(None, [], self.error)
        stream = bool(payload.get("stream"))
        if self.echo_key:
            proto.echo = proto.last_key
        job = (proto, kind, reply, payload, stream)
        limit = self.max_concurrent
        if limit is not None and self.in_flight >= limit:
            if self.over_capacity == "reject":
                self.rejected += 1
                proto.send(429, b'{"error":{"message":"over capacity","type":"rate_limit"}}')
                return
            self._waiting.append(job)
            self.queued_peak = max(self.queued_peak, len(self._waiting))
            return
        self._begin(job)

    def _begin(self, job: tuple[Any, ...]) -> None:
        """Start serving one completion: it holds a unit of capacity until its last byte."""
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        if self.latency_s and self._loop is not None:
            self._loop.call_later(self.latency_s, self._serve, job)
        else:
            self._serve(job)

    def _serve(self, job: tuple[Any, ...]) -> None:
        proto, kind, reply, payload, stream = job
        if not self._send(proto, kind, reply, payload, stream, done=self._release):
            self._release()

    def _release(self) -> None:
        """A completion ended: its capacity goes to the first request waiting, if any."""
        self.in_flight -= 1
        if self._waiting:
            self._begin(self._waiting.popleft())

    def _send(
        self,
        proto: _Protocol,
        kind: str,
        reply: _Reply,
        payload: dict[str, Any],
        stream: bool,
        done: Callable[[], None] | None = None,
    ) -> bool:
        """Write the reply; True when it is still being written and ``done`` will be called
        at its end (a dripped stream), False when it is written."""
        if reply.drop:
            proto.drop()
            return False
        if reply.fault is not None:
            f = reply.fault
            err = {"error": {"message": f.message, "type": "fake_fault", "code": f.status}}
            extra = b"Retry-After: " + f.retry_after.encode() + b"\r\n" if f.retry_after else b""
            proto.send(f.status, orjson.dumps(err), extra)
            return False
        if reply.raw is not None:
            raw = reply.raw
            data = raw.body.encode() if isinstance(raw.body, str) else raw.body
            proto.send(raw.status, data, content_type=raw.content_type.encode())
            return False
        if reply.stream_error is not None:
            message = reply.stream_error.message
            if not stream:
                proto.send(500, orjson.dumps({"error": {"message": message}}))
            elif kind == "responses":
                events = _responses_events(_responses_body(self.model, 0, reply, 1), reply)[:-1]
                error = {"type": "error", "code": "server_error", "message": message}
                events.append(b"event: error\ndata: " + orjson.dumps(error) + b"\n\n")
                proto.send_stream(events)
            else:
                events = _chat_chunks(self.model, 0, reply, 1, {})[:-2]  # no finish, no [DONE]
                events.append(b"data: " + orjson.dumps({"error": {"message": message}}) + b"\n\n")
                proto.send_stream(events)
            return False
        n = next(self._ids)
        prompt_tokens = max(1, proto.last_body_len // 4)
        if kind == "chat":
            if stream:
                chunks = _chat_chunks(self.model, n, reply, prompt_tokens, payload)
                return proto.send_stream(chunks, done)
            proto.send(200, orjson.dumps(_chat_body(self.model, n, reply, prompt_tokens)))
        elif kind == "responses":
            body = _responses_body(self.model, n, reply, prompt_tokens)
            if stream:
                return proto.send_stream(_responses_events(body, reply), done)
            proto.send(200, orjson.dumps(body))
        else:
            calls = [{"name": c.name, "arguments": c.arguments} for c in reply.calls]
            out: dict[str, Any] = {"usage": {"input_tokens": prompt_tokens, "output_tokens": 1}}
            if reply.text is not None:
                out["text"] = reply.text
            if calls:
                out["tool_calls"] = calls
            proto.send(200, orjson.dumps(out))
        return False


class _Protocol(asyncio.Protocol):
    """One keep-alive connection: parse requests with Content-Length bodies, write replies."""

    def __init__(self, server: FakeOpenAIServer) -> None:
        self.server = server
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None
        self.last_body_len = 0
        #: the credential of the last request, and the one to echo (``echo_key``) in its reply
        self.last_key = b""
        self.echo = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None

    def drop(self) -> None:
        """Close the connection without a reply (a reset, not a clean end: no FIN after data)."""
        if self.transport is not None:
            self.transport.abort()
            self.transport = None

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buf[:end])
            lines = head.split(b"\r\n")
            try:
                method, path, _ = lines[0].split(b" ", 2)
            except ValueError:
                self.send(400, b'{"error":{"message":"bad request line"}}')
                self.buf.clear()
                return
            length = 0
            key = b""
            for line in lines[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name in _KEY_HEADERS:
                    key = value.strip()
                    if key[:7].lower() == b"bearer ":
                        key = key[7:].strip()
            self.last_key = key
            total = end + 4 + length
            if len(self.buf) < total:
                return
            body = bytes(self.buf[end + 4 : total])
            del self.buf[:total]
            self.last_body_len = length
            self.server.respond(self, method, path, body)

    def send(
        self,
        status: int,
        body: bytes,
        extra_headers: bytes = b"",
        *,
        content_type: bytes = b"application/json",
    ) -> None:
        if self.transport is None:
            return
        if self.echo:
            body = body.replace(b"{key}", self.echo)
            extra_headers += b"X-Echo-Key: " + self.echo + b"\r\n"
        reason = _REASONS.get(status, b"Error")
        self.transport.write(
            b"HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n%s\r\n"
            % (status, reason, content_type, len(body), extra_headers)
            + body
        )

    def send_stream(self, events: list[bytes], done: Callable[[], None] | None = None) -> bool:
        """Write a chunked event stream; True when it drips (``done`` is called after its last
        chunk, or when the connection is gone), False when it is written at once."""
        if self.transport is None:
            return False
        if self.echo:
            events = [e.replace(b"{key}", self.echo) for e in events]
        delay = self.server.chunk_delay_s
        if delay and self.server._loop is not None:
            self.transport.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Transfer-Encoding: chunked\r\nCache-Control: no-cache\r\n\r\n"
            )
            self._drip(list(events), delay, done)
            return done is not None
        parts = [
            b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Transfer-Encoding: chunked\r\nCache-Control: no-cache\r\n\r\n"
        ]
        parts.extend(b"%x\r\n%s\r\n" % (len(e), e) for e in events)
        parts.append(b"0\r\n\r\n")
        self.transport.write(b"".join(parts))
        return False

    def _drip(
        self, events: list[bytes], delay: float, done: Callable[[], None] | None = None
    ) -> None:
        """Write one event now and schedule the rest ``delay`` seconds apart."""
        if self.transport is None or not events:
            if self.transport is not None:
                self.transport.write(b"0\r\n\r\n")
            if done is not None:
                done()
            return
        event = events.pop(0)
        self.transport.write(b"%x\r\n%s\r\n" % (len(event), event))
        if not events:  # the last event: the stream ends with it, not one delay later
            self._drip(events, delay, done)
            return
        assert self.server._loop is not None
        self.server._loop.call_later(delay, self._drip, events, delay, done)
