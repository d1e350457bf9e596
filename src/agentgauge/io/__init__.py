"""Reading and writing files: suites, results, importers, exporters and tool converters."""

from ._convert import (
    TOOL_FORMATS,
    ToolFormat,
    bfcl_schema_to_json_schema,
    read_tools_file,
    tools_from_data,
    tools_to_format,
)
from ._loader import LoadedSuite, Origin, load_cases, load_suite, read_suite
from ._results import RESULTS_FILE, ResultsWriter, iter_results

__all__ = [
    "RESULTS_FILE",
    "TOOL_FORMATS",
    "LoadedSuite",
    "Origin",
    "ResultsWriter",
    "ToolFormat",
    "bfcl_schema_to_json_schema",
    "iter_results",
    "load_cases",
    "load_suite",
    "read_suite",
    "read_tools_file",
    "tools_from_data",
    "tools_to_format",
]
