"""The comparison of a matrix run: ``compare_matrix`` over K agents × N results each.

Writes a matrix folder of ``--agents`` members with ``--cases`` result lines each (the ≈ 1.3 KB
lines of ``bench_shards.py``; members pass 60 %, 70 %, 80 % ... of the cases), then runs
``compare_matrix(OUT)`` (every member summarised, its percentiles, every pair compared) in a
fresh child process per run, so the peak RSS (``getrusage``) is its own. Prints medians over
``--runs`` runs of wall time, CPU time per result read and peak RSS.

```console
$ python benchmarks/bench_matrix.py --agents 3 --cases 20000 --runs 3
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_shards import LINE  # the same result lines as the shard benchmark

CHILD = """
import json, resource, sys, time
from pathlib import Path
import agentgauge.metrics
t0, c0 = time.perf_counter(), time.process_time()
c = agentgauge.metrics.compare_matrix(Path(sys.argv[1]))
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
sig = len(c.significant_pairs())
print(json.dumps({"agents": len(c.agents), "pairs": len(c.pairs), "significant": sig,
                  "wall": wall, "cpu": cpu, "rss_mb": rss}))
"""


def generate(root: Path, agents: int, cases: int) -> Path:
    from agentgauge.io import write_record
    from agentgauge.runner import MatrixManifest, MemberRecord
    from agentgauge.schema import RunRecord

    out = root / "matrix"
    members = []
    for k in range(agents):
        label = f"agent-{k}"
        d = out / label
        d.mkdir(parents=True)
        write_record(
            d,
            RunRecord(
                run_id=f"bench-{k}",
                suite="bench-matrix",
                suite_hash="0" * 24,
                agent=f"mock:{label}",
                started_at="2026-12-01T00:00:00+00:00",
                finished_at="2026-12-01T00:10:00+00:00",
                agentgauge_version="bench",
                case_count=cases,
                trials=1,
                config_hash="1" * 24,
            ),
        )
        share = 60 + 10 * k  # percent of cases this member passes
        with open(d / "results.jsonl", "w") as fh:
            for c in range(cases):
                ok = (c * 2654435761) % 100 < share
                fh.write(
                    LINE.format(
                        cid=f"order-{c:07d}",
                        trial=0,
                        i=c,
                        status="passed" if ok else "failed",
                        score=1.0 if ok else 0.0,
                        passed="true" if ok else "false",
                        tool="lookup_order" if ok else "cancel_order",
                        expl="" if ok else "tool_selection: expected lookup_order, got cancel",
                        cat=("orders", "refunds", "shipping", "accounts")[c % 4],
                        lat=100 + (c * 7919) % 900 + 20 * k,
                    )
                )
        members.append(
            MemberRecord(label=label, agent=f"mock:{label}", run_dir=label, state="done")
        )
    manifest = MatrixManifest(
        suite="bench-matrix",
        suite_path=str(root / "suite.yaml"),
        started_at="2026-12-01T00:00:00+00:00",
        members=members,
    )
    (out / "matrix.json").write_text(manifest.model_dump_json(indent=2))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--cases", type=int, default=20_000, help="result lines per agent")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-matrix-"))
    try:
        out = generate(root, args.agents, args.cases)
        pairs = args.agents * (args.agents - 1) // 2
        # each member is read by its summary, its percentile pass and once per pair it is in
        reads = args.agents * args.cases * (2 + (args.agents - 1))
        print(
            f"{args.agents} agents × {args.cases:,} results; {pairs} pairs; "
            f"load average {os.getloadavg()[0]:.1f}"
        )
        runs = []
        for _ in range(args.runs):
            done = subprocess.run(
                [sys.executable, "-c", CHILD, str(out)], check=True, capture_output=True, text=True
            )
            got = json.loads(done.stdout.strip().splitlines()[-1])
            if got["agents"] != args.agents or got["pairs"] != pairs:
                raise SystemExit(f"unexpected comparison: {got}")
            runs.append(got)
        wall = statistics.median(r["wall"] for r in runs)
        cpu = statistics.median(r["cpu"] for r in runs) / reads * 1e6
        rss = statistics.median(r["rss_mb"] for r in runs)
        print(
            f"compare_matrix: wall {wall:.2f} s, CPU {cpu:.1f} µs per result read, "
            f"peak RSS {rss:.0f} MB, {runs[0]['significant']}/{pairs} pairs significant "
            f"(median of {len(runs)} runs)"
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
