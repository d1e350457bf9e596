"""``agentgauge merge SHARD_DIR... -o RUN_DIR``: combine the shards of one run into one run."""

from __future__ import annotations

from pathlib import Path

import click

from .._messages import printable
from ..metrics import write_summary
from ..runner import merge_runs, suite_case_ids
from ._history import history_options


@click.command("merge")
@click.argument("runs", nargs=-1, required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    "out_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="The merged run directory (a new one, or an earlier merge to replace).",
)
@click.option(
    "--allow-missing",
    is_flag=True,
    help="Exit 0 even when shards or (case, trial) pairs are missing (the merge is written).",
)
@history_options
@click.pass_context
def command(
    ctx: click.Context,
    runs: tuple[Path, ...],
    out_dir: Path,
    allow_missing: bool,
    history: Path | None,
    no_history: bool,
) -> None:
    """Merge the run directories RUNS (the shards of one run) into one run directory.

    Writes the merged run's summary.json and, when no shard or pair is missing, adds it to the
    run history (as ``run`` does; a shard is never in the history). Exit 0: complete; 1: merged,
    but shards or pairs are missing; 2: refused (runs of different suites, agents or
    configurations, different verdicts for one pair, a line for a trial, shard or case the run
    does not have: its case ids are read from the suite run.json names when it is unchanged).
    """
    case_ids, why = suite_case_ids(runs)  # a line for a case the suite lacks is refused
    report = merge_runs(runs, out_dir, case_ids=case_ids)
    for line in report.lines():
        click.echo(printable(line))
    if why is not None:
        click.echo(printable(f"note: case ids not checked against the suite: {why}"))
    write_summary(report.run_dir, record=report.complete and not no_history, history=history)
    ctx.exit(0 if report.complete or allow_missing else 1)
