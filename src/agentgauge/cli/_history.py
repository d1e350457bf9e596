"""``agentgauge history``: a metric's trend across recorded runs."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from ..metrics import HISTORY_METRICS, history_path, read_history, sparkline


@click.command("history")
@click.option("--suite", default=None, help="Only runs of this suite.")
@click.option(
    "--metric",
    type=click.Choice(HISTORY_METRICS),
    default="pass_rate",
    show_default=True,
    help="Metric to show.",
)
@click.option("--limit", type=click.IntRange(1, 10000), default=20, show_default=True)
def command(suite: str | None, metric: str, limit: int) -> None:
    """Show METRIC over the latest runs (history file: $AGENTGAUGE_HISTORY or
    .agentgauge/history.sqlite)."""
    entries = read_history(suite=suite, limit=limit)
    if not entries:
        click.echo(f"no runs recorded in {history_path()}")
        return
    values = [e.metrics.get(metric) for e in entries]
    is_rate = not metric.endswith(("_ms", "_usd"))
    table = Table(show_edge=False, pad_edge=False)
    for col in ("started", "suite", "agent", "commit", "cases", metric):
        table.add_column(col, justify="right" if col in ("cases", metric) else "left")
    for e, v in zip(entries, values, strict=True):
        shown = "–" if v is None else f"{v * 100:.1f}%" if is_rate else f"{v:.4g}"
        table.add_row(
            e.started_at, e.suite, e.agent, (e.git_commit or "")[:10], str(e.cases), shown
        )
    console = Console()
    console.print(table)
    console.print(f"{metric}: {sparkline(values)}  (oldest → newest)")
