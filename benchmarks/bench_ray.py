"""The Ray executor's overhead against the local executor: the same suite, the same agent and
the same total concurrency, against a loopback fake model.

The fake OpenAI-compatible server (``python -m agentgauge.testing.fake_openai``) runs in its own
process and answers every request after a fixed latency L; each case is one model call (a
short question answered in text), scored as usual, with the cache off. The Ray cluster is one
local instance started once (``ray.init(num_cpus=W)``): the figures are what a run costs on a
cluster that already exists. Each Ray run still starts its own worker actors; that fixed cost
is measured on its own (a run of one case) and reported apart from the per-case overhead.

    python benchmarks/bench_ray.py                           # N=2000 cases, C=32, L=50 ms
    python benchmarks/bench_ray.py -n 4000 -c 64 --runs 5

Reported per executor: median wall time over ``--runs`` runs (after one warm-up run of each),
cases/s, and for Ray the overhead against local, end to end and with the fixed start cost
taken out.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Suite


def _suite(n: int) -> Suite:
    cases = [
        {"id": f"c{i:05d}", "input": f"Say ok ({i})", "expect": {"behavior": "answer"}}
        for i in range(n)
    ]
    return Suite.model_validate({"name": "bench-ray", "cases": cases})


def _run(suite: Suite, url: str, executor: str, concurrency: int, out: Path) -> float:
    config = RunConfig(
        agent="openai:fake-model",
        agent_options={"base_url": url, "api_key": "sk-bench"},
        executor=executor,
        max_concurrency=concurrency,
        cache=False,
        progress=False,
        retries=0,
    )
    t0 = time.perf_counter()
    outcome = run_suite(suite, config, out)
    wall = time.perf_counter() - t0
    if outcome.ran != len(suite.cases) or outcome.errors:
        raise SystemExit(f"{executor}: {outcome.ran} ran, {outcome.errors} errors")
    return wall


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=2000, help="cases (one model call each)")
    parser.add_argument("-c", "--concurrency", type=int, default=32)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    import ray

    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agentgauge.testing.fake_openai",
            "--latency-ms",
            str(args.latency_ms),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    ray.init(
        num_cpus=args.workers,
        include_dashboard=False,
        logging_level=logging.WARNING,
        _node_ip_address="127.0.0.1",
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split()[-1]
        suite, one = _suite(args.n), _suite(1)
        ideal = args.n / args.concurrency * args.latency_ms / 1000
        print(
            f"N={args.n} C={args.concurrency} L={args.latency_ms:g} ms (ideal {ideal:.2f} s), "
            f"Ray: local instance, {args.workers} CPUs; machine: {os.cpu_count()} CPUs"
        )
        walls: dict[str, list[float]] = {"local": [], "ray": []}
        starts: list[float] = []
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            for i in range(args.runs + 1):  # run 0 warms up both (imports, connections)
                for executor in ("local", "ray"):
                    wall = _run(suite, url, executor, args.concurrency, base / f"{executor}{i}")
                    if i:
                        walls[executor].append(wall)
                # the fixed cost of a Ray run: actors started and ready, one case, stopped
                start = _run(one, url, "ray", args.concurrency, base / f"one{i}")
                if i:
                    starts.append(start - args.latency_ms / 1000)
        local, on_ray = (statistics.median(walls[k]) for k in ("local", "ray"))
        fixed = statistics.median(starts)
        for name, wall in (("local", local), ("ray", on_ray)):
            runs = ", ".join(f"{w:.2f}" for w in walls[name])
            print(f"{name:6s} {wall:6.2f} s  {args.n / wall:7.0f} cases/s  (runs: {runs})")
        print(f"ray fixed start cost (workers up, one case): {fixed:.2f} s")
        print(
            f"ray overhead vs local: {100 * (on_ray / local - 1):+.1f} % end to end, "
            f"{100 * ((on_ray - fixed) / local - 1):+.1f} % without the fixed start cost; "
            f"{1000 * (on_ray - fixed - local) / (args.n / args.concurrency):.1f} ms added per case"
        )
    finally:
        ray.shutdown()
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
