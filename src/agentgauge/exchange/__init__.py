"""Exchange with other systems: OpenTelemetry (OTLP/JSON spans read in ``_otlp``, traced
conversations imported in ``_otel_import`` / ``_otel_steps``, a run exported in
``_otel_export``), cases captured from traces (``_capture``), recorded model responses scored
without a model (``_responses`` reads the file in bounded memory, ``_response_decode`` decodes
its lines) and tools served over MCP (``_mcp``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._capture import CapturedCase, capture_cases
    from ._feedback import FEEDBACK_FILE, FeedbackLine, feedback_key, read_feedback
    from ._mcp import (
        McpCallResult,
        McpConnection,
        McpLoad,
        list_mcp_tools,
        mcp_source_from_cli,
        merge_tools,
        open_mcp,
    )
    from ._otel_export import OtelExport, export_run_otlp, results_to_otlp, trace_id_for
    from ._otlp_send import OtlpTarget, otlp_target
    from ._recorded import RecordedResponse
    from ._responses import ResponseSet, open_responses, read_responses

#: public name -> the module that defines it (imported on first use)
_EXPORTS: dict[str, str] = {
    "CapturedCase": "._capture",
    "capture_cases": "._capture",
    "FEEDBACK_FILE": "._feedback",
    "FeedbackLine": "._feedback",
    "feedback_key": "._feedback",
    "read_feedback": "._feedback",
    "McpCallResult": "._mcp",
    "McpConnection": "._mcp",
    "McpLoad": "._mcp",
    "list_mcp_tools": "._mcp",
    "mcp_source_from_cli": "._mcp",
    "merge_tools": "._mcp",
    "open_mcp": "._mcp",
    "OtelExport": "._otel_export",
    "export_run_otlp": "._otel_export",
    "results_to_otlp": "._otel_export",
    "trace_id_for": "._otel_export",
    "OtlpTarget": "._otlp_send",
    "otlp_target": "._otlp_send",
    "RecordedResponse": "._recorded",
    "ResponseSet": "._responses",
    "open_responses": "._responses",
    "read_responses": "._responses",
}

__all__ = [
    "FEEDBACK_FILE",
    "CapturedCase",
    "FeedbackLine",
    "McpCallResult",
    "McpConnection",
    "McpLoad",
    "OtelExport",
    "OtlpTarget",
    "RecordedResponse",
    "ResponseSet",
    "capture_cases",
    "export_run_otlp",
    "feedback_key",
    "list_mcp_tools",
    "mcp_source_from_cli",
    "merge_tools",
    "open_mcp",
    "open_responses",
    "otlp_target",
    "read_feedback",
    "read_responses",
    "results_to_otlp",
    "trace_id_for",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
