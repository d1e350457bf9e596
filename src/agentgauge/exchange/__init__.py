"""Exchange with other systems: OpenTelemetry (OTLP/JSON spans read in ``_otlp``, traced
conversations imported in ``_otel_import`` / ``_otel_steps``, a run exported in
``_otel_export``), cases captured from traces (``_capture``), recorded model responses scored
without a model (``_responses``) and tools served over MCP (``_mcp``)."""

from ._capture import CapturedCase, capture_cases
from ._mcp import (
    McpCallResult,
    McpConnection,
    McpLoad,
    list_mcp_tools,
    mcp_source_from_cli,
    merge_tools,
    open_mcp,
)
from ._otel_export import OtelExport, export_run_otlp, results_to_otlp
from ._otlp_send import OtlpTarget, otlp_target
from ._recorded import RecordedResponse
from ._responses import read_responses

__all__ = [
    "CapturedCase",
    "McpCallResult",
    "McpConnection",
    "McpLoad",
    "OtelExport",
    "OtlpTarget",
    "RecordedResponse",
    "capture_cases",
    "export_run_otlp",
    "list_mcp_tools",
    "mcp_source_from_cli",
    "merge_tools",
    "open_mcp",
    "otlp_target",
    "read_responses",
    "results_to_otlp",
]
