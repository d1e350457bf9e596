"""A matrix run's reports written: ``agentgauge report OUT`` of a matrix folder in any format
(the console's comes from ``_matrix_console``, the HTML from ``_dashboard_matrix``), and the
files of the matrix folder (``comparison.json``, ``comparison.md``, ``junit.xml``, the
dashboard). Above the renderers it calls."""

from __future__ import annotations

import io
from pathlib import Path
from typing import IO

from .._suite_code import open_regular
from ..metrics import MatrixComparison, write_comparison
from ._matrix import JUNIT_FILE, MARKDOWN_FILE, render_matrix_markdown, write_matrix_junit

__all__ = ["write_matrix_report", "write_matrix_reports"]


def write_matrix_report(
    out_dir: Path | str,
    fmt: str,
    out: IO[str],
    *,
    baseline: Path | None = None,
    gates_file: Path | None = None,
    color: bool | None = None,
    width: int | None = None,
) -> None:
    """``agentgauge report OUT`` of a matrix folder: the comparison, computed again from the
    members' runs with each member's gates (``gates_file``, else the suite's), as ``fmt``."""
    from ..errors import UserError
    from ..metrics import compare_matrix

    if baseline is not None:
        raise UserError(
            f"--baseline: {out_dir} holds many agents, compared with each other; compare one "
            f"member with a baseline: agentgauge report {out_dir}/LABEL --baseline RUN"
        )
    if fmt == "csv":
        raise UserError(
            f"{out_dir}: the csv report is of one run: agentgauge report {out_dir}/LABEL "
            "--format csv"
        )
    comparison = compare_matrix(out_dir, gate=True, gates_file=gates_file)
    if fmt == "json":
        out.write(comparison.model_dump_json(indent=2) + "\n")
    elif fmt == "markdown":
        out.write(render_matrix_markdown(comparison) + "\n")
    elif fmt == "junit":
        write_matrix_junit(out_dir, comparison, out)
    elif fmt == "html":
        from ._dashboard_matrix import matrix_dashboard

        out.write(matrix_dashboard(comparison))
    else:
        from rich.console import Console

        from ._matrix_console import render_matrix_console

        console = Console(file=out, force_terminal=color, no_color=color is False, width=width)
        render_matrix_console(comparison, console)


def write_matrix_reports(out_dir: Path | str, comparison: MatrixComparison) -> list[Path]:
    """Write the matrix folder's reports: ``comparison.json``, ``comparison.md``,
    ``junit.xml`` and the HTML dashboard; returns their paths."""
    out_dir = Path(out_dir)
    paths = [write_comparison(out_dir, comparison)]
    md = out_dir / MARKDOWN_FILE
    # regular files of the matrix folder only: a symlink planted in their place is refused
    with open_regular(md, "wb") as raw:
        raw.write((render_matrix_markdown(comparison) + "\n").encode())
    paths.append(md)
    junit = out_dir / JUNIT_FILE
    with open_regular(junit, "wb") as raw, io.TextIOWrapper(raw, "utf-8", newline="") as fh:
        write_matrix_junit(out_dir, comparison, fh)
    paths.append(junit)
    from ._dashboard_matrix import write_matrix_dashboard  # OUT/dashboard.html (docs/reports.md)

    paths.append(write_matrix_dashboard(out_dir, comparison))
    return paths
