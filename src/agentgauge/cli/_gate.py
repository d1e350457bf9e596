"""``agentgauge gate``: check a run against gate thresholds (exit 0 pass, 1 fail, 2 usage)."""

from __future__ import annotations

from pathlib import Path

import click

from ..metrics import gate_run
from ..report import gate_lines
from ._options import gates_option


@click.command("gate")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--baseline",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A previous run of the same suite: regressions against it are gated too.",
)
@gates_option
@click.option("--json", "as_json", is_flag=True, help="Print the gate report as JSON.")
@click.pass_context
def command(
    ctx: click.Context,
    run_dir: Path,
    baseline: Path | None,
    gates_file: Path | None,
    as_json: bool,
) -> None:
    """Check the run in RUN_DIR against its gates; exit 1 when any check fails."""
    _, report, _ = gate_run(run_dir, gates_file=gates_file, baseline=baseline)
    if as_json:
        click.echo(report.model_dump_json(indent=2))
    else:
        for line in gate_lines(report):
            click.echo(line)
    ctx.exit(0 if report.passed else 1)
