"""Load mode figures (docs/load.md), medians over several runs.

- **closed**: C virtual users, no think time, against the loopback fake server (its own process)
  answering after L ms: sessions per second as a fraction of the limit C/L (each session is one
  single-turn case, one model call).
- **saturation**: a step ramp (1 user per step) against a server that serves K at once and
  answers 429 past it: the highest sustained step / K.
- **queue**: the same against a server that queues past K (1 s a reply, 4 slots, as
  llama.cpp's ``-np 4``) with a p95 budget of 1.15 service times: the highest sustained step / K.
- **open**: Poisson arrivals at R/s for D s: sessions started per second / R, sessions started
  / the seeded arrivals offered (1.00: none lost), and how late each session started after its
  arrival time (p50 / p99, ms): the scheduler's own precision.

    python benchmarks/bench_load.py --runs 3 -c 32 -l 50 -d 5 -k 8 -r 40
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

from agentgauge.load import (
    LOAD_SAMPLES_FILE,
    make_plan,
    percentile,
    poisson_arrivals,
    run_load_file,
)
from agentgauge.runner import RunConfig
from agentgauge.schema import LoadProfile

SUITE = "name: bench-load\ntools: []\ncases:\n" + "".join(
    f"  - id: c{i}\n    input: hello {i}\n    expect: {{behavior: answer}}\n" for i in range(50)
)


def _server(
    latency_ms: float, k: int | None = None, over: str = "reject"
) -> tuple[subprocess.Popen[str], str]:
    args = [sys.executable, "-m", "agentgauge.testing.fake_openai", "--latency-ms", str(latency_ms)]
    if k is not None:
        args += ["--max-concurrent", str(k), "--over-capacity", over]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline().strip()
    return proc, line.rpartition(" ")[2]


def _config(url: str, **kw: object) -> RunConfig:
    return RunConfig(
        agent="openai:fake-model",
        retries=0,
        cache=False,
        progress=False,
        agent_options={"base_url": url, "api_key": "k"},
        **kw,
    )  # type: ignore[arg-type]


def closed(tmp: Path, c: int, latency: float, duration: float, runs: int) -> None:
    proc, url = _server(latency)
    try:
        limit = c / (latency / 1000)
        loaded = []
        for i in range(runs):
            profile = LoadProfile.model_validate(
                {"users": c, "duration": duration, "baseline": False}
            )
            out = run_load_file(
                tmp / "suite.yaml", _config(url), tmp / f"closed{i}", profile=profile
            )
            loaded.append(out.report.totals.sessions / out.report.duration_s / limit)
        print(
            f"closed C={c} L={latency:g} ms: load {statistics.median(loaded):.2f} of C/L "
            f"({min(loaded):.2f}-{max(loaded):.2f})"
        )
    finally:
        proc.terminate()


def saturation(tmp: Path, k: int, latency: float, runs: int) -> None:
    proc, url = _server(latency, k)
    try:
        found = []
        for i in range(runs):
            profile = LoadProfile.model_validate(
                {
                    "step": {
                        "start": max(1, k - 3),
                        "max": k + 4,
                        "every": "1s",
                        "budget": ["error_rate<0.001"],
                    },
                    "think_time": 0.005,
                    "baseline": False,
                }
            )
            out = run_load_file(tmp / "suite.yaml", _config(url), tmp / f"sat{i}", profile=profile)
            sat = out.report.saturation
            found.append((sat.sustained or 0) / k if sat else 0.0)
        print(
            f"saturation K={k}: sustained/K median {statistics.median(found):.2f} "
            f"({min(found):.2f}-{max(found):.2f})"
        )
    finally:
        proc.terminate()


def queue(tmp: Path, runs: int, k: int = 4, latency: float = 1000.0) -> None:
    proc, url = _server(latency, k, over="queue")
    try:
        found = []
        for i in range(runs):
            profile = LoadProfile.model_validate(
                {
                    "step": {
                        "start": max(1, k - 2),
                        "max": k + 3,
                        "every": "3s",
                        "budget": [f"p95<{1.15 * latency:g}"],
                    },
                    "baseline": False,
                }
            )
            out = run_load_file(
                tmp / "suite.yaml", _config(url), tmp / f"queue{i}", profile=profile
            )
            sat = out.report.saturation
            found.append((sat.sustained or 0) / k if sat else 0.0)
        print(
            f"queue K={k} L={latency:g} ms: sustained/K median {statistics.median(found):.2f} "
            f"({min(found):.2f}-{max(found):.2f})"
        )
    finally:
        proc.terminate()


def _lag_ms(run_dir: Path, arrivals: list[float]) -> list[float]:
    """How late each load session started after its seeded arrival time, ms."""
    lines = [orjson.loads(x) for x in (run_dir / LOAD_SAMPLES_FILE).read_bytes().splitlines()]
    starts = sorted(x["start_s"] for x in lines if x["phase"] == "load")
    return [(s - a) * 1000 for s, a in zip(starts, arrivals, strict=False)]


def open_loop(tmp: Path, rate: float, latency: float, duration: float, runs: int) -> None:
    proc, url = _server(latency)
    try:
        ratios, kept, p50, p99 = [], [], [], []
        for i in range(runs):
            profile = LoadProfile.model_validate(
                {
                    "mode": "open",
                    "rate": rate,
                    "duration": duration,
                    "baseline": False,
                    "max_in_flight": 1000,
                }
            )
            arrivals = list(poisson_arrivals(make_plan(profile).segments, seed=i))
            out = run_load_file(
                tmp / "suite.yaml", _config(url, seed=i), tmp / f"open{i}", profile=profile
            )
            ratios.append(out.report.totals.started / duration / rate)
            kept.append(out.report.totals.started / len(arrivals))
            lag = sorted(_lag_ms(tmp / f"open{i}", arrivals))
            p50.append(percentile(lag, 50))
            p99.append(percentile(lag, 99))
        print(
            f"open R={rate:g}/s: started/s / R median {statistics.median(ratios):.2f} "
            f"({min(ratios):.2f}-{max(ratios):.2f}; Poisson counts vary by ~1/sqrt(R*D)); "
            f"started / offered {statistics.median(kept):.2f}; start lag p50 "
            f"{statistics.median(p50):.1f} ms, p99 {statistics.median(p99):.1f} ms "
            f"({min(p99):.1f}-{max(p99):.1f})"
        )
    finally:
        proc.terminate()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("-c", type=int, default=32)
    ap.add_argument("-l", type=float, default=50.0)
    ap.add_argument("-d", type=float, default=5.0)
    ap.add_argument("-k", type=int, default=8)
    ap.add_argument("-r", type=float, default=40.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        (tmp / "suite.yaml").write_text(SUITE, encoding="utf-8")
        closed(tmp, args.c, args.l, args.d, args.runs)
        saturation(tmp, args.k, 100.0, args.runs)
        queue(tmp, args.runs)
        open_loop(tmp, args.r, args.l, args.d, args.runs)


if __name__ == "__main__":
    main()
