"""Suite files: loading a suite file or folder with ``file:line`` problems (``_loader``),
streaming a large one case by case (``_stream``), linting it (``_lint*``; loaded and linted in
one step, ``_check``) and writing it back or exporting it to other formats (``_export``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._check import SuiteCheck, check_suite
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
        category_mix,
        lint_suite,
    )
    from ._loader import LoadedSuite, Origin, find_suite_file, load_cases, load_suite, read_suite
    from ._stream import StreamedSuite, open_suite

#: public name -> the module that defines it (imported on first use)
_EXPORTS: dict[str, str] = {
    "EXPORT_FORMATS": "._export",
    "RESPONSES_FILE": "._export",
    "ExportFormat": "._export",
    "export_suite": "._export",
    "responses_from_metadata": "._export",
    "write_responses": "._export",
    "write_suite": "._export",
    "STRATA_TARGETS": "._lint",
    "CategoryCount": "._lint",
    "CategoryMix": "._lint",
    "LintFinding": "._lint",
    "Severity": "._lint",
    "SuiteCheck": "._check",
    "category_mix": "._lint",
    "check_suite": "._check",
    "lint_suite": "._lint",
    "LoadedSuite": "._loader",
    "Origin": "._loader",
    "find_suite_file": "._loader",
    "load_cases": "._loader",
    "load_suite": "._loader",
    "read_suite": "._loader",
    "StreamedSuite": "._stream",
    "open_suite": "._stream",
}

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

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
