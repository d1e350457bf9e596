"""The Ray executor's overhead against the local executor: the same suite, the same agent and
the same total concurrency, against a loopback fake model.

The fake OpenAI-compatible server (``python -m agentgauge.testing.fake_openai``) runs in its own
process and answers every request after a fixed latency L; each case is one model call (a
short question answered in text), scored as usual, with the cache off. The Ray cluster is one
local instance started once (``ray.init(num_cpus=W)``): the figures are what a run costs on a
cluster that already exists. Each Ray run still starts its own worker actors; that fixed cost
(joining Ray, starting the actors, each building its agent) is logged by the executor and
reported apart from the per-case overhead.

    python benchmarks/bench_ray.py                           # N=2000 cases, C=32, L=200 ms
    python benchmarks/bench_ray.py -n 2000 --latency-ms 50 --runs 5

Reported per executor: median wall time over ``--runs`` runs (after one warm-up run of each;
local and Ray alternate), cases/s, and for Ray the overhead against local, end to end and once
its workers are up (each run's own start time taken out).
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


class _StartTimes(logging.Handler):
    """Collects how long each Ray run took to start its workers (the executor's debug log)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.seconds: list[float] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("ray workers ready"):
            self.seconds.append(float(record.args[1]))  # type: ignore[index]


START = _StartTimes()


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
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--workers", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    import ray

    log = logging.getLogger("agentgauge.runner.ray")
    log.setLevel(logging.DEBUG)
    log.addHandler(START)
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
        suite = _suite(args.n)
        rounds = args.n / args.concurrency
        ideal = rounds * args.latency_ms / 1000
        print(
            f"N={args.n} C={args.concurrency} L={args.latency_ms:g} ms (ideal {ideal:.2f} s), "
            f"Ray: local instance, {args.workers} CPUs; machine: {os.cpu_count()} CPUs, "
            f"load {os.getloadavg()[0]:.1f}"
        )
        local: list[float] = []
        on_ray: list[float] = []
        starts: list[float] = []
        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            for i in range(args.runs + 1):  # run 0 warms both up (imports, connections)
                wall = _run(suite, url, "local", args.concurrency, base / f"local{i}")
                ray_wall = _run(suite, url, "ray", args.concurrency, base / f"ray{i}")
                if i:
                    local.append(wall)
                    on_ray.append(ray_wall)
                    starts.append(START.seconds[-1])
        steady = [w - s for w, s in zip(on_ray, starts, strict=True)]
        med = statistics.median
        for name, walls in (("local", local), ("ray", on_ray), ("ray - start", steady)):
            runs = ", ".join(f"{w:.2f}" for w in walls)
            print(f"{name:11s} {med(walls):6.2f} s  {args.n / med(walls):6.0f} cases/s  ({runs})")
        print(f"ray start (join, start {args.workers} workers, ready): {med(starts):.2f} s median")
        print(
            f"ray overhead vs local: {100 * (med(on_ray) / med(local) - 1):+.1f} % end to end, "
            f"{100 * (med(steady) / med(local) - 1):+.1f} % once the workers are up "
            f"({1000 * (med(steady) - med(local)) / rounds:+.1f} ms per case)"
        )
    finally:
        ray.shutdown()
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
