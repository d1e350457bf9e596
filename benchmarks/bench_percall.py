"""CPU per model call of a whole ``agentgauge run``, two source trees alternating run after run.

The same command as ``bench_workers.py --only throughput`` (N single-turn cases through the real
``openai:`` adapter against the loopback fake server, its own process, latency L, concurrency
C, cache and history off, bytecode cached), run once per tree per round, the trees' order
swapped each round, so a machine shared with other work loads both alike. Reported per tree,
medians over ``--runs``: calls/s over the whole process and over the call phase as fractions of
C/L, CPU seconds per 1,000 calls of the ``agentgauge`` process (its ``--workers`` children
apart), of its garbage collector (``gc.callbacks``, process time) and of the server, the
collections made, and the one-minute load average before the runs.

``--callgrind`` instead counts the instructions of each tree's whole run under valgrind (exact
and repeatable; one run each; kernel time, e.g. the sockets' sends, is not counted): the
difference between two trees over N calls is their difference per call.

    python benchmarks/bench_percall.py --tree /path/to/old/checkout -c 256 -n 5000 --runs 5
    python benchmarks/bench_percall.py --tree OLD -c 256 -n 2000 --callgrind
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
sys.path.insert(0, str(HERE.parent))

from bench_runner import FakeServer  # noqa: E402
from bench_workers import _call_phase_s, _env, _write_suite  # noqa: E402

SRC = HERE.parents[1] / "src"

#: ``agentgauge`` whose exit writes its CPU seconds and its collector's to $BENCH_CPU_FD
DRIVER = r"""
import atexit, gc, json, os, resource, sys, time
spent = [0.0, 0, 0.0]
def timed(phase, info):
    if phase == "start":
        spent[2] = time.process_time()
    else:
        spent[0] += time.process_time() - spent[2]
        spent[1] += 1
gc.callbacks.append(timed)
def done():
    me = resource.getrusage(resource.RUSAGE_SELF)
    out = [me.ru_utime + me.ru_stime, spent[0], spent[1]]
    os.write(int(os.environ["BENCH_CPU_FD"]), json.dumps(out).encode())
atexit.register(done)
from agentgauge.cli import main
main(sys.argv[1:])
"""


def _command(suite: Path, url: str, out: Path, args: argparse.Namespace) -> list[str]:
    cmd = ["run", str(suite), "--agent", "openai:fake-model", "--base-url", url, "-o", str(out)]
    cmd += ["--no-cache", "--no-progress", "--no-history"]
    return [*cmd, "--max-concurrency", str(args.concurrency), "--workers", str(args.workers)]


def _once(src: Path, suite: Path, tmp: Path, args: argparse.Namespace) -> dict[str, float]:
    env = _env(src, tmp)
    load = os.getloadavg()[0]
    out = tmp / "run"
    read, write = os.pipe()
    server = FakeServer(args.latency_ms)
    try:
        server0 = server.cpu_s()
        cmd = [sys.executable, "-c", DRIVER, *_command(suite, server.url, out, args)]
        t0 = time.perf_counter()
        done = subprocess.run(
            cmd,
            env={**env, "BENCH_CPU_FD": str(write)},
            capture_output=True,
            text=True,
            check=False,
            pass_fds=(write,),
        )
        wall = time.perf_counter() - t0
        server_cpu = server.cpu_s() - server0
    finally:
        server.close()
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        raw = fh.read()
    if done.returncode not in (0, 1) or not raw:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    cpu, gc_cpu, collections = json.loads(raw)
    phase = _call_phase_s(out)
    shutil.rmtree(out, ignore_errors=True)
    n, limit = args.cases, args.concurrency / (args.latency_ms / 1000.0)
    return {
        "whole": n / wall / limit,
        "phase": n / phase / limit,
        "cpu": cpu / n * 1000,
        "gc": gc_cpu / n * 1000,
        "collections": collections,
        "server": server_cpu / n * 1000,
        "load": load,
    }


def _instructions(src: Path, suite: Path, tmp: Path, args: argparse.Namespace) -> int:
    env = _env(src, tmp)
    server = FakeServer(args.latency_ms)
    try:
        base = [sys.executable, "-m", "agentgauge"]
        warm = _command(suite, server.url, tmp / "warm", args)
        subprocess.run([*base, *warm], env=env, capture_output=True, check=False)  # bytecode
        grind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp / 'cg.out'}"]
        cmd = [*grind, *base, *_command(suite, server.url, tmp / "run", args)]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    finally:
        server.close()
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None or done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
    for name in ("run", "warm"):
        shutil.rmtree(tmp / name, ignore_errors=True)
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", help="another checkout, timed beside this one")
    parser.add_argument("-n", "--cases", type=int, default=5000)
    parser.add_argument("-c", "--concurrency", type=int, default=256)
    parser.add_argument("-l", "--latency-ms", type=float, default=50.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--callgrind", action="store_true", help="count instructions instead")
    args = parser.parse_args()
    trees = [("this tree", SRC)] + ([("--tree", Path(args.tree) / "src")] if args.tree else [])
    tmp = Path(tempfile.mkdtemp(prefix="bench-percall-"))
    try:
        suite = _write_suite(tmp, args.cases)
        head = f"N={args.cases} C={args.concurrency} L={args.latency_ms:g} ms"
        if args.callgrind:
            for label, src in trees:
                ir = _instructions(src, suite, tmp, args)
                print(f"{label}: {head}: {ir / 1e9:.4f} G instructions")
            return
        rows: dict[str, list[dict[str, Any]]] = {label: [] for label, _ in trees}
        for run in range(args.runs):
            for label, src in trees if run % 2 == 0 else trees[::-1]:
                rows[label].append(_once(src, suite, tmp, args))
        print(f"whole agentgauge run, --workers {args.workers}: {head}, {args.runs} runs each")
        for label, r in rows.items():
            med = {k: statistics.median(x[k] for x in r) for k in r[0]}
            spread = ", ".join(f"{x['cpu']:.2f}" for x in r)
            print(
                f"  {label}: whole {med['whole']:.2f} of C/L, call phase {med['phase']:.2f}; "
                f"CPU {med['cpu']:.3f} s/1000 calls ({spread}), of it GC {med['gc']:.3f} "
                f"({med['collections']:.0f} collections); server {med['server']:.3f}; load "
                f"{min(x['load'] for x in r):.1f}-{max(x['load'] for x in r):.1f}"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
