"""One run's history row (:class:`HistoryEntry`) made from its summary: the metrics stored, the
agent's identity. Below ``_history.py`` (the SQLite file) and ``_history_feedback.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..schema import RunRecord
from ._model import Rate, Summary

__all__ = [
    "HISTORY_METRICS",
    "MODULE_HISTORY_METRICS",
    "SCORER_PREFIX",
    "HistoryEntry",
    "agent_identity",
    "entry_of",
    "fully_replayed",
]

#: headline metrics stored per run (latency in ms, cost as the run's total in USD)
HISTORY_METRICS = (
    "pass_rate",
    "error_rate",
    "tool_selection_accuracy",
    "argument_accuracy",
    "behavior_accuracy",
    "task_completion",
    "latency_p95_ms",
    "cost_usd",
)
#: the module metrics stored when a run measured them (docs/metrics.md#module-metrics): the
#: share of satisfied users, mean retrieval precision / recall, degradation-trigger accuracy
#: (0..1) and the experts' mean planning grade (1-5)
MODULE_HISTORY_METRICS = (
    "user_satisfaction",
    "retrieval_precision",
    "retrieval_recall",
    "fallback_accuracy",
    "planning_grade",
)
#: a scorer's mean is stored as ``scorers.<scorer name>``
SCORER_PREFIX = "scorers."


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryEntry:
    """One recorded run. ``metrics`` maps a metric name to its value (None: not measured)."""

    run_id: str
    suite: str
    agent: str
    git_commit: str | None
    started_at: str
    run_dir: str
    cases: int
    results: int
    metrics: dict[str, float | None]
    judge: str | None = None
    judge_samples: int | None = None
    #: a tracked file of the suite's repository differed from ``git_commit`` (None: unknown)
    git_dirty: bool | None = None
    #: the interval of each metric that has one (a rate's Wilson interval, a mean's bootstrap)
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: metrics that feedback or reviews added to the run directory after the run changed
    #: (``read_history``): the value the run's end recorded (None: not measured then)
    recorded: dict[str, float | None] = field(default_factory=dict)
    #: why the run directory's feedback or reviews were not applied to this row (None: they
    #: were, or there are none)
    note: str | None = None


def _rate(out: HistoryEntry, name: str, rate: Rate | None) -> None:
    if rate is None:
        return
    out.metrics[name] = rate.value
    if rate.low is not None and rate.high is not None:
        out.intervals[name] = (rate.low, rate.high)


def agent_identity(spec: str, base: Path | None = None) -> str:
    """``spec`` with the Python file it names made absolute (relative to ``base``, default the
    current folder), so ``python:examples/a.py:agent`` run from the repository and
    ``python:/abs/examples/a.py:agent`` are one agent in the history. Other specs as they are."""
    from .._suite_code import code_prefix

    prefix = code_prefix(spec)
    if prefix is None:
        return spec
    target, sep, query = spec[len(prefix) :].partition("?")
    where, colon, attr = target.rpartition(":")
    if not colon or not where or not (where.endswith(".py") or "/" in where or "\\" in where):
        return spec  # a module name (python:pkg.mod:fn)
    path = Path(where).expanduser()
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    try:
        path = path.resolve()
    except OSError:
        return spec
    return f"{prefix}{path}:{attr}{sep}{query}"


def _agent_base(run: RunRecord) -> Path | None:
    """The folder a run's relative agent path is relative to: the suite's for the suite's own
    ``defaults.agent``, else the current one (the run is recorded where it was made)."""
    if run.options.get("agent_source") != "suite" or not run.suite_path:
        return None
    suite = Path(run.suite_path)
    return suite if suite.is_dir() else suite.parent


def fully_replayed(summary: Summary) -> bool:
    """Every result was copied from the cache (an earlier run's): no new measurement."""
    results = summary.overall.results
    return results > 0 and summary.replayed >= results


def entry_of(run_dir: Path, summary: Summary) -> HistoryEntry | None:
    """The history row of a finished run (None: no ``run.json``, or a shard)."""
    run = summary.run
    if run is None or run.shard:
        return None
    samples = run.options.get("judge_samples")
    entry = HistoryEntry(
        run_id=run.run_id,
        suite=run.suite,
        agent=agent_identity(run.agent, _agent_base(run)),
        git_commit=run.git_commit,
        git_dirty=run.git_dirty,
        started_at=run.started_at,
        run_dir=str(Path(run_dir).resolve()),
        cases=summary.cases,
        results=summary.overall.results,
        metrics={},
        judge=run.judge,
        judge_samples=samples if isinstance(samples, int) else None,
    )
    for name in HISTORY_METRICS[:6]:
        _rate(entry, name, summary.rate(name))
    entry.metrics["latency_p95_ms"] = summary.performance.latency.p95
    cost = summary.cost.cost_usd
    entry.metrics["cost_usd"] = cost.total if cost.n else None
    _module_metrics(entry, summary)
    for name, stats in summary.scorers.items():
        key = f"{SCORER_PREFIX}{name}"
        entry.metrics[key] = stats.mean.mean
        if stats.mean.low is not None and stats.mean.high is not None:
            entry.intervals[key] = (stats.mean.low, stats.mean.high)
    return entry


def _module_metrics(entry: HistoryEntry, summary: Summary) -> None:
    """The module metrics the run measured (nothing measured: not stored, never a 0)."""
    for name in MODULE_HISTORY_METRICS:
        rate = summary.rate(name)
        if rate is not None:
            if rate.n:
                _rate(entry, name, rate)
            continue
        mean = summary.module_mean(name)
        if mean is not None and mean.n:
            entry.metrics[name] = mean.mean
            if mean.low is not None and mean.high is not None:
                entry.intervals[name] = (mean.low, mean.high)
