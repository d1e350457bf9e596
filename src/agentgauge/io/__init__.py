"""Reading and writing files: suites, results, importers, exporters and tool converters."""

from ._capture import CapturedCase, capture_cases
from ._convert import (
    TOOL_FORMATS,
    ToolFormat,
    bfcl_schema_to_json_schema,
    bfcl_type,
    read_tools_file,
    tools_from_data,
    tools_to_format,
)
from ._export import (
    EXPORT_FORMATS,
    RESPONSES_FILE,
    ExportFormat,
    export_suite,
    responses_from_metadata,
    write_responses,
    write_suite,
)
from ._lint import (
    STRATA_TARGETS,
    CategoryCount,
    CategoryMix,
    LintFinding,
    Severity,
    SuiteCheck,
    category_mix,
    check_suite,
    lint_suite,
)
from ._loader import LoadedSuite, Origin, find_suite_file, load_cases, load_suite, read_suite
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
from ._responses import RecordedResponse, read_responses
from ._results import RESULTS_FILE, ResultsWriter, iter_results
from ._stream import StreamedSuite, open_suite
from ._text_calls import json_text_calls
from ._transcripts import (
    TRANSCRIPT_FORMATS,
    TranscriptError,
    TranscriptFormat,
    detect_format,
    messages_from_data,
)
from ._transcripts_write import messages_to_format
from ._yaml import Document, read_document, read_yaml_text
from ._yaml_errors import validation_problems
from .importers import IMPORTERS, ImportOptions, import_suite

__all__ = [
    "EXPORT_FORMATS",
    "IMPORTERS",
    "RESPONSES_FILE",
    "RESULTS_FILE",
    "STRATA_TARGETS",
    "TOOL_FORMATS",
    "TRANSCRIPT_FORMATS",
    "CapturedCase",
    "CategoryCount",
    "CategoryMix",
    "Document",
    "ExportFormat",
    "ImportOptions",
    "LintFinding",
    "LoadedSuite",
    "McpCallResult",
    "McpConnection",
    "McpLoad",
    "Origin",
    "OtelExport",
    "RecordedResponse",
    "ResultsWriter",
    "Severity",
    "StreamedSuite",
    "SuiteCheck",
    "ToolFormat",
    "TranscriptError",
    "TranscriptFormat",
    "bfcl_schema_to_json_schema",
    "bfcl_type",
    "capture_cases",
    "category_mix",
    "check_suite",
    "detect_format",
    "export_run_otlp",
    "export_suite",
    "find_suite_file",
    "import_suite",
    "iter_results",
    "json_text_calls",
    "lint_suite",
    "list_mcp_tools",
    "load_cases",
    "load_suite",
    "mcp_source_from_cli",
    "merge_tools",
    "messages_from_data",
    "messages_to_format",
    "open_mcp",
    "open_suite",
    "read_document",
    "read_responses",
    "read_suite",
    "read_tools_file",
    "read_yaml_text",
    "responses_from_metadata",
    "results_to_otlp",
    "tools_from_data",
    "tools_to_format",
    "validation_problems",
    "write_responses",
    "write_suite",
]
