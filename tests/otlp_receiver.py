"""A loopback OTLP/HTTP receiver for the tests: it decodes what it is sent as a collector does.

Protobuf bodies are parsed with the official ``opentelemetry-proto`` classes
(``ExportTraceServiceRequest``) and turned into OTLP's JSON mapping (hex ids), so a test reads
a protobuf request and a JSON one the same way. ``mode`` makes it misbehave: ``refuse`` answers
401 echoing every request header in its body (a receiver that quotes the credentials it
rejects), ``unsupported`` answers 415 to protobuf (as Arize Phoenix's JSON-less receivers do to
what they do not take), ``hang`` never answers until the test ends, ``flaky`` answers 503
(``Retry-After: 0``) to the first request, ``unavailable`` to every one.
"""

from __future__ import annotations

import base64
import gzip
import json
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agentgauge.exchange._otlp import decode_value


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: bytes
    doc: dict[str, Any] = field(default_factory=dict)


def _hex_ids(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {
            k: base64.b64decode(v).hex()
            if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str)
            else _hex_ids(v)
            for k, v in doc.items()
        }
    if isinstance(doc, list):
        return [_hex_ids(v) for v in doc]
    return doc


def decode_protobuf(body: bytes) -> dict[str, Any]:
    """An ``ExportTraceServiceRequest`` in protobuf as OTLP/JSON (hex ids, as OTLP writes)."""
    from google.protobuf import json_format
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

    message = trace_service_pb2.ExportTraceServiceRequest()
    message.ParseFromString(body)
    doc = json_format.MessageToDict(message, use_integers_for_enums=True)
    return dict(_hex_ids(doc))


class Receiver:
    def __init__(self, mode: str = "ok", tls: ssl.SSLContext | None = None) -> None:
        self.mode = mode
        self.requests: list[Request] = []
        #: the subject common name of each TLS client certificate presented (mutual TLS)
        self.client_names: list[str] = []
        self.release = threading.Event()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                if isinstance(self.connection, ssl.SSLSocket):
                    peer = self.connection.getpeercert() or {}
                    subject = peer.get("subject", ())
                    outer.client_names.extend(
                        v for rdn in subject for k, v in rdn if k == "commonName"
                    )
                body = self.rfile.read(int(self.headers["Content-Length"]))
                headers = {k.lower(): v for k, v in self.headers.items()}
                request = Request(self.path, headers, body)
                outer.requests.append(request)
                if outer.mode == "hang":
                    outer.release.wait(60)  # the test ends it at teardown
                    return
                if outer.mode == "unavailable" or (
                    outer.mode == "flaky" and len(outer.requests) == 1
                ):
                    self._answer(503, b"busy", retry_after="0")
                    return
                if outer.mode == "refuse":
                    self._answer(401, json.dumps(headers).encode())
                    return
                raw = gzip.decompress(body) if headers.get("content-encoding") == "gzip" else body
                protobuf = headers.get("content-type") == "application/x-protobuf"
                if protobuf and outer.mode == "unsupported":
                    self._answer(415, b"unsupported media type")
                    return
                request.doc = decode_protobuf(raw) if protobuf else json.loads(raw)
                self._answer(200, b"{}")

            def _answer(self, status: int, body: bytes, retry_after: str | None = None) -> None:
                self.send_response(status)
                if retry_after is not None:
                    self.send_header("Retry-After", retry_after)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        scheme = "http"
        if tls is not None:  # the handshake (and the client certificate's check) at accept
            self.server.socket = tls.wrap_socket(self.server.socket, server_side=True)
            scheme = "https"
        self.url = f"{scheme}://127.0.0.1:{self.server.server_address[1]}"

    def spans(self) -> list[dict[str, Any]]:
        return [
            s
            for r in self.requests
            for rs in r.doc.get("resourceSpans", [])
            for ss in rs["scopeSpans"]
            for s in ss["spans"]
        ]


def attrs(span: dict[str, Any]) -> dict[str, Any]:
    return {a["key"]: decode_value(a["value"]) for a in span.get("attributes", [])}


@pytest.fixture
def receiver_factory() -> Iterator[Any]:
    made: list[Receiver] = []

    def make(mode: str = "ok", tls: ssl.SSLContext | None = None) -> Receiver:
        r = Receiver(mode, tls)
        threading.Thread(target=r.server.serve_forever, daemon=True).start()
        made.append(r)
        return r

    yield make
    for r in made:
        r.release.set()
        r.server.shutdown()
        r.server.server_close()
