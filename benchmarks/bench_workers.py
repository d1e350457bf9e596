"""Whole ``agentgauge run`` processes: model calls/s against the limit C/L with one process and
with worker processes (``--workers``), and the wall time of a one-case run (start-up and exit).

- **throughput**: N single-turn cases (a system prompt, one user message, four tools offered)
  through the real ``openai:`` adapter against the loopback fake OpenAI-compatible server
  (``python -m agentgauge.testing.fake_openai --latency-ms L``, its own process), at
  concurrency C, cache off: the whole command as a user runs it (``agentgauge run suite.json
  --agent openai:fake-model --base-url URL --no-cache --no-history --max-concurrency C``), once
  per ``--workers`` value, the values alternating run after run. Reported: model calls/s over
  the process's whole wall time as a fraction of C/L, the same over the call phase alone (the
  first model call's start to the last one's end, from the results' traces), and the CPU
  seconds of the command (its children included) and of the server, per 1,000 cases.
- **startup**: ``agentgauge run one.yaml --agent mock: --no-cache --no-history`` of a one-case
  suite, bytecode cached (``PYTHONPYCACHEPREFIX``, written by a first run that is not counted),
  wall and CPU time of the whole process. ``--tree DIR`` runs another checkout's ``src`` (e.g.
  the commit before a change) beside this one.

    python benchmarks/bench_workers.py --only throughput -c 64 -l 50 -n 2000 --runs 5
    python benchmarks/bench_workers.py --only throughput -c 256 -l 50 -n 5000 --workers 1,2
    python benchmarks/bench_workers.py --only startup --runs 9 --tree /path/to/old/checkout

Medians over ``--runs``; the load average before each run is printed with it.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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

from bench_runner import FakeServer, _suite_data  # noqa: E402

SRC = HERE.parents[1] / "src"

ONE_CASE = """\
name: one
tools:
  - name: get_weather
    description: Weather for a city.
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
cases:
  - id: c1
    input: What is the weather in Paris?
    expect:
      tool_calls:
        - name: get_weather
          arguments: {city: Paris}
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _env(src: Path, tmp: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(src), "OPENAI_API_KEY": "bench-not-a-key"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode cached, as an installed package has it
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    env["AGENTGAUGE_HISTORY"] = str(tmp / "history.sqlite")
    return env


def _timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return wall, cpu, done.stderr


def _write_suite(tmp: Path, n: int) -> Path:
    data = _suite_data(n)
    cases = data.pop("cases")
    data["case_files"] = ["cases.jsonl"]
    (tmp / "suite.json").write_text(json.dumps(data))
    (tmp / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    return tmp / "suite.json"


def _call_phase_s(run_dir: Path) -> float:
    """The call phase: from the first model call's start to the last one's end (the trace)."""
    first, last = float("inf"), 0.0
    with open(run_dir / "results.jsonl", "rb") as fh:
        for line in fh:
            trace = json.loads(line)["trace"]
            if trace:
                first = min(first, trace[0]["start"])
                last = max(last, trace[-1]["end"])
    return last - first


#: the command of ``throughput``: ``agentgauge`` whose exit writes its own CPU seconds and its
#: worker processes' (its waited children) to $BENCH_CPU_FD
CPU_DRIVER = r"""
import atexit, json, os, resource, sys
def done():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = [me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime]
    os.write(int(os.environ["BENCH_CPU_FD"]), json.dumps(cpu).encode())
atexit.register(done)
from agentgauge.cli import main
main(sys.argv[1:])
"""


def _run_split(cmd: list[str], env: dict[str, str]) -> tuple[float, float, float]:
    """Wall seconds, the command's own CPU seconds and its worker processes'."""
    read, write = os.pipe()
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
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        raw = fh.read()
    if done.returncode not in (0, 1) or not raw:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    own, workers = json.loads(raw)
    return wall, float(own), float(workers)


def bench_throughput(args: argparse.Namespace) -> None:
    limit = args.concurrency / (args.latency_ms / 1000.0)
    workers = [int(w) for w in args.workers.split(",")]
    rows: dict[int, list[dict[str, float]]] = {w: [] for w in workers}
    tmp = Path(tempfile.mkdtemp(prefix="bench-workers-"))
    try:
        suite = _write_suite(tmp, args.cases)
        env = _env(SRC, tmp)
        exe = [sys.executable, "-c", CPU_DRIVER]
        # the bytecode and the code cache of every module a run imports, written by a one-case
        # run that is not counted (``--help`` alone left the run's modules to the first
        # measured run: it came out ~0.3 of C/L below the others)
        (tmp / "one.yaml").write_text(ONE_CASE)
        warm = [sys.executable, "-m", "agentgauge", "run", str(tmp / "one.yaml"), "--agent"]
        warm += ["mock:", "-o", str(tmp / "warm"), "--no-cache", "--no-history"]
        subprocess.run(warm, env=env, capture_output=True, check=True)
        for run in range(args.runs):
            for w in workers if run % 2 == 0 else workers[::-1]:
                load = os.getloadavg()[0]
                server = FakeServer(args.latency_ms)
                out = tmp / f"run-{run}-{w}"
                try:
                    cpu0 = server.cpu_s()
                    cmd = [*exe, "run", str(suite), "--agent", "openai:fake-model"]
                    cmd += ["--base-url", server.url, "-o", str(out), "--no-cache"]
                    cmd += ["--max-concurrency", str(args.concurrency), "--no-progress"]
                    cmd += ["--no-history", "--workers", str(w)]
                    wall, own, kids = _run_split(cmd, env)
                    server_cpu = server.cpu_s() - cpu0
                finally:
                    server.close()
                phase = _call_phase_s(out)
                shutil.rmtree(out, ignore_errors=True)
                rows[w].append(
                    {
                        "whole": args.cases / wall / limit,
                        "phase": args.cases / phase / limit,
                        "wall": wall,
                        "cpu": (own + kids) / args.cases * 1000,
                        "own": own / args.cases * 1000,
                        "kids": kids / args.cases * 1000,
                        "server": server_cpu / args.cases * 1000,
                        "load": load,
                    }
                )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"whole agentgauge run: N={args.cases} C={args.concurrency} L={args.latency_ms:g} ms "
        f"(limit {limit:.0f} calls/s), {os.cpu_count()} CPUs, {args.runs} runs each"
    )
    for w in workers:
        r = rows[w]

        def med(key: str, r: list[dict[str, float]] = r) -> float:
            return statistics.median(x[key] for x in r)

        spread = ", ".join(f"{x['whole']:.2f}" for x in r)
        print(
            f"  --workers {w}: whole {med('whole'):.2f} of C/L ({spread}), call phase "
            f"{med('phase'):.2f}, wall {med('wall'):.2f} s, CPU {med('cpu'):.2f} s/1000 cases "
            f"(this process {med('own'):.2f}, workers {med('kids'):.2f}) "
            f"(server {med('server'):.2f}), load {min(x['load'] for x in r):.1f}-"
            f"{max(x['load'] for x in r):.1f}"
        )


def bench_startup(args: argparse.Namespace) -> None:
    trees = [("this tree", SRC)] + ([("--tree", Path(args.tree) / "src")] if args.tree else [])
    tmp = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    try:
        (tmp / "one.yaml").write_text(ONE_CASE)
        results: dict[str, list[tuple[float, float, float]]] = {name: [] for name, _ in trees}
        for run in range(args.runs + 1):
            for name, src in trees if run % 2 == 0 else trees[::-1]:
                out = tmp / "run"
                shutil.rmtree(out, ignore_errors=True)
                cmd = [sys.executable, "-m", "agentgauge", "run", str(tmp / "one.yaml")]
                cmd += ["--agent", "mock:", "-o", str(out), "--no-cache", "--no-history"]
                load = os.getloadavg()[0]
                wall, cpu, _ = _timed(cmd, _env(src, tmp / name.replace(" ", "-")))
                if run:  # the first run writes the bytecode
                    results[name].append((wall, cpu, load))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"one-case agentgauge run, whole process, bytecode cached, {args.runs} runs")
    for name, rows in results.items():
        walls = ", ".join(f"{w:.3f}" for w, _, _ in rows)
        print(
            f"  {name}: wall {statistics.median(w for w, _, _ in rows):.3f} s ({walls}), CPU "
            f"{statistics.median(c for _, c, _ in rows):.3f} s, load "
            f"{min(x[2] for x in rows):.1f}-{max(x[2] for x in rows):.1f}"
        )


#: the child program of ``phases``: a one-case ``agentgauge run`` with a mark (a monotonic
#: time, comparable with the parent's) between its phases, written to $BENCH_PHASES at exit
PHASES_DRIVER = r"""
import time
T = [("python", time.monotonic())]
import atexit, gc, json, os, sys
gc.disable()  # as agentgauge.cli.main does while modules import
def mark(name):
    T.append((name, time.monotonic()))
def timed(module, attr, name):
    fn = getattr(module, attr)
    def wrapper(*a, **k):
        mark(name + ":start")
        try:
            return fn(*a, **k)
        finally:
            mark(name)
    setattr(module, attr, wrapper)
import agentgauge.cli
from agentgauge.cli import _startup
_startup.begin()  # as main does first: the bytecode cache, no pydantic plugin discovery
mark("cli")
import pydantic.plugin._loader as loader
mark("pydantic import")
loader.get_plugins()
mark("plugin discovery")
import agentgauge.cli._run, agentgauge.metrics as m, agentgauge.report as r, agentgauge.runner as ru
import agentgauge.suites as su
m.finish_run, r.render_console, ru.arun_suite, ru.run_suite_file, su.open_suite
mark("run imports")
timed(ru, "run_suite_file", "run")
timed(su, "open_suite", "suite read")
timed(m, "finish_run", "summary")
timed(r, "render_console", "console")
def done():
    mark("atexit")
    os.write(int(os.environ["BENCH_PHASES_FD"]), json.dumps(T).encode())
atexit.register(done)
agentgauge.cli.main(sys.argv[1:])
"""

#: the phases shown, each from the mark before it
PHASE_ROWS = [
    ("interpreter start (python, site)", "python"),
    ("import agentgauge.cli (click, secrets)", "cli"),
    ("import pydantic core", "pydantic import"),
    ("pydantic plugin discovery (entry points)", "plugin discovery"),
    ("the run's modules (runner, schema, metrics, report)", "run imports"),
    ("click parsing, RunConfig", "run:start"),
    ("run: read the suite header", "suite read"),
    ("run: plan, run dir, run.json, drive, journal", "run"),
    ("summary.json (finish_run)", "summary"),
    ("console report (rich)", "console"),
    ("to the end of main", "atexit"),
    ("interpreter exit", "exit"),
]


def _phases_once(tmp: Path) -> tuple[dict[str, float], float]:
    out = tmp / "run"
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-c", PHASES_DRIVER, "run", str(tmp / "one.yaml"), "--agent"]
    cmd += ["mock:", "-o", str(out), "--no-cache", "--no-history"]
    read, write = os.pipe()
    env = {**_env(SRC, tmp), "BENCH_PHASES_FD": str(write)}
    cpu0, t0 = _children_cpu(), time.monotonic()
    subprocess.run(cmd, env=env, capture_output=True, check=True, pass_fds=(write,))
    end, cpu = time.monotonic(), _children_cpu() - cpu0
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        marks = [(str(n), float(t)) for n, t in json.loads(fh.read())]
    marks.append(("exit", end))
    at: dict[str, float] = {}
    last = t0
    for name, when in marks:
        at[name] = when - last
        last = when
    at["total"] = end - t0
    return at, cpu


def bench_phases(args: argparse.Namespace) -> None:
    """Where a one-case run's wall time goes (medians), bytecode cached."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-phases-"))
    try:
        (tmp / "one.yaml").write_text(ONE_CASE)
        _phases_once(tmp)  # writes the bytecode
        runs = [_phases_once(tmp) for _ in range(args.runs)]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    total = statistics.median(r["total"] for r, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    print(f"one-case run by phase (wall ms, median of {args.runs}; load {os.getloadavg()[0]:.1f})")
    for label, key in PHASE_ROWS:
        print(f"  {statistics.median(r.get(key, 0.0) for r, _ in runs) * 1000:7.1f}  {label}")
    print(f"  {total * 1000:7.1f}  whole process (CPU {cpu * 1000:.0f} ms)")


#: the child program of ``runphases``: a many-case ``agentgauge run`` (as ``throughput`` runs
#: it) with a mark (``time.time()``, the clock of the results' traces) between its phases,
#: written to $BENCH_PHASES_FD at exit; a function that a tree does not have is not marked
RUN_PHASES_DRIVER = r"""
import time
T = [("python", time.time())]
import atexit, gc, json, os, sys
gc.disable()  # as agentgauge.cli.main does while modules import
def mark(name):
    T.append((name, time.time()))
def timed(module, attr, name):
    fn = getattr(module, attr, None)
    if fn is None:
        return
    if hasattr(fn, "__aenter__") or attr in ASYNC:
        async def awrapper(*a, **k):
            mark(name + ":start")
            try:
                return await fn(*a, **k)
            finally:
                mark(name)
        setattr(module, attr, awrapper)
        return
    def wrapper(*a, **k):
        mark(name + ":start")
        try:
            return fn(*a, **k)
        finally:
            mark(name)
    setattr(module, attr, wrapper)
ASYNC = {"run_workers"}
import agentgauge.cli
import agentgauge.cli._run, agentgauge.metrics as m, agentgauge.report as r, agentgauge.runner as ru
import agentgauge.suites as su
m.finish_run, r.render_console, ru.arun_suite, ru.run_suite_file, su.open_suite
import agentgauge.runner._suite as rs
mark("imports")
timed(ru, "run_suite_file", "run")
timed(su, "open_suite", "suite read")
timed(rs, "plan_run", "plan")
timed(rs, "run_workers", "workers")
timed(m, "finish_run", "summary")
timed(r, "render_console", "console")
def done():
    mark("atexit")
    os.write(int(os.environ["BENCH_PHASES_FD"]), json.dumps(T).encode())
atexit.register(done)
agentgauge.cli.main(sys.argv[1:])
"""

#: the phases of ``runphases``, each from the mark before it (``first call`` and ``last call``
#: from the results' traces)
RUN_PHASE_ROWS = [
    ("interpreter start (python, site)", "python"),
    ("imports (cli, pydantic, runner, schema, metrics, report)", "imports"),
    ("click parsing, RunConfig", "run:start"),
    ("run: the suite read and checked (every case)", "suite read"),
    ("run: suite code, scorers, provider, MCP, lock", "plan:start"),
    ("run: plan, resume, run.json (git state)", "plan"),
    ("run: cache, context, executor, workers start", "workers:start"),
    ("to the first model call's start", "first call"),
    ("the call phase (first call's start to last call's end)", "last call"),
    ("after the last call: the workers end", "workers"),
    ("run: journal closed, run.json finished", "run"),
    ("summary.json (finish_run)", "summary"),
    ("console report (rich)", "console"),
    ("to the end of main", "atexit"),
    ("interpreter exit", "exit"),
]


def _call_span(run_dir: Path) -> tuple[float, float]:
    """The first model call's start and the last one's end (``time.time()``, the traces)."""
    first, last = float("inf"), 0.0
    with open(run_dir / "results.jsonl", "rb") as fh:
        for line in fh:
            trace = json.loads(line)["trace"]
            if trace:
                first = min(first, trace[0]["start"])
                last = max(last, trace[-1]["end"])
    return first, last


def _run_phases_once(
    args: argparse.Namespace, suite: Path, out: Path, env: dict[str, str]
) -> tuple[dict[str, float], float]:
    server = FakeServer(args.latency_ms)
    try:
        cmd = [sys.executable, "-c", RUN_PHASES_DRIVER, "run", str(suite)]
        cmd += ["--agent", "openai:fake-model", "--base-url", server.url, "-o", str(out)]
        cmd += ["--no-cache", "--max-concurrency", str(args.concurrency), "--no-progress"]
        cmd += ["--no-history", "--workers", "1"]
        read, write = os.pipe()
        cpu0, t0 = _children_cpu(), time.time()
        subprocess.run(
            cmd,
            env={**env, "BENCH_PHASES_FD": str(write)},
            capture_output=True,
            check=True,
            pass_fds=(write,),
        )
        end, cpu = time.time(), _children_cpu() - cpu0
    finally:
        server.close()
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        marks = [(str(n), float(t)) for n, t in json.loads(fh.read())]
    first, last = _call_span(out)
    shutil.rmtree(out, ignore_errors=True)
    marks += [("first call", first), ("last call", last), ("exit", end)]
    order = [key for _, key in RUN_PHASE_ROWS]
    at: dict[str, float] = {}
    when = dict(marks)
    last_t = t0
    for key in order:  # each phase from the mark before it in RUN_PHASE_ROWS' order
        if key in when:
            at[key] = when[key] - last_t
            last_t = when[key]
    at["total"], at["to first call"] = end - t0, first - t0
    return at, cpu


def bench_run_phases(args: argparse.Namespace) -> None:
    """Where a many-case run's wall time goes (medians), bytecode cached, ``--workers 1``."""
    limit = args.concurrency / (args.latency_ms / 1000.0)
    trees = [("this tree", SRC)] + ([("--tree", Path(args.tree) / "src")] if args.tree else [])
    tmp = Path(tempfile.mkdtemp(prefix="bench-runphases-"))
    runs: dict[str, list[tuple[dict[str, float], float, float]]] = {n: [] for n, _ in trees}
    try:
        suite = _write_suite(tmp, args.cases)
        for run in range(args.runs + 1):
            for name, src in trees if run % 2 == 0 else trees[::-1]:
                env = _env(src, tmp / name.replace(" ", "-"))
                load = os.getloadavg()[0]
                at, cpu = _run_phases_once(args, suite, tmp / "run", env)
                if run:  # the first run writes the bytecode
                    runs[name].append((at, cpu, load))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(
        f"{args.cases}-case run by phase, C={args.concurrency} L={args.latency_ms:g} ms "
        f"(C/L: {args.cases / limit * 1000:.0f} ms of calls), wall ms, median of {args.runs}"
    )
    for name, rows in runs.items():
        loads = [x[2] for x in rows]
        print(f"  {name} (load {min(loads):.1f}-{max(loads):.1f}):")
        for label, key in RUN_PHASE_ROWS:
            print(
                f"    {statistics.median(r.get(key, 0.0) for r, _, _ in rows) * 1000:7.1f}  {label}"
            )
        total = statistics.median(r["total"] for r, _, _ in rows)
        first = statistics.median(r["to first call"] for r, _, _ in rows)
        cpu = statistics.median(c for _, c, _ in rows)
        whole = ", ".join(f"{args.cases / r['total'] / limit:.2f}" for r, _, _ in rows)
        print(f"    {first * 1000:7.1f}  start to the first model call")
        print(
            f"    {total * 1000:7.1f}  whole process (CPU {cpu * 1000:.0f} ms, not the server's)"
            f"; whole {args.cases / total / limit:.2f} of C/L ({whole})"
        )


def bench_importtime(args: argparse.Namespace) -> None:
    """``-X importtime`` of a one-case run: the self time of each top-level package (median)."""
    import re

    tmp = Path(tempfile.mkdtemp(prefix="bench-imports-"))
    line = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)")
    totals: list[dict[str, float]] = []
    try:
        (tmp / "one.yaml").write_text(ONE_CASE)
        cmd = [sys.executable, "-X", "importtime", "-m", "agentgauge", "run"]
        cmd += [str(tmp / "one.yaml"), "--agent", "mock:", "--no-cache", "--no-history"]
        for run in range(args.runs + 1):
            out = tmp / "run"
            shutil.rmtree(out, ignore_errors=True)
            _, _, err = _timed([*cmd, "-o", str(out)], _env(SRC, tmp))
            by: dict[str, float] = {}
            for m in line.finditer(err):
                top = m.group(2).split(".")[0]
                if top == "agentgauge":
                    top = ".".join(m.group(2).split(".")[:2])
                by[top] = by.get(top, 0.0) + int(m.group(1)) / 1000
            if run:
                totals.append(by)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    names = {n for t in totals for n in t}
    med = {n: statistics.median(t.get(n, 0.0) for t in totals) for n in names}
    print(f"imports of a one-case run, self ms by package (median of {args.runs}; importtime's")
    print(f"own overhead included): total {sum(med.values()):.0f} ms, {len(names)} packages")
    for name, ms in sorted(med.items(), key=lambda x: -x[1])[: args.top]:
        print(f"  {ms:7.1f}  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        choices=["throughput", "startup", "phases", "runphases", "imports"],
        action="append",
    )
    parser.add_argument("--top", type=int, default=20, help="packages shown (imports)")
    parser.add_argument("-n", "--cases", type=int, default=2000)
    parser.add_argument("-c", "--concurrency", type=int, default=64)
    parser.add_argument("-l", "--latency-ms", type=float, default=50.0)
    parser.add_argument("--workers", default="1,2", help="comma-separated --workers values")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", help="another checkout to time beside this one (startup)")
    args = parser.parse_args()
    parts: list[Any] = args.only or ["startup", "phases", "imports", "throughput"]
    if "startup" in parts:
        bench_startup(args)
    if "phases" in parts:
        bench_phases(args)
    if "runphases" in parts:
        bench_run_phases(args)
    if "imports" in parts:
        bench_importtime(args)
    if "throughput" in parts:
        bench_throughput(args)


if __name__ == "__main__":
    main()
