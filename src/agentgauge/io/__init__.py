"""Reading and writing files: suites, results, importers, exporters and tool converters."""

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
from ._responses import RecordedResponse, read_responses
from ._results import RESULTS_FILE, ResultsWriter, iter_results
from ._stream import StreamedSuite, open_suite
from ._text_calls import json_text_calls
from .importers import IMPORTERS, ImportOptions, import_suite

__all__ = [
    "EXPORT_FORMATS",
    "IMPORTERS",
    "RESPONSES_FILE",
    "RESULTS_FILE",
    "STRATA_TARGETS",
    "TOOL_FORMATS",
    "CategoryCount",
    "CategoryMix",
    "ExportFormat",
    "ImportOptions",
    "LintFinding",
    "LoadedSuite",
    "Origin",
    "RecordedResponse",
    "ResultsWriter",
    "Severity",
    "StreamedSuite",
    "SuiteCheck",
    "ToolFormat",
    "bfcl_schema_to_json_schema",
    "bfcl_type",
    "category_mix",
    "check_suite",
    "export_suite",
    "find_suite_file",
    "import_suite",
    "iter_results",
    "json_text_calls",
    "lint_suite",
    "load_cases",
    "load_suite",
    "open_suite",
    "read_responses",
    "read_suite",
    "read_tools_file",
    "responses_from_metadata",
    "tools_from_data",
    "tools_to_format",
    "write_responses",
    "write_suite",
]
