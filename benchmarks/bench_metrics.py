"""Speed and memory of the metrics pass, the paired comparison and the per-result reports.

A synthetic run of N results is written (the fixture results of tests/report/fixtures, repeated
with distinct case ids), then timed: ``summarize`` (one streaming pass, all metrics and
intervals), ``compare`` (a run against itself: paired changes, McNemar, paired bootstrap),
``write_junit`` and ``write_csv``. CPU time (so other load on the machine does not count),
medians of ``--runs`` runs, and peak traced memory of ``summarize``.

    python benchmarks/bench_metrics.py [--sizes 1000,10000,100000] [--runs 3]
"""

from __future__ import annotations

import argparse
import io
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import orjson

from agentgauge.metrics import compare, summarize
from agentgauge.report import write_csv, write_junit

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "report" / "fixtures"


def make_run(n: int) -> Path:
    rows = [
        orjson.loads(line)
        for name in ("base", "new")
        for line in (FIXTURES / name / "results.jsonl").read_bytes().splitlines()
    ]
    d = Path(tempfile.mkdtemp(prefix="bench-metrics-"))
    with open(d / "results.jsonl", "wb") as fh:
        for i in range(n):
            r = dict(rows[i % len(rows)])
            r["case_id"] = f"{r['case_id']}-{i}"
            r["latency_ms"] = 200.0 + (i * 7919) % 5000  # many distinct latencies
            fh.write(orjson.dumps(r) + b"\n")
    (d / "run.json").write_bytes((FIXTURES / "new" / "run.json").read_bytes())  # one trial
    return d


def cpu(fn: Callable[..., object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(
        f"{'results':>8} {'summarize':>10} {'per 1k':>7} {'compare':>8} {'junit':>7} "
        f"{'csv':>7} {'peak MB':>8}"
    )
    for n in (int(x) for x in args.sizes.split(",")):
        d = make_run(n)
        try:
            t_sum = cpu(lambda d=d: summarize(d), args.runs)
            t_cmp = cpu(lambda d=d: compare(d, d), args.runs)
            t_junit = cpu(lambda d=d: write_junit(d, io.StringIO()), args.runs)
            t_csv = cpu(lambda d=d: write_csv(d, io.StringIO()), args.runs)
            tracemalloc.start()
            summarize(d)
            peak = tracemalloc.get_traced_memory()[1] / 1e6
            tracemalloc.stop()
        finally:
            shutil.rmtree(d)
        print(
            f"{n:>8} {t_sum:>9.2f}s {t_sum / n * 1000:>6.3f}s {t_cmp:>7.2f}s "
            f"{t_junit:>6.2f}s {t_csv:>6.2f}s {peak:>8.1f}"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
