"""BFCL multi-turn on BFCL's own back-ends (``bfcl-eval``): entries imported per category, the
ground-truth agent's pass rate live, and scoring speed of BFCL result files.

1. import: ``agentgauge import bfcl BFCL_v4_<category>.json`` for the three categories in
   ../shared/data/bfcl-v4 (and ``multi_turn_long_context`` from the bfcl-eval package's data);
2. live: ``agentgauge run`` of each category with the ``python:`` agent that plays the ground
   truth (tests/worlds/bfcl_truth_agent.py), ``--mode bfcl`` and the default mode — pass rate;
3. scoring speed: ``agentgauge score BFCL_v4_<category>.json -r RESULT --mode bfcl`` as a
   subprocess (start-up, import of the question file, both back-end executions per entry, the
   run folder included) on a function-calling result file that plays the ground truth —
   entries per second of wall time and of CPU time, medians of ``--runs`` runs; and the checker
   alone in-process (``check_bfcl_multi_turn``), entries per CPU-second.

    python benchmarks/bench_bfcl_multi.py [--runs 5]
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-bfcl-multi-"))
    sources = {c: DATA / f"BFCL_v4_{c}.json" for c in CATEGORIES}
    import bfcl_eval

    long_context = Path(bfcl_eval.__file__).parent / "data" / "BFCL_v4_multi_turn_long_context.json"
    if long_context.exists():
        sources["multi_turn_long_context"] = long_context
    print("| category | entries imported | ground-truth agent, bfcl mode | default mode | "
          "score, entries/s wall | entries/CPU-s | checker alone, entries/CPU-s |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    for category, source in sources.items():
        suite = import_suite("bfcl", [source])
        path = tmp / f"{category}.json"
        write_suite(suite, path)
        truth = write_truth_script(suite, tmp / f"{category}-truth.json")
        env = {"AGENTGAUGE_BFCL_TRUTH": str(truth)}
        agent = f"python:{TRUTH_AGENT}:agent"
        rates = []
        for mode in ("bfcl", "default"):
            run = tmp / f"{category}-{mode}"
            _cli("run", str(path), "--agent", agent, "-o", str(run), "--mode", mode,
                 "--no-cache", env=env)  # fmt: skip
            rates.append(_pass_rate(run))
        result = write_results(tmp / f"BFCL_v4_{category}_result.json", fc_result(suite))
        walls, cpus = [], []
        for i in range(args.runs):
            run = tmp / f"{category}-score-{i}"
            wall, cpu = _cli("score", str(source), "-r", str(result), "-o", str(run),
                             "--mode", "bfcl")  # fmt: skip
            walls.append(wall)
            cpus.append(cpu)
        n = len(suite.cases)
        checker = []
        for _ in range(args.runs):
            c0 = time.process_time()
            for case in suite.cases:
                gt = case.metadata["bfcl_ground_truth"]
                state = case.world.state if case.world and case.world.state else {}
                check_bfcl_multi_turn(
                    [[t] if t else [] for t in gt],  # type: ignore[union-attr]
                    gt,  # type: ignore[arg-type]
                    involved_classes=state["involved_classes"],  # type: ignore[arg-type]
                    initial_config=state["initial_config"],  # type: ignore[arg-type]
                    long_context=bool(state.get("long_context")),
                )
            checker.append(n / (time.process_time() - c0))
        print(f"| {category} | {n} | {rates[0]} | {rates[1]} | "
              f"{n / statistics.median(walls):.0f} | {n / statistics.median(cpus):.0f} | "
              f"{statistics.median(checker):.0f} |")  # fmt: skip


if __name__ == "__main__":
    main()
