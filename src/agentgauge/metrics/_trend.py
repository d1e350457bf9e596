"""Trends of a metric across the recorded runs of one suite and agent (``agentgauge history``).

For each metric: the latest value, its change against the previous run and against the mean
of the ``window`` runs before it, a sparkline, and a flag when the latest value falls outside
the band the previous runs draw (their mean ± 2 standard deviations, once there are at least
:data:`MIN_RUNS_FOR_BAND` of them): a control-chart reading of "this run is unlike the
last ones", not a significance test.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import UserError
from ._history import HISTORY_METRICS, MODULE_HISTORY_METRICS, SCORER_PREFIX, HistoryEntry

__all__ = [
    "LOWER_IS_BETTER",
    "MIN_RUNS_FOR_BAND",
    "MetricTrend",
    "default_metrics",
    "metric_trend",
    "resolve_metric",
    "sparkline",
]

#: previous runs needed before the band (and so the outside flag) is drawn
MIN_RUNS_FOR_BAND = 3
#: metrics where a fall is the improvement
LOWER_IS_BETTER = frozenset({"error_rate", "latency_p95_ms", "cost_usd"})

_BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float | None]) -> str:
    """A unicode sparkline; missing values are shown as spaces."""
    present = [v for v in values if v is not None]
    if not present:
        return ""
    lo, hi = min(present), max(present)
    span = hi - lo
    out = []
    for v in values:
        if v is None:
            out.append(" ")
        elif span == 0:
            out.append(_BARS[len(_BARS) // 2])
        else:
            out.append(_BARS[round((v - lo) / span * (len(_BARS) - 1))])
    return "".join(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class MetricTrend:
    """One metric over the runs of one (suite, agent), oldest first."""

    metric: str
    #: one value per run (None: not measured in that run)
    values: tuple[float | None, ...]
    latest: float | None
    previous: float | None
    #: ``latest - previous``
    change: float | None
    #: runs before the latest that the mean and band are drawn from (at most the window)
    window: int
    mean: float | None
    #: ``latest - mean``
    change_vs_mean: float | None
    #: the band of the previous runs: mean ± 2 sd (None with fewer than 3 of them)
    low: float | None
    high: float | None
    #: the latest value is ``above`` or ``below`` the band
    outside: Literal["above", "below"] | None
    lower_is_better: bool
    sparkline: str
    #: the runs compared: the latest (None: no runs), the one before it that measured the
    #: metric (``previous``), and those the mean and band are drawn from, oldest first
    latest_run: str | None = None
    previous_run: str | None = None
    mean_runs: tuple[str, ...] = ()

    @property
    def compared(self) -> str:
        """What the changes compare, in words: which runs, and that they are not paired."""
        if self.latest_run is None:
            return "no run recorded"
        if self.latest is None:
            return f"run {self.latest_run} did not measure it: nothing compared"
        if self.previous_run is None:
            return f"run {self.latest_run} only: no earlier run measured it"
        mean = (
            f"the mean of {len(self.mean_runs)} run(s) before it "
            f"({self.mean_runs[0]} to {self.mean_runs[-1]})"
        )
        return (
            f"run {self.latest_run} against run {self.previous_run} and {mean}: each value "
            "over its own run's results, not paired case by case and not a significance test"
        )

    @property
    def label(self) -> str:
        """The name to show: a scorer's own name (``judge.groundedness``)."""
        return self.metric.removeprefix(SCORER_PREFIX)

    @property
    def regressed(self) -> bool:
        """Outside the band on the bad side (below for a rate, above for latency and cost)."""
        bad = "above" if self.lower_is_better else "below"
        return self.outside == bad


def metric_trend(entries: Sequence[HistoryEntry], metric: str, *, window: int = 5) -> MetricTrend:
    """The trend of ``metric`` over ``entries`` (one suite and agent, oldest first)."""
    if window < 1:
        raise ValueError("window must be at least 1")
    values = tuple(e.metrics.get(metric) for e in entries)
    latest = values[-1] if values else None
    measured = [
        (e.run_id, v) for e, v in zip(entries[:-1], values[:-1], strict=True) if v is not None
    ]
    before = [v for _, v in measured]
    previous = before[-1] if before else None
    recent = before[-window:]
    mean = statistics.fmean(recent) if recent else None
    low = high = None
    outside: Literal["above", "below"] | None = None
    if len(recent) >= MIN_RUNS_FOR_BAND and mean is not None:
        spread = 2 * statistics.stdev(recent)
        low, high = mean - spread, mean + spread
        if latest is not None:
            tolerance = 1e-9 * max(1.0, abs(mean))
            outside = (
                "above"
                if latest > high + tolerance
                else "below"
                if latest < low - tolerance
                else None
            )
    return MetricTrend(
        metric=metric,
        values=values,
        latest=latest,
        previous=previous,
        change=None if latest is None or previous is None else latest - previous,
        window=len(recent),
        mean=mean,
        change_vs_mean=None if latest is None or mean is None else latest - mean,
        low=low,
        high=high,
        outside=outside,
        lower_is_better=metric in LOWER_IS_BETTER,
        sparkline=sparkline(values),
        latest_run=entries[-1].run_id if entries else None,
        previous_run=measured[-1][0] if measured else None,
        mean_runs=tuple(run for run, _ in measured[-window:]),
    )


def _recorded(entries: Sequence[HistoryEntry]) -> list[str]:
    names = dict.fromkeys(n for e in entries for n in e.metrics)
    return sorted(names, key=lambda n: (n.startswith(SCORER_PREFIX), n))


def default_metrics(entries: Sequence[HistoryEntry]) -> list[str]:
    """What ``agentgauge history`` shows without ``--metric``: the headline metrics measured in
    some run, then the judges' means (``scorers.judge.*``)."""
    measured = {n for e in entries for n, v in e.metrics.items() if v is not None}
    judges = sorted(n for n in measured if n.startswith(f"{SCORER_PREFIX}judge."))
    headline = [m for m in (*HISTORY_METRICS, *MODULE_HISTORY_METRICS) if m in measured]
    return headline + judges


def resolve_metric(name: str, entries: Sequence[HistoryEntry]) -> list[str]:
    """The stored metric(s) ``name`` means: itself, ``scorers.NAME``, ``scorers.judge.NAME``,
    else every stored scorer whose name ends in ``.NAME``. Unknown: a :class:`UserError`
    listing what is recorded."""
    recorded = _recorded(entries)
    known = set(recorded) | set(HISTORY_METRICS) | set(MODULE_HISTORY_METRICS)
    for candidate in (name, f"{SCORER_PREFIX}{name}", f"{SCORER_PREFIX}judge.{name}"):
        if candidate in known:
            return [candidate]
    tail = [n for n in recorded if n.startswith(SCORER_PREFIX) and n.endswith(f".{name}")]
    if tail:
        return tail
    shown = ", ".join(n.removeprefix(SCORER_PREFIX) for n in recorded) or "none"
    raise UserError(f"--metric {name}: not recorded in these runs (recorded: {shown})")
