"""``agentgauge compare``: paired comparison of two runs of the same suite."""

from __future__ import annotations

from pathlib import Path

import click

from ..metrics import compare
from ..report import comparison_lines


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
def command(base_run: Path, new_run: Path, detect_points: float, seed: int, as_json: bool) -> None:
    """Compare NEW_RUN against BASE_RUN case by case (fixed / broken, McNemar, paired CIs)."""
    result = compare(base_run, new_run, detect_points=detect_points, seed=seed)
    if as_json:
        click.echo(result.model_dump_json(indent=2))
        return
    for line in comparison_lines(result, listed=30):
        click.echo(line)
