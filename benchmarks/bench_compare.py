"""Compare, summary and gate over many simulated results: peak memory and cost per result.

Writes two runs (``base`` and ``new``) of ``--cases`` result lines each (the ≈ 1.3 KB lines of
``bench_shards.py``; ``--trials`` trials per case; about 1 case in 10 flips between the runs, a
few are only in one run), then runs, each in a fresh child process so that its peak RSS
(``getrusage``) is its own:

- ``summary``: ``summarize(new)`` (what ``agentgauge gate`` runs without a baseline),
- ``compare``: ``compare(base, new)`` (``agentgauge compare``; reads both runs),
- ``gate``: ``gate_run(new, gates=..., baseline=base)`` (``agentgauge gate --baseline``: the
  summary, the comparison and the regression checks),
- ``baseline``: importing agentgauge and nothing else (the floor under the three).

The child also reports the tracemalloc-free figure that matters for "bounded": the peak RSS.
Prints medians over ``--runs`` runs of wall time, CPU time per result and peak RSS.

```console
$ python benchmarks/bench_compare.py --cases 100000 --runs 3
$ python benchmarks/bench_compare.py --cases 1000000 --runs 1
$ python benchmarks/bench_compare.py --cases 1000000 --trials 2 --runs 1 --skip gate
```
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_shards import LINE  # the same result lines as the shard benchmark

CHILD = """
import json, resource, sys, time
from pathlib import Path
step, base, new = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
import agentgauge.metrics
from agentgauge.schema import Gates
t0, c0 = time.perf_counter(), time.process_time()
if step == "summary":
    n = agentgauge.metrics.summarize(new).overall.results
elif step == "compare":
    n = agentgauge.metrics.compare(base, new).paired
elif step == "gate":
    gates = Gates(min_pass_rate=0.5, max_regression_points=1.0, require_significance=True)
    summary, report, cmp = agentgauge.metrics.gate_run(new, gates=gates, baseline=base)
    assert cmp is not None and not report.passed, "the regression must fail the gate"
    n = summary.overall.results
else:
    n = 0
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
print(json.dumps({"n": n, "wall": wall, "cpu": cpu, "rss_mb": rss}))
"""


def _status(run: str, case: int) -> bool:
    """Whether a case passes in ``run``: 80 % pass in base; in new 6 % break and 3 % get fixed."""
    base = case % 5 != 0
    if run == "base":
        return base
    flip = (case * 2654435761) % 100
    return (not base) if (base and flip < 8) or (not base and flip < 15) else base


def generate(root: Path, cases: int, trials: int) -> tuple[Path, Path, int]:
    """Both runs; returns their paths and the number of cases they share."""
    from agentgauge.io import write_record
    from agentgauge.schema import RunRecord

    dirs = []
    n_cases = cases // trials
    for run in ("base", "new"):
        d = root / run
        d.mkdir(parents=True)
        write_record(
            d,
            RunRecord(
                run_id=f"bench-{run}",
                suite="bench-compare",
                suite_hash="0" * 24,
                agent="mock:",
                started_at="2026-12-01T00:00:00+00:00",
                finished_at="2026-12-01T00:10:00+00:00",
                agentgauge_version="bench",
                case_count=n_cases,
                trials=trials,
                config_hash="1" * 24,
            ),
        )
        with open(d / "results.jsonl", "w") as fh:
            # trial-major, as a run with concurrency writes them: a case's trials are far apart
            for trial in range(trials):
                for c in range(n_cases):
                    if (run == "base" and c % 101 == 7) or (run == "new" and c % 103 == 9):
                        continue  # removed and new cases
                    ok = _status(run, c) or (trial == 1 and c % 7 == 0)
                    i = c * trials + trial
                    fh.write(
                        LINE.format(
                            cid=f"order-{c:07d}",
                            trial=trial,
                            i=i,
                            status="passed" if ok else "failed",
                            score=1.0 if ok else 0.0,
                            passed="true" if ok else "false",
                            tool="lookup_order" if ok else "cancel_order",
                            expl="" if ok else "tool_selection: expected lookup_order, got cancel",
                            cat=("orders", "refunds", "shipping", "accounts")[c % 4],
                            lat=100 + (i * 7919) % 900 + (50 if run == "new" else 0),
                        )
                    )
        dirs.append(d)
    shared = sum(1 for c in range(n_cases) if c % 101 != 7 and c % 103 != 9)
    return dirs[0], dirs[1], shared


def child(step: str, base: Path, new: Path) -> dict[str, float]:
    args = [sys.executable, "-c", CHILD, step, str(base), str(new)]
    done = subprocess.run(args, check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=100_000, help="result lines per run")
    parser.add_argument("--trials", type=int, default=1, help="trials per case")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip", action="append", default=[], help="summary, compare or gate")
    parser.add_argument("--dir", type=Path, default=None, help="scratch folder (default: a temp)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-compare-", dir=args.dir))
    try:
        t0 = time.perf_counter()
        base, new, shared = generate(root, args.cases, args.trials)
        size = (new / "results.jsonl").stat().st_size / 1e6
        with open(new / "results.jsonl", "rb") as fh:
            lines = sum(1 for _ in fh)
        print(
            f"2 runs of ≈ {args.cases:,} results ({args.trials} trial(s) per case, "
            f"{size:,.0f} MB each) written in {time.perf_counter() - t0:.1f} s; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        steps = [s for s in ("baseline", "summary", "compare", "gate") if s not in args.skip]
        expect = {"summary": lines, "compare": shared, "gate": lines, "baseline": 0}
        figures: dict[str, list[dict[str, float]]] = {s: [] for s in steps}
        for _ in range(args.runs):
            for step in steps:
                got = child(step, base, new)
                if got["n"] != expect[step]:
                    raise SystemExit(f"{step}: counted {got['n']}, not {expect[step]}")
                figures[step].append(got)
        print(f"{'step':<9} {'wall s':>8} {'CPU µs/result':>14} {'peak RSS MB':>12}  runs")
        for step, runs in figures.items():
            # compare and gate read both runs: their cost is per result read
            read = {"summary": lines, "compare": 2 * lines, "gate": 3 * lines}.get(step, 1)
            wall = statistics.median(r["wall"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs) / read * 1e6
            rss = [r["rss_mb"] for r in runs]
            per = "-" if step == "baseline" else f"{cpu:.1f}"
            print(
                f"{step:<9} {wall:>8.2f} {per:>14} {statistics.median(rss):>12.0f}  "
                f"{len(runs)} (RSS {min(rss):.0f}-{max(rss):.0f})"
            )
        print(f"load average at the end {os.getloadavg()[0]:.1f}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
