"""Peak memory and wall time of ``agentgauge run`` (the command, end to end) on a huge suite.

Generates a suite of N cases (default 100,000) in a temporary folder — a ``suite.yaml`` holding
the tools and defaults whose ``case_files`` names one ``cases.jsonl`` (``--form suite``), or the
JSONL file given as the suite itself (``--form jsonl``) — then runs

    agentgauge run SUITE --agent mock: -o DIR --no-cache --max-concurrency 64 --no-progress

as a child process, several times, and reports the child's peak RSS (``wait4`` rusage of that
child) and wall time, medians. ``mock:`` answers every request at once with a fixed text (and,
made from a spec, keeps no requests), so the figure is the runner's and the loader's own memory.
Target: under 300 MB for 100,000 cases.

    python benchmarks/bench_run_cli_memory.py                  # 100,000 cases, 3 runs, suite form
    python benchmarks/bench_run_cli_memory.py --form jsonl --cases 20000 --runs 5
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
from typing import Any

TOOLS = [
    {
        "name": f"tool_{i}",
        "description": "Look something up. " * 4,
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
            "required": ["city"],
        },
    }
    for i in range(4)
]


def write_suite(folder: Path, n: int, form: str) -> Path:
    """A suite of ``n`` single-turn cases; returns the path to give ``agentgauge run``."""
    cases = folder / "cases.jsonl"
    with cases.open("w", encoding="utf-8") as fh:
        for i in range(n):
            case = {
                "id": f"case-{i:06d}",
                "input": f"What is the weather in city {i} this week?",
                "category": f"cat-{i % 7}",
                "tags": ["bench"],
                "expect": {"behavior": "answer"},
            }
            fh.write(json.dumps(case) + "\n")
    if form == "jsonl":
        return cases
    suite = {
        "name": "bench-cli-memory",
        "tools": TOOLS,
        "defaults": {"system": "You are a helpful assistant."},
        "case_files": ["cases.jsonl"],
    }
    path = folder / "suite.json"  # JSON is YAML; no PyYAML dump needed
    path.write_text(json.dumps(suite, indent=2), encoding="utf-8")
    return path


def agentgauge_command() -> list[str]:
    script = Path(sys.executable).with_name("agentgauge")
    return [str(script)] if script.exists() else [sys.executable, "-m", "agentgauge"]


def run_once(suite: Path, out: Path, args: argparse.Namespace) -> dict[str, Any]:
    cmd = [
        *agentgauge_command(),
        "run",
        str(suite),
        "--agent",
        args.agent,
        "-o",
        str(out),
        "--no-cache",
        "--max-concurrency",
        str(args.concurrency),
        "--no-progress",
    ]
    errors = out.with_suffix(".stderr")
    with errors.open("wb") as err:
        t0 = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        # wait4: the rusage of this one child (RUSAGE_CHILDREN would be the max over all runs)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"agentgauge run failed ({child.returncode}):\n{errors.read_text()}")
    with (out / "results.jsonl").open("rb") as fh:
        results = sum(1 for _ in fh)
    return {
        "peak_rss_mb": usage.ru_maxrss / 1024.0,  # KiB on Linux
        "wall_s": wall,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "results": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--cases", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("-c", "--concurrency", type=int, default=64)
    parser.add_argument("--form", choices=["suite", "jsonl"], default="suite")
    parser.add_argument("--agent", default="mock:")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="agentgauge-bench-cli-"))
    try:
        suite = write_suite(tmp, args.cases, args.form)
        size_mb = sum(p.stat().st_size for p in tmp.iterdir()) / 1e6
        rows = []
        for i in range(args.runs):
            row = run_once(suite, tmp / f"run-{i}", args)
            shutil.rmtree(tmp / f"run-{i}")
            if row["results"] != args.cases:
                raise SystemExit(f"expected {args.cases} results, got {row['results']}")
            rows.append(row)
            print(
                f"  run {i + 1}: peak RSS {row['peak_rss_mb']:.0f} MB, wall {row['wall_s']:.1f} s, "
                f"CPU {row['cpu_s']:.1f} s"
            )
        rss = statistics.median(r["peak_rss_mb"] for r in rows)
        wall = statistics.median(r["wall_s"] for r in rows)
        cpu = statistics.median(r["cpu_s"] for r in rows)
        print(
            f"agentgauge run, {args.cases:,} cases ({args.form} form, {size_mb:.1f} MB on disk), "
            f"--agent {args.agent}, -c {args.concurrency}, {args.runs} runs, load "
            f"{os.getloadavg()[0]:.1f}"
        )
        print(
            f"  peak RSS {rss:.0f} MB (median; {min(r['peak_rss_mb'] for r in rows):.0f}-"
            f"{max(r['peak_rss_mb'] for r in rows):.0f}), target < 300 MB"
        )
        print(f"  wall {wall:.1f} s, CPU {cpu:.1f} s ({cpu / args.cases * 1000:.2f} CPU-s / 1,000)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
