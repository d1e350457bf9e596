"""Reports of a run: console, Markdown (pull-request comment), JUnit XML, JSON, CSV and HTML."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._api import REPORT_FORMATS, ReportFormat, write_report
    from ._console import render_console
    from ._dashboard import (
        DASHBOARD_FILE,
        DashboardAgent,
        PairSignificance,
        dashboard_section,
        render_dashboard,
    )
    from ._dashboard_matrix import matrix_dashboard, write_matrix_dashboard
    from ._dashboard_runs import dashboard_from_runs, write_dashboard
    from ._files import CSV_COLUMNS, write_csv, write_junit
    from ._html import INLINE_LIMIT, HtmlReport, render_html, write_html
    from ._load_html import LOAD_HTML_FILE, render_load_html, write_load_html
    from ._load_text import load_lines
    from ._markdown import MARKER, render_markdown
    from ._matrix import (
        MATRIX_MARKER,
        MatrixTable,
        matrix_lines,
        matrix_tables,
        render_matrix_markdown,
        write_matrix_junit,
    )
    from ._matrix_console import render_matrix_console
    from ._matrix_write import write_matrix_reports
    from ._pairwise import pairwise_lines, pairwise_markdown
    from ._text import comparison_lines, gate_lines

#: public name -> the module that defines it (imported on first use)
_EXPORTS: dict[str, str] = {
    "REPORT_FORMATS": "._api",
    "ReportFormat": "._api",
    "write_report": "._api",
    "render_console": "._console",
    "DASHBOARD_FILE": "._dashboard",
    "DashboardAgent": "._dashboard",
    "PairSignificance": "._dashboard",
    "dashboard_section": "._dashboard",
    "render_dashboard": "._dashboard",
    "matrix_dashboard": "._dashboard_matrix",
    "write_matrix_dashboard": "._dashboard_matrix",
    "dashboard_from_runs": "._dashboard_runs",
    "write_dashboard": "._dashboard_runs",
    "CSV_COLUMNS": "._files",
    "write_csv": "._files",
    "write_junit": "._files",
    "INLINE_LIMIT": "._html",
    "HtmlReport": "._html",
    "render_html": "._html",
    "write_html": "._html",
    "LOAD_HTML_FILE": "._load_html",
    "render_load_html": "._load_html",
    "write_load_html": "._load_html",
    "load_lines": "._load_text",
    "MARKER": "._markdown",
    "render_markdown": "._markdown",
    "MATRIX_MARKER": "._matrix",
    "MatrixTable": "._matrix",
    "matrix_lines": "._matrix",
    "matrix_tables": "._matrix",
    "render_matrix_markdown": "._matrix",
    "write_matrix_junit": "._matrix",
    "render_matrix_console": "._matrix_console",
    "write_matrix_reports": "._matrix_write",
    "pairwise_lines": "._pairwise",
    "pairwise_markdown": "._pairwise",
    "comparison_lines": "._text",
    "gate_lines": "._text",
}

__all__ = [
    "CSV_COLUMNS",
    "DASHBOARD_FILE",
    "INLINE_LIMIT",
    "LOAD_HTML_FILE",
    "MARKER",
    "MATRIX_MARKER",
    "REPORT_FORMATS",
    "DashboardAgent",
    "HtmlReport",
    "MatrixTable",
    "PairSignificance",
    "ReportFormat",
    "comparison_lines",
    "dashboard_from_runs",
    "dashboard_section",
    "gate_lines",
    "load_lines",
    "matrix_dashboard",
    "matrix_lines",
    "matrix_tables",
    "pairwise_lines",
    "pairwise_markdown",
    "render_console",
    "render_dashboard",
    "render_html",
    "render_load_html",
    "render_markdown",
    "render_matrix_console",
    "render_matrix_markdown",
    "write_csv",
    "write_dashboard",
    "write_html",
    "write_junit",
    "write_load_html",
    "write_matrix_dashboard",
    "write_matrix_junit",
    "write_matrix_reports",
    "write_report",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
