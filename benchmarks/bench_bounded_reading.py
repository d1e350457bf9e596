"""The cost of reading a run directory with the input limits (issue 21, item 4).

A journal of N results (each with a short transcript, a trace step, a call and a score: about 0.8 KB
a line) is read by ``iter_results`` (every field validated, nesting checked), ``iter_light_results``
(what metrics and reports read) and ``scan_finished`` (what ``--resume`` reads); CPU time,
medians of ``--runs`` runs. Run it with the tree to measure on ``PYTHONPATH``; comparing two
trees (before and after the limits) gives the ratio:

    PYTHONPATH=OLD/src python benchmarks/bench_bounded_reading.py
    PYTHONPATH=NEW/src python benchmarks/bench_bounded_reading.py

It imports through ``agentgauge.io`` (the facade), which both trees have.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from agentgauge.io import iter_light_results, iter_results, scan_finished


def _result(i: int) -> dict[str, object]:
    passed = i % 3 != 0
    return {
        "version": 1,
        "case_id": f"case-{i}",
        "trial": 0,
        "status": "passed" if passed else "failed",
        "score": 1.0 if passed else 0.0,
        "scores": [
            {"name": "tool_selection", "value": float(passed), "passed": passed, "explanation": "x"}
        ],
        "category": "happy_path",
        "tags": ["weather", "bench"],
        "expected_tools": ["get_weather"],
        "calls": [
            {
                "name": "get_weather",
                "arguments": {"city": "Paris", "days": 2, "opts": {"units": ["c", {"x": [1, i]}]}},
            }
        ],
        "text": "It is sunny in Paris.",
        "messages": [
            {"role": "system", "content": "You are a helpful assistant."},
            {"role": "user", "content": f"Weather in Paris, case {i}?"},
            {"role": "assistant", "content": "It is sunny in Paris."},
        ],
        "trace": [{"kind": "model", "turn": 0, "start": 1.0, "end": 1.5, "latency_ms": 500.0}],
        "usage": {"input_tokens": 20, "output_tokens": 6},
        "model_calls": 1,
        "latency_ms": 512.5,
    }


def make_run(n: int) -> Path:
    d = Path(tempfile.mkdtemp(prefix="bench-bounded-"))
    with open(d / "results.jsonl", "wb") as fh:
        for i in range(n):
            fh.write(orjson.dumps(_result(i)) + b"\n")
    return d


def cpu(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=50_000, help="results in the journal")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    run = make_run(args.n)
    try:
        size = (run / "results.jsonl").stat().st_size
        print(f"{args.n:,} results, {size / args.n:.0f} bytes a line, median of {args.runs}")
        readers: dict[str, Callable[[], object]] = {
            "iter_results": lambda: sum(1 for _ in iter_results(run)),
            "iter_light_results": lambda: sum(1 for _ in iter_light_results(run)),
            "scan_finished": lambda: scan_finished(run),
        }
        for name, fn in readers.items():
            seconds = cpu(fn, args.runs)
            print(f"  {name:20} {seconds:6.3f} s CPU  {args.n / seconds:10,.0f} results/s")
    finally:
        shutil.rmtree(run, ignore_errors=True)


if __name__ == "__main__":
    main()
