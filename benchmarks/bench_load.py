"""Load mode figures (docs/load.md), medians over several runs.

- **closed**: C virtual users, no think time, against the loopback fake server (its own process)
  answering after L ms: sessions per second as a fraction of the limit C/L (each session is one
  single-turn case, one model call).
- **saturation**: a step ramp (1 user per step) against a server that serves K at once and
  answers 429 past it: the highest sustained step / K.
- **open**: Poisson arrivals at R/s for D s: sessions started per second / R.

    python benchmarks/bench_load.py --runs 3 -c 32 -l 50 -d 5 -k 8 -r 40
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from agentgauge.load import run_load_file
from agentgauge.runner import RunConfig
from agentgauge.schema import LoadProfile

SUITE = "name: bench-load\ntools: []\ncases:\n" + "".join(
    f"  - id: c{i}\n    input: hello {i}\n    expect: {{behavior: answer}}\n" for i in range(50)
)


def _server(latency_ms: float, k: int | None = None) -> tuple[subprocess.Popen[str], str]:
    args = [sys.executable, "-m", "agentgauge.testing.fake_openai", "--latency-ms", str(latency_ms)]
    if k is not None:
        args += ["--max-concurrent", str(k), "--over-capacity", "reject"]
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


def open_loop(tmp: Path, rate: float, latency: float, duration: float, runs: int) -> None:
    proc, url = _server(latency)
    try:
        ratios = []
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
            out = run_load_file(
                tmp / "suite.yaml", _config(url, seed=i), tmp / f"open{i}", profile=profile
            )
            ratios.append(out.report.totals.started / duration / rate)
        print(
            f"open R={rate:g}/s: started/s / R median {statistics.median(ratios):.2f} "
            f"({min(ratios):.2f}-{max(ratios):.2f}; Poisson counts vary by ~1/sqrt(R*D))"
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
        open_loop(tmp, args.r, args.l, args.d, args.runs)


if __name__ == "__main__":
    main()
