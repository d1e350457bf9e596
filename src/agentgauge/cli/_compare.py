"""``agentgauge compare``: paired comparison of two runs of the same suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import orjson

from ..metrics import compare
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
@_pairwise.judge_options
def command(
    base_run: Path,
    new_run: Path,
    detect_points: float,
    seed: int,
    as_json: bool,
    **judge: Any,
) -> None:
    """Compare NEW_RUN against BASE_RUN case by case (fixed / broken, McNemar, paired CIs);
    with --judge, also ask a judge which final reply is better, in both orders."""
    result = compare(base_run, new_run, detect_points=detect_points, seed=seed)
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
