"""Run history cost: recording one run, and reading a large history back with its trends.

A history of ``--runs-per-agent`` runs for each of 10 agents of 5 suites (so 50 (suite, agent)
pairs; every run with the 8 headline metrics and 6 scorer means) is written with
``record_run``; then measured:

1. ``record_run`` of one more run into that file (what ``run`` / ``score`` add at the end);
2. ``read_history(suite=S, agent=A)`` of one pair (exact names: the index) and
   ``read_history(agent='a*')`` (a glob: every row read) with the default limit of 20,
   plus ``metric_trend`` of every default metric — what ``agentgauge history`` does.

Medians of ``--repeat`` timings, milliseconds, wall clock.

    python benchmarks/bench_history.py [--runs-per-agent 200] [--repeat 7]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from agentgauge.metrics import (
    Mean,
    Rate,
    Slice,
    Summary,
    default_metrics,
    group_runs,
    metric_trend,
    read_history,
    record_run,
)
from agentgauge.metrics._model import ScorerStats
from agentgauge.schema import RunRecord

SCORERS = ("judge.groundedness", "judge.tone", "similarity", "tool_selection", "arguments", "b")


def summary(suite: str, agent: str, i: int) -> Summary:
    run = RunRecord(
        run_id=f"{agent}-{i}",
        suite=suite,
        agent=agent,
        started_at=f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
        agentgauge_version="0",
    )
    rate = Rate(passed=50, n=100, value=0.5 + (i % 7) / 100, low=0.4, high=0.6)
    return Summary(
        run=run,
        cases=100,
        overall=Slice(results=100, pass_rate=rate, error_rate=rate),
        scorers={n: ScorerStats(mean=Mean(n=100, mean=0.8, low=0.7, high=0.9)) for n in SCORERS},
    )


def timed(fn: object, repeat: int) -> float:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append((time.perf_counter() - t0) * 1000)
    return statistics.median(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs-per-agent", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "history.sqlite"
        t0 = time.perf_counter()
        for s in range(5):
            for a in range(10):
                for i in range(args.runs_per_agent):
                    record_run(Path(tmp), summary(f"suite{s}", f"agent{a}", i), path=path)
        total = 50 * args.runs_per_agent
        fill_s = time.perf_counter() - t0
        extra = iter(range(10**9))
        record_ms = timed(
            lambda: record_run(
                Path(tmp), summary("suite0", "agent0", 10**6 + next(extra)), path=path
            ),
            args.repeat,
        )

        def history(**filters: str) -> None:
            entries = read_history(path=path, **filters)
            for runs in group_runs(entries).values():
                for m in default_metrics(runs):
                    metric_trend(runs, m)

        one_ms = timed(lambda: history(suite="suite3", agent="agent7"), args.repeat)
        glob_ms = timed(lambda: history(agent="agent1*"), args.repeat)
        size_mb = path.stat().st_size / 1e6
    print(f"history of {total} runs ({size_mb:.1f} MB), filled in {fill_s:.1f} s")
    print(f"record_run of one run:                     {record_ms:7.2f} ms (median)")
    print(f"history --suite S --agent A (index):       {one_ms:7.2f} ms (median)")
    print(f"history --agent 'agent1*' (glob, all rows): {glob_ms:7.2f} ms (median)")


if __name__ == "__main__":
    main()
