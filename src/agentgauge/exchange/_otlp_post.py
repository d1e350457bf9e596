"""Sending traces to an OTLP receiver over the protocol its target names: OTLP/HTTP
(``_otlp_send``) or OTLP/gRPC (``_otlp_grpc``, whose ``grpcio`` is imported only then)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._otlp_send import OtlpTarget, post_http

__all__ = ["post_documents"]


def post_documents(documents: Iterable[Mapping[str, Any]], target: OtlpTarget) -> int:
    """Send each OTLP/JSON document to ``target``; the number of spans sent. Each request gets
    at most ``target.timeout_s`` seconds, however the receiver behaves. Raises
    :class:`agentgauge.errors.UserError` when it cannot be reached, refuses or does not answer."""
    if target.protocol == "grpc":
        from ._otlp_grpc import post_grpc

        return post_grpc(documents, target)
    return post_http(documents, target)
