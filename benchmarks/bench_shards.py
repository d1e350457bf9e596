"""Merge and summarize a sharded run of many simulated results: peak memory and cost per case.

Writes ``--shards`` shard run directories holding ``--cases`` result lines in all (each pair in
the shard its stable hash gives, as ``run --shard`` would), then runs, each in a fresh child
process so that its peak RSS is its own:

- ``merge``: ``merge_runs(shards, out)`` (two streaming passes),
- ``summary``: ``summarize(out)`` (one streaming pass; what ``gate`` runs without a baseline),
- ``compare``: ``compare(out, out)`` (streams, bounded memory; what ``gate --baseline`` adds;
  ``bench_compare.py`` measures it on two different runs),
- ``baseline``: importing agentgauge and nothing else (the floor under the three).

Prints medians over ``--runs`` runs of wall time, CPU time per case and peak RSS.

```console
$ python benchmarks/bench_shards.py                      # 1,000,000 results in 4 shards, 3 runs
$ python benchmarks/bench_shards.py --cases 100000 --runs 5 --compare
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

CHILD = """
import json, resource, sys, time
from pathlib import Path
step, out, shards = sys.argv[1], Path(sys.argv[2]), [Path(p) for p in sys.argv[3:]]
import agentgauge.io, agentgauge.metrics
t0, c0 = time.perf_counter(), time.process_time()
if step == "merge":
    n = agentgauge.io.merge_runs(shards, out).results
elif step == "summary":
    n = agentgauge.metrics.summarize(out).overall.results
elif step == "compare":
    n = agentgauge.metrics.compare(out, out).counts["unchanged_pass"]
else:
    n = 0
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
print(json.dumps({"n": n, "wall": wall, "cpu": cpu, "rss_mb": rss}))
"""

# a single-turn result with one expected tool call, its scores, messages and trace (~1.1 KB)
LINE = (
    '{{"version":1,"case_id":"{cid}","trial":{trial},"status":"{status}","score":{score},'
    '"scores":[{{"name":"tool_selection","value":{score},"passed":{passed},'
    '"explanation":"expected lookup_order, got {tool}","expected":null,"actual":null,"parts":[]}}],'
    '"explanation":"{expl}","category":"{cat}","difficulty":null,"tags":["bench"],'
    '"labels":null,"latency_budget_s":null,"expected_behavior":"tool_call",'
    '"expected_tools":["lookup_order"],"later_expected_tools":[],'
    '"calls":[{{"name":"{tool}","arguments":{{"order":"{i}"}},"id":"call_{i}"}}],'
    '"text":null,"behavior":"tool_call",'
    '"messages":[{{"role":"user","content":"Where is order {i}?","tool_calls":[],'
    '"tool_call_id":null,"name":null}},{{"role":"assistant","content":null,"tool_calls":'
    '[{{"name":"{tool}","arguments":{{"order":"{i}"}},"id":"call_{i}"}}],"tool_call_id":null,'
    '"name":null}}],"trace":[{{"kind":"model","turn":0,"start":1.0,"end":1.2,'
    '"latency_ms":{lat},"model":"mock","usage":{{"input_tokens":40,"output_tokens":12}},'
    '"ttft_ms":null,"cached":false,"cost_usd":0.0,"attempts":1,"labels":null,"tool":null,'
    '"arguments":null,"result":null,"fault":null,"error":null}}],'
    '"usage":{{"input_tokens":40,"output_tokens":12}},"model_calls":1,"tool_calls":1,'
    '"latency_ms":{lat},"ttft_ms":null,"cost_usd":0.0,"predicted_labels":null,"error":null,'
    '"step_limit_hit":false,"replayed":false}}\n'
)


def generate(root: Path, cases: int, shards: int, trials: int) -> list[Path]:
    """``cases`` result lines in all: ``cases // trials`` cases of ``trials`` trials each."""
    from agentgauge.io import pair_bucket, write_record
    from agentgauge.schema import RunRecord

    dirs = [root / f"shard{i}" for i in range(1, shards + 1)]
    handles = []
    for i, d in enumerate(dirs, start=1):
        d.mkdir(parents=True)
        write_record(
            d,
            RunRecord(
                run_id=f"bench{i}",
                suite="bench-shards",
                suite_hash="0" * 24,
                agent="mock:",
                started_at="2026-12-01T00:00:00+00:00",
                finished_at="2026-12-01T00:10:00+00:00",
                agentgauge_version="bench",
                case_count=cases // trials,
                trials=trials,
                shard=f"{i}/{shards}",
                config_hash="1" * 24,
            ),
        )
        handles.append(open(d / "results.jsonl", "w"))  # noqa: SIM115
    for i in range(cases):
        cid, trial = f"order-{i // trials:07d}", i % trials
        ok = i % 5 != 0
        line = LINE.format(
            cid=cid,
            trial=trial,
            i=i,
            status="passed" if ok else "failed",
            score=1.0 if ok else 0.0,
            passed="true" if ok else "false",
            tool="lookup_order" if ok else "cancel_order",
            expl="" if ok else "tool_selection: expected lookup_order, got cancel_order",
            cat=("orders", "refunds", "shipping", "accounts")[i % 4],
            lat=100 + (i * 7919) % 900,
        )
        handles[pair_bucket(cid, trial, shards)].write(line)
    for fh in handles:
        fh.close()
    return dirs


def child(step: str, out: Path, shards: list[Path]) -> dict[str, float]:
    args = [sys.executable, "-c", CHILD, step, str(out), *map(str, shards)]
    done = subprocess.run(args, check=True, capture_output=True, text=True)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument(
        "--trials", type=int, default=1, help="trials per case (--cases counts result lines)"
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--skip", action="append", default=[], help="merge or summary")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="also time compare (it reads the merged run twice)",
    )
    parser.add_argument("--dir", type=Path, default=None, help="scratch folder (default: a temp)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-shards-", dir=args.dir))
    try:
        t0 = time.perf_counter()
        shards = generate(root, args.cases, args.shards, args.trials)
        size = sum((d / "results.jsonl").stat().st_size for d in shards) / 1e6
        print(
            f"{args.cases:,} results ({args.trials} trial(s) per case) in {args.shards} shards "
            f"({size:,.0f} MB) written in "
            f"{time.perf_counter() - t0:.1f} s; load average {os.getloadavg()[0]:.1f}"
        )
        out = root / "merged"
        # compare counts cases whose every trial passed
        passed = sum(
            all((c * args.trials + t) % 5 != 0 for t in range(args.trials))
            for c in range(args.cases // args.trials)
        )
        steps = ["baseline", "merge", "summary"] + (["compare"] if args.compare else [])
        figures: dict[str, list[dict[str, float]]] = {s: [] for s in steps}
        for _ in range(args.runs):
            for step in steps:
                if step in args.skip:
                    continue
                if step == "summary" and not (out / "results.jsonl").exists():
                    figures["merge"].append(child("merge", out, shards))
                figures[step].append(child(step, out, shards))
                expect = {"merge": args.cases, "summary": args.cases, "compare": passed}
                if figures[step][-1]["n"] != expect.get(step, 0):
                    raise SystemExit(f"{step}: counted {figures[step][-1]['n']}, not {expect}")
        print(f"{'step':<9} {'wall s':>8} {'CPU µs/case':>12} {'peak RSS MB':>12}  runs")
        for step, runs in figures.items():
            if not runs:
                continue
            wall = statistics.median(r["wall"] for r in runs)
            cpu = statistics.median(r["cpu"] for r in runs) / args.cases * 1e6
            rss = [r["rss_mb"] for r in runs]
            per = "-" if step == "baseline" else f"{cpu:.1f}"
            print(
                f"{step:<9} {wall:>8.2f} {per:>12} {statistics.median(rss):>12.0f}  "
                f"{len(runs)} (RSS {min(rss):.0f}-{max(rss):.0f})"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
