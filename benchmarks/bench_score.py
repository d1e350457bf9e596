"""Scoring throughput on every BFCL v4 single-turn case (../shared/data/bfcl-v4).

Responses are generated from the ground truth (a correct answer for every case: the first
acceptable value of each parameter, a text reply for the irrelevance categories), then:

1. in-process: ``score_case`` over all cases, default and bfcl modes — cases per CPU-second
   on one core (the process is pinned to one CPU when it can be; CPU time, so other load on the
   machine does not count against it), the wall-clock rate, and peak traced memory;
2. whole process: ``agentgauge score SUITE --responses FILE -o RUN_DIR --mode bfcl`` as a
   subprocess, start-up, suite loading, scoring, results.jsonl, summary.json and run.json
   included — wall time, CPU time (user + system) and peak RSS. The suite is the BFCL import
   saved as one JSON file (and, for comparison, the BFCL folder imported on the fly).

Medians of ``--runs`` runs.

    python benchmarks/bench_score.py [--runs 5]

``--workers 1,2`` measures ``agentgauge score --workers N`` instead: a native responses file of
``--entries`` lines (every BFCL case's reference answer, as many trials as it takes, each with
a reply text the extra scorers read) against the BFCL suite with four model-free ``scorers:``
(assert, instruction_following, safety, numeric_grounding), whole processes, the worker
counts alternating run after run: entries per second, CPU seconds of the process and of its
worker processes, and peak RSS (the largest process). ``--tree DIR`` adds the tree at DIR
(its ``src``, one process: an old tree has no ``--workers``) to the alternation;
``--rss 5000,10000,20000`` prints the one-process peak RSS at several file sizes.

    python benchmarks/bench_score.py --workers 1,2 --entries 20000 --runs 5 [--tree DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from agentgauge.io.importers import import_suite
from agentgauge.schema import Case, Message, Suite, ToolSpec
from agentgauge.scoring import ScoringConfig, score_case
from agentgauge.scoring._bfcl_truth import reference_calls

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "bfcl-v4"
CLI = str(Path(sys.executable).with_name("agentgauge"))


def _tools(suite: Suite, case: Case) -> dict[str, ToolSpec]:
    pool = suite.tool_map()
    out: dict[str, ToolSpec] = {}
    for t in case.tools or []:
        spec = t if isinstance(t, ToolSpec) else pool[t]
        out[spec.name] = spec
    return out


def _workload(suite: Suite) -> list[tuple[Case, list[list[Message]], dict[str, ToolSpec]]]:
    work = []
    for case in suite.cases:
        tools = _tools(suite, case)
        calls = reference_calls(case, tools)
        text = None if calls else "I cannot do that with these tools."
        message = Message.model_construct(
            role="assistant", content=text, tool_calls=calls, tool_call_id=None, name=None
        )
        work.append((case, [[message]], tools))
    return work


def _responses_file(work: list[Any], path: Path) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for case, turns, _ in work:
            message = turns[0][0]
            if message.tool_calls:
                result: Any = [
                    {c.name.replace(".", "_"): json.dumps(c.arguments)} for c in message.tool_calls
                ]
            else:
                result = message.content or ""
            fh.write(json.dumps({"id": case.id, "result": result}) + "\n")


def _in_process(work: list[Any], mode: str, runs: int) -> tuple[float, float, float]:
    """(cases per CPU-second, cases per wall-second, peak MiB allocated while scoring)."""
    config = ScoringConfig(mode="bfcl" if mode == "bfcl" else "default")
    cpu_rates = []
    wall_rates = []
    for _ in range(runs):
        c0, t0 = time.process_time(), time.perf_counter()
        for case, turns, tools in work:
            score_case(case, turns, tools, config)
        cpu_rates.append(len(work) / (time.process_time() - c0))
        wall_rates.append(len(work) / (time.perf_counter() - t0))
    tracemalloc.start()
    for case, turns, tools in work:
        score_case(case, turns, tools, config)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return statistics.median(cpu_rates), statistics.median(wall_rates), peak / 2**20


def _subprocess(suite: Path, responses: Path, runs: int) -> tuple[float, float, float, str]:
    walls = []
    cpus = []
    rss = []
    line = ""
    for i in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [CLI, "score", str(suite), "-r", str(responses), "-o", f"{tmp}/run{i}"]
            env = {**os.environ, "AGENTGAUGE_HISTORY": f"{tmp}/history.sqlite"}
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            before, cpu0 = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
            t0 = time.perf_counter()
            out = subprocess.run(
                [*cmd, "--mode", "bfcl"], capture_output=True, text=True, env=env, check=True
            )
            walls.append(time.perf_counter() - t0)
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(usage.ru_utime + usage.ru_stime - cpu0)
            rss.append(max(before, usage.ru_maxrss))
            line = out.stdout.splitlines()[0]
    return statistics.median(walls), statistics.median(cpus), max(rss) / 1024, line


HEAVY_SCORERS: list[dict[str, Any]] = [
    {"scorer": "assert", "args": {"not_contains": ["sorry"]}},
    {"scorer": "instruction_following", "args": {"max_words": 40}},
    {"scorer": "safety"},
    {"scorer": "numeric_grounding"},
]


def _heavy_files(suite: Suite, work: list[Any], entries: int, folder: Path) -> tuple[Path, Path]:
    """The scoring-heavy suite (BFCL's cases with :data:`HEAVY_SCORERS`) and ``entries``
    native response lines over it (trial after trial of every case's reference answer)."""
    data = json.loads(suite.model_dump_json(exclude_defaults=True))
    data["scorers"] = HEAVY_SCORERS
    suite_path = folder / "heavy.json"
    suite_path.write_text(json.dumps(data), encoding="utf-8")
    responses = folder / f"responses-{entries}.jsonl"
    with open(responses, "w", encoding="utf-8") as fh:
        for n in range(entries):
            case, turns, _ = work[n % len(work)]
            message = turns[0][0]
            calls = [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]
            text = message.content or f"Done: {len(calls)} call(s), result 42 of 100."
            line = {"case_id": case.id, "trial": n // len(work), "calls": calls, "text": text}
            fh.write(json.dumps(line) + "\n")
    return suite_path, responses


def _score_once(tree: Path | None, workers: int | None, suite: Path, responses: Path,
                tmp: str) -> tuple[float, float, float]:  # fmt: skip
    """(wall, CPU of the whole process tree, peak RSS MiB of its largest process) of one
    ``agentgauge score`` process (``tree``: another tree's ``src`` on PYTHONPATH)."""
    env = {**os.environ, "AGENTGAUGE_HISTORY": f"{tmp}/history.sqlite"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree / "src")
    run_dir = f"{tmp}/run-{time.monotonic_ns()}"
    cmd = [sys.executable, "-m", "agentgauge", "score", str(suite), "-r", str(responses),
           "-o", run_dir, "--no-history"]  # fmt: skip
    if workers is not None:
        cmd += ["--workers", str(workers)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, env=env, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, after.ru_maxrss / 1024


def _rss_only(tree: Path | None, workers: int | None, suite: Path, responses: Path) -> float:
    """Peak RSS (MiB) of one score process measured alone (ru_maxrss of this benchmark's
    children is a maximum over every child so far)."""
    code = (
        "import resource, subprocess, sys; subprocess.run(sys.argv[1:], capture_output=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "AGENTGAUGE_HISTORY": f"{tmp}/h.sqlite"}
        if tree is not None:
            env["PYTHONPATH"] = str(tree / "src")
        cmd = [sys.executable, "-m", "agentgauge", "score", str(suite), "-r", str(responses),
               "-o", f"{tmp}/run", "--no-history"]  # fmt: skip
        if workers is not None:
            cmd += ["--workers", str(workers)]
        out = subprocess.run([sys.executable, "-c", code, *cmd], capture_output=True,
                             text=True, env=env, check=True)  # fmt: skip
    return int(out.stdout.strip()) / 1024


def _workers_bench(args: argparse.Namespace) -> None:
    suite = import_suite("bfcl", [DATA])
    work = _workload(suite)
    counts = [int(w) for w in args.workers.split(",")]
    variants: list[tuple[str, Path | None, int | None]] = [
        (f"--workers {w}", None, w) for w in counts
    ]
    if args.tree:
        variants.append((f"{args.tree} (one process)", Path(args.tree), None))
    with tempfile.TemporaryDirectory() as tmp:
        suite_path, responses = _heavy_files(suite, work, args.entries, Path(tmp))
        _score_once(None, 1, suite_path, responses, tmp)  # bytecode cached, not counted
        figures: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in variants}
        loads = []
        for _ in range(args.runs):
            for label, tree, workers in variants:
                loads.append(os.getloadavg()[0])
                wall, cpu, _ = _score_once(tree, workers, suite_path, responses, tmp)
                figures[label].append((wall, cpu))
        print(f"{args.entries:,} entries, {len(work):,} BFCL cases, scorers: "
              f"{', '.join(x['scorer'] for x in HEAVY_SCORERS)}")  # fmt: skip
        base = statistics.median(w for w, _ in figures[variants[0][0]])
        for label, tree, workers in variants:
            walls = [w for w, _ in figures[label]]
            wall = statistics.median(walls)
            cpu = statistics.median(c for _, c in figures[label])
            rss = _rss_only(tree, workers, suite_path, responses)
            print(
                f"{label:>28}: {args.entries / wall:7,.0f} entries/s (wall {wall:.2f} s, runs "
                f"{', '.join(f'{w:.2f}' for w in walls)}; {wall / base:.2f} of the first), "
                f"CPU {cpu:.2f} s, peak RSS {rss:.0f} MiB"
            )
        print(f"(medians of {args.runs} runs, alternating; load average "
              f"{min(loads):.1f}-{max(loads):.1f}; {os.cpu_count()} CPUs)")  # fmt: skip
        for size in [int(x) for x in args.rss.split(",")] if args.rss else []:
            _, sized = _heavy_files(suite, work, size, Path(tmp))
            rss = _rss_only(None, 1, suite_path, sized)
            print(f"one process, {size:>7,} entries: peak RSS {rss:.0f} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--workers", help="worker counts to compare, e.g. 1,2")
    parser.add_argument("--entries", type=int, default=20_000)
    parser.add_argument("--tree", help="another checkout to alternate with (one process)")
    parser.add_argument("--rss", help="file sizes for the one-process peak RSS, e.g. 5000,20000")
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"BFCL data not found at {DATA}")
    if args.workers:
        _workers_bench(args)
        return
    cpus = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else set()
    if cpus:
        os.sched_setaffinity(0, {min(cpus)})  # in-process figures: one core
    suite = import_suite("bfcl", [DATA])
    work = _workload(suite)
    print(f"BFCL v4 single-turn cases: {len(work)}")
    for mode in ("default", "bfcl"):
        cpu_rate, wall_rate, peak = _in_process(work, mode, args.runs)
        print(
            f"in-process {mode:>7}: {cpu_rate:>9,.0f} cases per CPU-second on one core "
            f"({wall_rate:,.0f}/s wall; peak memory allocated while scoring {peak:.2f} MiB)"
        )
    rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"benchmark process peak RSS (suite + responses in memory): {rss_self:.0f} MiB")
    if cpus:
        os.sched_setaffinity(0, cpus)  # the subprocess runs like a user's would
    with tempfile.TemporaryDirectory() as tmp:
        suite_json = Path(tmp) / "bfcl.json"
        suite_json.write_text(suite.model_dump_json(exclude_defaults=True), encoding="utf-8")
        responses = Path(tmp) / "responses.jsonl"
        _responses_file(work, responses)
        for label, path in (("suite JSON", suite_json), ("BFCL folder", DATA)):
            wall, cpu, rss, line = _subprocess(path, responses, args.runs)
            print(
                f"agentgauge score ({label}): {wall:.2f} s wall, {cpu:.2f} s CPU, "
                f"peak RSS {rss:.0f} MiB"
            )
        print(f"  {line}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"(medians of {args.runs} runs; python {sys.version.split()[0]}; "
        f"{os.cpu_count()} CPUs, load average {load:.1f})"
    )


if __name__ == "__main__":
    main()
