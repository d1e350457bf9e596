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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"BFCL data not found at {DATA}")
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
