"""BFCL multi-turn on BFCL's own back-ends (``bfcl-eval``): entries imported per category, the
ground-truth agent's pass rate live, and scoring speed of BFCL result files.

1. import: ``agentgauge import bfcl BFCL_v4_<category>.json`` for the three categories in
   ../shared/data/bfcl-v4 (and ``multi_turn_long_context`` from the bfcl-eval package's data);
2. live: ``agentgauge run`` of each category with the ``python:`` agent that plays the ground
   truth (tests/worlds/bfcl_truth_agent.py), ``--mode bfcl`` and the default mode — pass rate,
   and entries per second of the whole process (start-up, import of the suite, the agent's
   calls on fresh back-ends per entry, grading, the run folder), medians of ``--runs`` runs;
3. scoring speed: ``agentgauge score BFCL_v4_<category>.json -r RESULT --mode bfcl`` as a
   subprocess (start-up, import of the question file, both back-end executions per entry, the
   run folder included) on a function-calling result file that plays the ground truth —
   entries per second of wall time and of CPU time, medians of ``--runs`` runs; and the checker
   alone in-process (``check_bfcl_multi_turn``), entries per CPU-second.

    python benchmarks/bench_bfcl_multi.py [--runs 3]
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from agentgauge.importers import import_suite  # noqa: E402
from agentgauge.suites import write_suite  # noqa: E402
from agentgauge.worlds import check_bfcl_multi_turn  # noqa: E402
from bfcl_multi_helpers import (  # noqa: E402
    CATEGORIES,
    TRUTH_AGENT,
    fc_result,
    write_results,
    write_truth_script,
)

DATA = ROOT.parent / "shared" / "data" / "bfcl-v4"


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds of one ``agentgauge`` subprocess."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "agentgauge", *args],
        capture_output=True, text=True, check=False, env={**os.environ, **(env or {})},
    )  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(done.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _pass_rate(run: Path) -> str:
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    passed = sum(json.loads(x)["status"] == "passed" for x in lines)
    return f"{passed}/{len(lines)}"


def _median_rate(n: int, runs: list[tuple[float, float]]) -> tuple[float, float]:
    """Entries per second of wall time and per CPU-second, from the median run of each."""
    return n / statistics.median(w for w, _ in runs), n / statistics.median(c for _, c in runs)


def _live(category: str, path: Path, tmp: Path, env: dict[str, str], runs: int) -> list[str]:
    """Per mode: the ground-truth agent's pass rate and live entries/s (wall, CPU)."""
    agent = f"python:{TRUTH_AGENT}:agent"
    out = []
    n = 0
    for mode in ("bfcl", "default"):
        timings = []
        for i in range(runs):
            run = tmp / f"{category}-{mode}-{i}"
            argv = ["run", str(path), "--agent", agent, "-o", str(run), "--mode", mode]
            timings.append(_cli(*argv, "--no-cache", env=env))
            rate = _pass_rate(run)
            n = int(rate.split("/")[1])
        wall, cpu = _median_rate(n, timings)
        out += [rate, f"{wall:.0f}", f"{cpu:.0f}"]
    return out


def _checker_alone(suite: Any, runs: int) -> float:
    rates = []
    for _ in range(runs):
        c0 = time.process_time()
        for case in suite.cases:
            gt = case.metadata["bfcl_ground_truth"]
            state = case.world.state if case.world and case.world.state else {}
            check_bfcl_multi_turn(
                [[t] if t else [] for t in gt],
                gt,
                involved_classes=state["involved_classes"],
                initial_config=state["initial_config"],
                long_context=bool(state.get("long_context")),
            )
        rates.append(len(suite.cases) / (time.process_time() - c0))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-bfcl-multi-"))
    sources = {c: DATA / f"BFCL_v4_{c}.json" for c in CATEGORIES}
    import bfcl_eval

    long_context = Path(bfcl_eval.__file__).parent / "data" / "BFCL_v4_multi_turn_long_context.json"
    if long_context.exists():
        sources["multi_turn_long_context"] = long_context
    print(f"medians of {args.runs} runs; entries/s: wall / per CPU-second, whole process")
    print(
        "| category | imported | bfcl mode: passed | live/s | live/CPU-s | default mode: passed "
        "| live/s | live/CPU-s | score --mode bfcl /s | /CPU-s | checker alone /CPU-s |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for category, source in sources.items():
        suite = import_suite("bfcl", [source])
        path = tmp / f"{category}.json"
        write_suite(suite, path)
        truth = write_truth_script(suite, tmp / f"{category}-truth.json")
        live = _live(category, path, tmp, {"AGENTGAUGE_BFCL_TRUTH": str(truth)}, args.runs)
        result = write_results(tmp / f"BFCL_v4_{category}_result.json", fc_result(suite))
        scored = [
            _cli(
                "score",
                str(source),
                "-r",
                str(result),
                "-o",
                str(tmp / f"{category}-s{i}"),
                "--mode",
                "bfcl",
            )
            for i in range(args.runs)
        ]
        wall, cpu = _median_rate(len(suite.cases), scored)
        checker = _checker_alone(suite, args.runs)
        print(f"| {category} | {len(suite.cases)} | {' | '.join(live)} | "
              f"{wall:.0f} | {cpu:.0f} | {checker:.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
