"""Suite files: loading a suite file or folder with ``file:line`` problems (``_loader``),
streaming a large one case by case (``_stream``), linting it (``_lint*``) and writing it back or
exporting it to other formats (``_export``)."""

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
from ._stream import StreamedSuite, open_suite

__all__ = [
    "EXPORT_FORMATS",
    "RESPONSES_FILE",
    "STRATA_TARGETS",
    "CategoryCount",
    "CategoryMix",
    "ExportFormat",
    "LintFinding",
    "LoadedSuite",
    "Origin",
    "Severity",
    "StreamedSuite",
    "SuiteCheck",
    "category_mix",
    "check_suite",
    "export_suite",
    "find_suite_file",
    "lint_suite",
    "load_cases",
    "load_suite",
    "open_suite",
    "read_suite",
    "responses_from_metadata",
    "write_responses",
    "write_suite",
]
