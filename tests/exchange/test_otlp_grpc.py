"""OTLP/gRPC export (``--protocol grpc`` / ``OTEL_EXPORTER_OTLP_PROTOCOL=grpc``) against a real
gRPC receiver on loopback (``grpcio``'s server with the collector's TraceService/Export method,
the request decoded by the official proto classes): the spans arrive, headers travel as
metadata, gzip as gRPC compression, TLS and mutual TLS from the same variables as OTLP/HTTP;
a busy receiver is retried within the timeout, a refusing one is one line with its header
values hidden, a hanging one gets the timeout and no more. Before, ``grpc`` was refused."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from otlp_pki import pki
from otlp_receiver import attrs, decode_protobuf

grpc = pytest.importorskip("grpc")

__all__ = ["pki"]  # the fixture, imported for pytest

METHOD = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
SECRET = "grpc-header-secret-value"
SUITE = """
name: grpc
cases:
  - id: hello
    input: Say hello.
    expect: {behavior: answer}
  - id: bye
    input: Say goodbye.
    expect: {behavior: answer}
"""


@dataclass
class GrpcReceiver:
    mode: str = "ok"
    calls: list[dict[str, Any]] = field(default_factory=list)
    docs: list[dict[str, Any]] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    url: str = ""

    def export(self, request: bytes, context: Any) -> bytes:
        metadata = dict(context.invocation_metadata())
        self.calls.append(metadata)
        if self.mode == "refuse":
            context.abort(grpc.StatusCode.UNAUTHENTICATED, f"bad token {metadata}")
        if self.mode == "busy-once" and len(self.calls) == 1:
            context.abort(grpc.StatusCode.UNAVAILABLE, "warming up")
        if self.mode == "hang":
            self.release.wait(60)
        self.docs.append(decode_protobuf(request))
        return b""  # an empty ExportTraceServiceResponse

    def spans(self) -> list[dict[str, Any]]:
        return [
            s
            for d in self.docs
            for rs in d.get("resourceSpans", [])
            for ss in rs["scopeSpans"]
            for s in ss["spans"]
        ]


@pytest.fixture
def grpc_receiver() -> Iterator[Any]:
    made: list[tuple[Any, GrpcReceiver]] = []

    def make(mode: str = "ok", credentials: Any = None) -> GrpcReceiver:
        receiver = GrpcReceiver(mode)
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        handler = grpc.unary_unary_rpc_method_handler(receiver.export)  # bytes in and out
        server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler(METHOD.split("/")[1], {"Export": handler}),)
        )
        if credentials is None:
            port = server.add_insecure_port("127.0.0.1:0")
            receiver.url = f"http://127.0.0.1:{port}"
        else:
            port = server.add_secure_port("127.0.0.1:0", credentials)
            receiver.url = f"https://127.0.0.1:{port}"
        server.start()
        made.append((server, receiver))
        return receiver

    yield make
    for server, receiver in made:
        receiver.release.set()
        server.stop(0)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    (tmp_path / "suite.yaml").write_text(SUITE)
    script = tmp_path / "script.jsonl"
    script.write_text((json.dumps({"text": "Hello!"}) + "\n") * 2)
    out = tmp_path / "run"
    result = _cli("run", str(tmp_path / "suite.yaml"), "--agent", f"mock:{script}", "-o", str(out),
                  "--no-cache", "--no-history", env={})  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def _cli(*args: str, env: dict[str, str]) -> Result:
    return CliRunner().invoke(cli, list(args), env=env)


def _export(run_dir: Path, url: str, **env: str) -> Result:
    variables = {f"OTEL_EXPORTER_OTLP_{k}": v for k, v in env.items()}
    variables.setdefault("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    return _cli("export-otel", str(run_dir), "--endpoint", url, env=variables)


def _one_line_error(result: Result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    return lines[0]


def test_spans_headers_and_gzip_reach_a_grpc_receiver(run_dir: Path, grpc_receiver: Any) -> None:
    receiver = grpc_receiver()
    result = _export(
        run_dir, receiver.url, HEADERS=f"authorization=Bearer%20{SECRET},x-team=evals",
        COMPRESSION="gzip",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    case_ids = {attrs(s).get("agentgauge.case.id") for s in receiver.spans()}
    assert {"hello", "bye"} <= case_ids
    [metadata] = receiver.calls
    assert metadata["authorization"] == f"Bearer {SECRET}"
    assert metadata["x-team"] == "evals"


def test_gzip_is_asked_of_grpc_for_each_call() -> None:
    # the receiver cannot see the wire encoding (grpcio decompresses and hides its metadata)
    from agentgauge.exchange._otlp_grpc import _export
    from agentgauge.exchange._otlp_send import OtlpTarget

    seen: list[dict[str, Any]] = []

    def call(body: bytes, **kw: Any) -> bytes:
        seen.append(kw)
        return b""

    for compression, expected in (("gzip", grpc.Compression.Gzip), ("none", None)):
        target = OtlpTarget(url="http://127.0.0.1:4317", protocol="grpc", compression=compression)
        _export(grpc, call, target, b"")
        assert seen[-1]["compression"] == expected


def test_the_protocol_option_and_the_endpoint_variable(run_dir: Path, grpc_receiver: Any) -> None:
    receiver = grpc_receiver()
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url}
    result = _cli("export-otel", str(run_dir), "--protocol", "grpc", env=env)
    assert result.exit_code == 0, result.output
    assert receiver.spans()


def test_a_busy_receiver_is_retried_within_the_timeout(run_dir: Path, grpc_receiver: Any) -> None:
    receiver = grpc_receiver("busy-once")
    result = _export(run_dir, receiver.url, TIMEOUT="8000")
    assert result.exit_code == 0, result.output
    assert len(receiver.calls) == 2
    assert receiver.spans()


def test_a_refusal_is_one_line_without_header_values(run_dir: Path, grpc_receiver: Any) -> None:
    receiver = grpc_receiver("refuse")
    line = _one_line_error(_export(run_dir, receiver.url, HEADERS=f"authorization={SECRET}"))
    assert "OTLP export failed: gRPC UNAUTHENTICATED" in line
    assert SECRET not in line
    assert len(receiver.calls) == 1  # not retried


def test_a_hanging_receiver_gets_the_timeout(run_dir: Path, grpc_receiver: Any) -> None:
    receiver = grpc_receiver("hang")
    line = _one_line_error(_export(run_dir, receiver.url, TIMEOUT="500"))
    assert "no answer within 0.5 s" in line


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://127.0.0.1:4317", "an OTLP/gRPC endpoint is http://HOST:PORT"),
        ("http://user:pw@127.0.0.1:4317", "credentials in the URL are not sent"),
    ],
)
def test_a_bad_grpc_endpoint_is_one_line(run_dir: Path, url: str, message: str) -> None:
    line = _one_line_error(_export(run_dir, url))
    assert message in line
    assert "pw" not in line


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl CLI")
def test_mutual_tls_over_grpc(run_dir: Path, grpc_receiver: Any, pki: Path) -> None:
    credentials = grpc.ssl_server_credentials(
        [((pki / "receiver.key").read_bytes(), (pki / "receiver.pem").read_bytes())],
        root_certificates=(pki / "test-ca.pem").read_bytes(),
        require_client_auth=True,
    )
    receiver = grpc_receiver(credentials=credentials)
    ok = _export(
        run_dir,
        receiver.url,
        CERTIFICATE=str(pki / "test-ca.pem"),
        CLIENT_CERTIFICATE=str(pki / "agentgauge-client.pem"),
        CLIENT_KEY=str(pki / "agentgauge-client.key"),
    )
    assert ok.exit_code == 0, ok.output
    assert receiver.spans()
    # no client certificate: the receiver refuses the connection, within the timeout
    refused = _export(run_dir, receiver.url, CERTIFICATE=str(pki / "test-ca.pem"), TIMEOUT="3000")
    assert "OTLP export failed" in _one_line_error(refused)
    # a client certificate on a plain-text endpoint would never be sent: refused
    plain = _export(run_dir, receiver.url.replace("https", "http"),
                    CLIENT_CERTIFICATE=str(pki / "agentgauge-client.pem"))  # fmt: skip
    assert "needs an https:// endpoint" in _one_line_error(plain)
