"""``agentgauge history``: the trend of each metric across the recorded runs of a suite and agent.

Also the ``--history PATH`` / ``--no-history`` options that ``run`` and ``score`` share.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from ..metrics import HistoryEntry, MetricTrend

__all__ = ["command", "history_options", "judge_samples_option"]

F = TypeVar("F", bound=Callable[..., Any])

_HISTORY_HELP = (
    "Run history file (default: $AGENTGAUGE_HISTORY, else "
    "$XDG_DATA_HOME/agentgauge/history.sqlite, i.e. ~/.local/share/agentgauge/history.sqlite)."
)

#: ``--history PATH`` (stored as ``history``)
history_option = click.option(
    "--history",
    "history",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=_HISTORY_HELP,
)


#: ``--judge-samples K`` (stored as ``judge_samples``): for ``run`` and ``score``
judge_samples_option = click.option(
    "--judge-samples",
    "judge_samples",
    type=click.IntRange(1, 25),
    default=None,
    envvar="AGENTGAUGE_JUDGE_SAMPLES",
    help="Judgements per judged question for every judge scorer (majority vote; overrides "
    "the suite's judge_samples and each scorer's). Recorded in run.json.",
)


def history_options(f: F) -> F:
    """``--history PATH`` and ``--no-history`` (stored as ``history`` and ``no_history``), for
    the commands that record a run."""
    f = click.option(
        "--no-history",
        "no_history",
        is_flag=True,
        envvar="AGENTGAUGE_NO_HISTORY",
        help="Do not add this run to the run history.",
    )(f)
    return history_option(f)


def _percent_points(x: float) -> str:
    return f"{x * 100:+.1f}pp"


def _shown(metric: str, value: float | None, *, change: bool = False) -> str:
    if value is None:
        return "–"
    if metric.endswith("_ms"):  # below 10 ms two digits: 0.2 ms is not "0 ms"
        digits = ".0f" if abs(value) >= 10 else ".2g"
        return f"{value:+{digits}} ms" if change else f"{value:{digits}} ms"
    if metric.endswith("_usd"):
        return f"{value:+.4g} $" if change else f"{value:.4g} $"
    if metric == "planning_grade":  # the reviewers' 1-5 scale
        return f"{value:+.2f}" if change else f"{value:.2f} of 5"
    if metric.startswith("scorers."):  # a scorer's mean on its 0..1 value
        return f"{value:+.3f}" if change else f"{value:.3f}"
    return _percent_points(value) if change else f"{value * 100:.1f}%"


def _flag(t: MetricTrend) -> str:
    if t.outside is None:
        return ""
    arrow = "▲" if t.outside == "above" else "▼"
    return f"{arrow} {'worse' if t.regressed else 'better'}"


def _print_group(
    suite: str,
    agent: str,
    runs: Sequence[HistoryEntry],
    trends: Sequence[MetricTrend],
    window: int,
) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from .._messages import printable

    console = Console(highlight=False)
    console.print(  # the suite's name and the agent's spec: one line each, never markup
        f"[bold]{escape(printable(suite))}[/bold] · {escape(printable(agent))}: "
        f"{len(runs)} run(s), {escape(printable(runs[0].started_at))} → "
        f"{escape(printable(runs[-1].started_at))}"
    )
    table = Table(show_edge=False, pad_edge=False)
    for col in ("metric", "latest", "vs prev", f"vs mean({window})", "trend", "band"):
        right = col.startswith(("latest", "vs"))
        table.add_column(col, justify="right" if right else "left", no_wrap=col == "metric")
    for t in trends:
        table.add_row(
            Text(printable(t.label)),
            _shown(t.metric, t.latest),
            _shown(t.metric, t.change, change=True),
            _shown(t.metric, t.change_vs_mean, change=True),
            t.sparkline,
            _flag(t),
        )
    console.print(table)
    for line in _compared_lines(trends):
        console.print(Text(printable(line)), soft_wrap=True)
    if any(t.outside for t in trends):
        console.print(
            "▲/▼: the latest run is above/below the band (mean ± 2 sd) of up to "
            f"{window} runs before it",
            soft_wrap=True,
        )
    if len(trends) == 1:  # one metric: each run's value too
        t = trends[0]
        runs_table = Table(show_edge=False, pad_edge=False)
        for col in ("started", "run", "commit", "cases", t.label):
            runs_table.add_column(col, justify="right" if col in ("cases", t.label) else "left")
        for e, v in zip(runs, t.values, strict=True):
            commit = (e.git_commit or "")[:10] + (" (dirty)" if e.git_dirty else "")
            shown = _shown(t.metric, v) + (" *" if t.metric in e.recorded else "")
            # what a run directory's run.json said: shown as text, never markup
            cells = (e.started_at, e.run_id, commit)
            runs_table.add_row(*(Text(printable(c)) for c in cells), str(e.cases), shown)
        console.print(runs_table)
    for line in _later_lines(runs, {t.metric for t in trends}):
        console.print(Text(printable(line)), soft_wrap=True)
    console.print()


def _compared_lines(trends: Sequence[MetricTrend]) -> list[str]:
    """What "vs prev" and "vs mean" compared: once when every metric compared the same runs,
    else one line per metric."""
    said = {t.compared for t in trends}
    if len(said) == 1:
        return [f"compared: {said.pop()}"]
    return [f"compared ({t.label}): {t.compared}" for t in trends]


def _later_lines(runs: Sequence[HistoryEntry], shown: set[str]) -> list[str]:
    """What feedback or reviews added to a run directory after the run changed in its row
    (both values, labelled), and why a directory's were not applied."""
    out: list[str] = []
    for e in runs:
        for name, old in e.recorded.items():
            if name in shown:
                out.append(
                    f"* run {e.run_id}: {name} {_shown(name, e.metrics.get(name))} with the "
                    f"feedback / reviews added to {e.run_dir} after the run (recorded at the "
                    f"run's end: {_shown(name, old)})"
                )
        if e.note is not None:
            out.append(f"note: run {e.run_id}: {e.note}")
    return out


@click.command("history")
@click.option("--suite", default=None, help="Only runs of this suite (a name or a glob).")
@click.option(
    "--agent", default=None, help="Only runs of this agent (a spec or a glob: 'openai:*')."
)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    help="Metric to show (repeatable): pass_rate, error_rate, tool_selection_accuracy, "
    "argument_accuracy, behavior_accuracy, task_completion, latency_p95_ms, cost_usd, a module "
    "metric (user_satisfaction, retrieval_precision, retrieval_recall, fallback_accuracy, "
    "planning_grade), or a scorer (groundedness, judge.tone ...). Default: the headline and "
    "module metrics measured, and the judges.",
)
@click.option(
    "--limit",
    type=click.IntRange(1, 100000),
    default=20,
    show_default=True,
    help="Latest runs per suite and agent.",
)
@click.option(
    "--window",
    type=click.IntRange(1, 1000),
    default=5,
    show_default=True,
    help="Previous runs the mean and the band are drawn from.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON document instead of tables.")
@history_option
def command(
    suite: str | None,
    agent: str | None,
    metrics: tuple[str, ...],
    limit: int,
    window: int,
    as_json: bool,
    history: Path | None,
) -> None:
    """The trend of each metric over the latest runs, per suite and agent: the latest value,
    its change against the previous run and the mean of the last --window runs, a sparkline,
    and a flag when it is outside the band (mean ± 2 sd) of those runs."""
    import orjson

    from ..metrics import (
        default_metrics,
        group_runs,
        history_path,
        metric_trend,
        read_history,
        resolve_metric,
    )

    path = history_path(history)
    entries = read_history(suite=suite, agent=agent, limit=limit, path=history)
    groups = group_runs(entries)
    names: list[str] = []
    for m in metrics:
        names += [n for n in resolve_metric(m, entries) if n not in names]
    out: list[dict[str, Any]] = []
    for (s, a), runs in groups.items():
        shown = names or default_metrics(runs)
        trends = [metric_trend(runs, n, window=window) for n in shown]
        if as_json:
            out.append(
                {
                    "suite": s,
                    "agent": a,
                    "runs": [
                        {k: v for k, v in dataclasses.asdict(e).items() if k != "intervals"}
                        for e in runs
                    ],
                    "trends": [
                        {
                            **dataclasses.asdict(t),
                            "label": t.label,
                            "regressed": t.regressed,
                            "compared": t.compared,
                        }
                        for t in trends
                    ],
                }
            )
        else:
            _print_group(s, a, runs, trends, window)
    if as_json:
        doc = {"history": str(path), "groups": out}
        click.echo(orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode())
    elif not groups:
        which = " and ".join(
            f"{k} {v}" for k, v in (("suite", suite), ("agent", agent)) if v is not None
        )
        click.echo(f"no runs recorded in {path}{f' for {which}' if which else ''}")
    else:
        click.echo(f"history: {path}")
