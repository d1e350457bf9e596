"""Sending traces to an OTLP/gRPC receiver (``OTEL_EXPORTER_OTLP_PROTOCOL=grpc``, a collector's
port 4317), configured by the same ``OTEL_EXPORTER_OTLP_*`` variables as OTLP/HTTP.

The endpoint is ``http://host:port`` (plain text) or ``https://host:port`` (TLS: the CA bundle
of ``..._CERTIFICATE``, else the system's; mutual TLS with ``..._CLIENT_CERTIFICATE`` /
``..._CLIENT_KEY``), used as is: gRPC has no ``/v1/traces`` path, the method is
``opentelemetry.proto.collector.trace.v1.TraceService/Export``. Headers travel as metadata,
``gzip`` compression as gRPC's. The request is the protobuf ``ExportTraceServiceRequest`` the
HTTP exporter sends, passed to ``grpcio`` as bytes (no generated stub is needed).

As the specification says, UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED, CANCELLED, OUT_OF_RANGE
and DATA_LOSS are retried with backoff (1, 2, 4 ... s) within the timeout, which bounds each
document whatever the receiver does; any other status fails at once. An error names the
endpoint and the status, with every header value hidden.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from ..errors import MissingExtraError, UserError
from ..files import read_bytes
from ._otlp_send import OtlpTarget, _hide, _spans_in, encode_request, grpc_address

__all__ = ["EXPORT_METHOD", "post_grpc"]

EXPORT_METHOD: Final = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
_RETRYABLE: Final = frozenset(
    {"UNAVAILABLE", "RESOURCE_EXHAUSTED", "ABORTED", "CANCELLED", "OUT_OF_RANGE", "DATA_LOSS"}
)


def _credentials(grpc: Any, target: OtlpTarget) -> Any:
    def read(found: tuple[str, str] | None) -> bytes | None:
        if found is None:
            return None
        var, path = found
        return read_bytes(Path(path), path, referenced_at=var)

    ca = (
        read(("OTEL_EXPORTER_OTLP_CERTIFICATE", target.certificate)) if target.certificate else None
    )
    chain = read(target.client_certificate)
    key = read(target.client_key) if target.client_key is not None else chain
    return grpc.ssl_channel_credentials(
        root_certificates=ca, private_key=key if chain else None, certificate_chain=chain
    )


def _channel(grpc: Any, target: OtlpTarget) -> Any:
    address, tls = grpc_address(target.url, target.shown)
    options = [("grpc.enable_retries", 0), ("grpc.max_receive_message_length", 4 * 1024 * 1024)]
    if tls:
        return grpc.secure_channel(address, _credentials(grpc, target), options=options)
    if target.client_certificate is not None:
        raise UserError(
            f"{target.client_certificate[0]}: a client certificate needs an https:// endpoint "
            f"(the endpoint is {target.shown})"
        )
    return grpc.insecure_channel(address, options=options)


def _export(grpc: Any, call: Any, target: OtlpTarget, body: bytes) -> None:
    """One document, retried on the retryable statuses within the timeout."""
    import time

    deadline = time.monotonic() + target.timeout_s
    metadata = tuple(target.headers)
    compression = grpc.Compression.Gzip if target.compression == "gzip" else None
    delay = 1.0
    while True:
        left = deadline - time.monotonic()
        try:
            call(body, timeout=max(0.001, left), metadata=metadata, compression=compression)
            return
        except grpc.RpcError as err:
            code = err.code().name if callable(getattr(err, "code", None)) else "UNKNOWN"
            details = err.details() if callable(getattr(err, "details", None)) else ""
        if code == "DEADLINE_EXCEEDED" or time.monotonic() >= deadline:
            raise UserError(
                f"{target.shown}: OTLP export failed: no answer within {target.timeout_s:g} s "
                f"(timeout from {target.timeout_from}; last status gRPC {code})"
            )
        if code not in _RETRYABLE or time.monotonic() + delay >= deadline:
            shown = _hide(str(details or "")[:300], target)
            raise UserError(f"{target.shown}: OTLP export failed: gRPC {code}: {shown!r}")
        time.sleep(delay)
        delay *= 2


def post_grpc(documents: Iterable[Mapping[str, Any]], target: OtlpTarget) -> int:
    """Export each OTLP/JSON document over gRPC; the number of spans sent. Raises
    :class:`UserError` when the receiver cannot be reached, refuses or does not answer."""
    try:
        import grpc
    except ImportError:
        raise MissingExtraError("grpcio", "otlp-grpc") from None
    channel = _channel(grpc, target)
    try:
        call = channel.unary_unary(EXPORT_METHOD)  # bytes in, bytes out: no stub needed
        sent = 0
        for doc in documents:
            body, _ = encode_request(doc, "http/protobuf")
            _export(grpc, call, target, body)
            sent += _spans_in(doc)
        return sent
    finally:
        channel.close()
