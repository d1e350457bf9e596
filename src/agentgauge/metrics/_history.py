"""Run history: one row per run in a local SQLite file, for trends across runs.

The file is ``$AGENTGAUGE_HISTORY`` if set, else ``.agentgauge/history.sqlite`` in the current
directory. Each row keeps the run's identity (suite, agent, git commit, time) and its headline
metrics; ``agentgauge history`` reads them back.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from ._model import Summary

#: headline metrics stored per run (columns of the ``runs`` table)
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

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY,
    suite TEXT NOT NULL,
    agent TEXT NOT NULL,
    git_commit TEXT,
    started_at TEXT NOT NULL,
    run_dir TEXT NOT NULL,
    cases INTEGER NOT NULL,
    results INTEGER NOT NULL,
    {", ".join(f"{m} REAL" for m in HISTORY_METRICS)}
)
"""


@dataclass(frozen=True, slots=True, kw_only=True)
class HistoryEntry:
    run_id: str
    suite: str
    agent: str
    git_commit: str | None
    started_at: str
    run_dir: str
    cases: int
    results: int
    metrics: dict[str, float | None]


def history_path() -> Path:
    env = os.environ.get("AGENTGAUGE_HISTORY")
    return Path(env) if env else Path(".agentgauge") / "history.sqlite"


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute(_SCHEMA)
    return conn


def _headline(summary: Summary) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for m in HISTORY_METRICS[:6]:
        rate = summary.rate(m)
        out[m] = rate.value if rate is not None else None
    out["latency_p95_ms"] = summary.performance.latency.p95
    out["cost_usd"] = summary.cost.cost_usd.total if summary.cost.cost_usd.n else None
    return out


def record_run(
    run_dir: Path, summary: Summary | None = None, *, path: Path | None = None
) -> Path | None:
    """Add (or replace) this run's row in the history; returns the history file.

    The summary is computed when not given. Runs without ``run.json`` are not recorded, nor
    shards (``run --shard``: part of a run; ``agentgauge merge`` records the whole).
    """
    if summary is None:
        from ._files import summarize

        summary = summarize(Path(run_dir))
    run = summary.run
    if run is None or run.shard:
        return None
    path = path or history_path()
    metrics = _headline(summary)
    cols = ["run_id", "suite", "agent", "git_commit", "started_at", "run_dir", "cases", "results"]
    cols += list(HISTORY_METRICS)
    values: list[object] = [
        run.run_id,
        run.suite,
        run.agent,
        run.git_commit,
        run.started_at,
        str(Path(run_dir).resolve()),
        summary.cases,
        summary.overall.results,
    ]
    values += [metrics[m] for m in HISTORY_METRICS]
    with _connect(path) as conn:
        conn.execute(
            f"INSERT OR REPLACE INTO runs ({', '.join(cols)}) "
            f"VALUES ({', '.join('?' * len(cols))})",
            values,
        )
    conn.close()
    return path


def read_history(
    *, suite: str | None = None, limit: int = 20, path: Path | None = None
) -> list[HistoryEntry]:
    """The latest ``limit`` runs (oldest first), optionally of one suite."""
    path = path or history_path()
    if not path.exists():
        return []
    conn = _connect(path)
    try:
        where, args = ("WHERE suite = ?", [suite]) if suite else ("", [])
        rows = conn.execute(
            f"SELECT run_id, suite, agent, git_commit, started_at, run_dir, cases, results, "
            f"{', '.join(HISTORY_METRICS)} FROM runs {where} "
            "ORDER BY started_at DESC, run_id DESC LIMIT ?",
            [*args, limit],
        ).fetchall()
    finally:
        conn.close()
    out = [
        HistoryEntry(
            run_id=r[0],
            suite=r[1],
            agent=r[2],
            git_commit=r[3],
            started_at=r[4],
            run_dir=r[5],
            cases=r[6],
            results=r[7],
            metrics=dict(zip(HISTORY_METRICS, r[8:], strict=True)),
        )
        for r in rows
    ]
    out.reverse()
    return out


_BARS = "▁▂▃▄▅▆▇█"


def sparkline(values: list[float | None]) -> str:
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
