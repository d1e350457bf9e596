"""``agentgauge report``: render a run as console, Markdown, JUnit, JSON, CSV or HTML."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import cast

import click

from ..errors import UserError
from ..report import REPORT_FORMATS, ReportFormat, write_report
from ._options import gates_option

#: formats that show a comparison against ``--baseline``
_WITH_BASELINE = frozenset({"console", "markdown", "html"})


@click.command("report")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS),
    default="console",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write to this file instead of stdout.",
)
@click.option(
    "--baseline",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A previous run of the same suite to compare against (console, markdown, html).",
)
@gates_option
def command(
    run_dir: Path, fmt: str, output: Path | None, baseline: Path | None, gates_file: Path | None
) -> None:
    """Render the run in RUN_DIR (a directory with results.jsonl and run.json)."""
    if baseline is not None and fmt not in _WITH_BASELINE:
        raise UserError(
            f"--baseline: the {fmt} report has no comparison "
            f"(use --format {', '.join(sorted(_WITH_BASELINE))}, or agentgauge compare)"
        )
    if output is None:
        write_report(
            run_dir, cast(ReportFormat, fmt), sys.stdout, baseline=baseline, gates_file=gates_file
        )
        return
    with open(output, "w", encoding="utf-8", newline="") as fh:
        write_report(
            run_dir,
            cast(ReportFormat, fmt),
            fh,
            baseline=baseline,
            gates_file=gates_file,
            color=False,
            width=120,
            output=output,
        )
    click.echo(f"wrote {fmt} report to {output}", err=True)
