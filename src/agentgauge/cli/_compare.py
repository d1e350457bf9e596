"""``agentgauge compare``: paired comparison of two runs of the same suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import orjson

from .._messages import printable
from ..errors import UserError
from ..metrics import Comparison, compare
from ..report import comparison_lines
from . import _pairwise


@click.command("compare")
@click.argument("base_run", type=click.Path(file_okay=False, path_type=Path))
@click.argument("new_run", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--detect",
    "detect_points",
    type=click.FloatRange(0.1, 100),
    default=5.0,
    show_default=True,
    help="Size of change (percentage points) the sample-size estimate is for.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Bootstrap seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option(
    "--allow-user-change",
    is_flag=True,
    help="Compare runs whose simulated users differ (kind, model, template or seed), marked "
    "as such; without it they are refused (docs/users.md).",
)
@_pairwise.judge_options
def command(
    base_run: Path,
    new_run: Path,
    detect_points: float,
    seed: int,
    as_json: bool,
    allow_user_change: bool,
    **judge: Any,
) -> None:
    """Compare NEW_RUN against BASE_RUN case by case (fixed / broken, McNemar, paired CIs);
    with --judge, also ask a judge which final reply is better, in both orders.

    Exit 0 when compared (whatever changed), 2 when there is nothing to compare: a run is
    missing, a matrix folder is given (compare two of its members), the runs share no case,
    or their simulated users differ (without --allow-user-change).
    """
    for run in (base_run, new_run):
        refuse_matrix_folder(run)
    result = compare(base_run, new_run, detect_points=detect_points, seed=seed)
    refuse_unpaired(result)
    if result.user_mismatch is not None:
        if not allow_user_change:
            raise UserError(
                f"{new_run}: the runs' simulated users differ: {result.user_mismatch}; run both "
                "with the same user simulator, or pass --allow-user-change to compare anyway"
            )
        click.echo(printable(f"warning: USER SIMULATORS DIFFER: {result.user_mismatch}"), err=True)
    for warning in result.warnings:
        if warning.startswith("the runs are of different suites"):
            click.echo(
                printable(f"warning: {warning}; only the cases with the same id are paired"),
                err=True,
            )
    pairwise = _pairwise.judge_runs(base_run, new_run, **judge)
    if as_json:
        if pairwise is None:
            click.echo(result.model_dump_json(indent=2))
            return
        data = {**result.model_dump(mode="json"), "pairwise": pairwise.model_dump(mode="json")}
        click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
        return
    for line in comparison_lines(result, listed=30):
        click.echo(line)
    _pairwise.echo(pairwise)


def refuse_matrix_folder(run: Path) -> None:
    """A matrix folder holds one run per agent: say which to compare instead of failing on
    its missing ``results.jsonl``."""
    from ..runner import is_matrix_dir, read_manifest

    if not is_matrix_dir(run):
        return
    members = read_manifest(run).members
    labels = [m.label for m in members]
    done = [m.label for m in members if m.state == "done"]
    shown = done if len(done) > 1 else labels
    pair = f"{run}/{shown[0]} {run}/{shown[1]}" if len(shown) > 1 else f"{run}/LABEL RUN"
    raise UserError(
        f"{run}: a matrix folder (one run per agent: {', '.join(labels) or 'no members'}), not "
        f"a run; compare two of its members, e.g. agentgauge compare {pair} (the members' own "
        f"comparison is {run}/comparison.md, agentgauge report {run})"
    )


def refuse_unpaired(result: Comparison) -> None:
    """Runs that share no case have nothing to compare: an exit 0 with "McNemar p = 1" would
    read as "no change"."""
    if result.paired:
        return
    why = next((w for w in result.warnings if "different suites" in w), None)
    counts = result.counts
    raise UserError(
        f"{result.new_run}: shares no case with {result.base_run} "
        f"({counts.get('removed', 0)} case(s) only in the base, {counts.get('new', 0)} only in "
        "the new run" + (f"; {why}" if why else "") + "): nothing to compare; compare two runs "
        "of the same suite"
    )
