"""Reports of a run: console, Markdown (pull-request comment), JUnit XML, JSON, CSV and HTML."""

from ._api import REPORT_FORMATS, ReportFormat, write_report
from ._console import render_console
from ._files import CSV_COLUMNS, write_csv, write_junit
from ._html import INLINE_LIMIT, HtmlReport, render_html, write_html
from ._markdown import MARKER, render_markdown
from ._matrix import (
    MATRIX_MARKER,
    MatrixTable,
    matrix_lines,
    matrix_tables,
    render_matrix_console,
    render_matrix_markdown,
    write_matrix_junit,
    write_matrix_reports,
)
from ._pairwise import pairwise_lines, pairwise_markdown
from ._text import comparison_lines, gate_lines

__all__ = [
    "CSV_COLUMNS",
    "INLINE_LIMIT",
    "MARKER",
    "MATRIX_MARKER",
    "REPORT_FORMATS",
    "HtmlReport",
    "MatrixTable",
    "ReportFormat",
    "comparison_lines",
    "gate_lines",
    "matrix_lines",
    "matrix_tables",
    "pairwise_lines",
    "pairwise_markdown",
    "render_console",
    "render_html",
    "render_markdown",
    "render_matrix_console",
    "render_matrix_markdown",
    "write_csv",
    "write_html",
    "write_junit",
    "write_matrix_junit",
    "write_matrix_reports",
    "write_report",
]
