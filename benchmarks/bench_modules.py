"""Cost of the module metrics (docs/metrics.md#module-metrics) in the summary pass.

Three synthetic runs of N results each are summarised (``summarize``, one streaming pass):
``plain`` (no module labels), ``labels`` (every result names its relevant knowledge, whether
it should fall back, carries user feedback, and the agent reports what it retrieved and whether
it fell back) and ``tool results`` (the same, retrieval read from a search tool's results with
``modules.retrieval``: the reader keeps each result's trace). CPU time, medians of ``--runs``.

    python benchmarks/bench_modules.py [--n 20000] [--runs 3]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

from agentgauge.metrics import summarize
from agentgauge.schema import ModuleSettings


def _row(i: int, kind: str) -> dict[str, Any]:
    row: dict[str, Any] = {"case_id": f"c{i}", "status": "passed" if i % 4 else "failed"}
    row["category"] = ("faq", "handoff", "skill")[i % 3]
    if kind == "plain":
        return row
    relevant = [f"kb-{i % 50}", f"kb-{(i + 1) % 50}"]
    got = [f"kb-{i % 50}", f"kb-{(i + 7) % 50}", f"kb-{(i + 9) % 50}"]
    row["labels"] = {"route": "kb", "knowledge": relevant, "fallback": i % 5 == 0}
    row["feedback"] = {"score": 1 + i % 5, "scale": [1, 5]}
    predicted: dict[str, Any] = {"route": "kb" if i % 10 else "skill", "fallback": i % 6 == 0}
    if kind == "labels":
        predicted["knowledge"] = got
    else:
        hits = {"hits": [{"id": k, "text": "x" * 80} for k in got]}
        row["trace"] = [
            {"kind": "tool", "start": 0, "end": 0, "latency_ms": 5, "tool": "search_kb",
             "arguments": {"query": "q"}, "result": hits}
        ]  # fmt: skip
    row["predicted_labels"] = predicted
    return row


def make_run(n: int, kind: str) -> Path:
    d = Path(tempfile.mkdtemp(prefix=f"bench-modules-{kind.replace(' ', '-')}-"))
    with open(d / "results.jsonl", "wb") as fh:
        for i in range(n):
            fh.write(orjson.dumps(_row(i, kind)) + b"\n")
    return d


def cpu(fn: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    settings = ModuleSettings.model_validate(
        {"retrieval": {"tools": ["search_kb"], "ids": "hits[].id", "k": 3}}
    )
    figures: dict[str, float] = {}
    for kind, modules in (("plain", None), ("labels", None), ("tool results", settings)):
        run = make_run(args.n, kind)
        try:
            figures[kind] = cpu(lambda r=run, m=modules: summarize(r, modules=m), args.runs)
        finally:
            shutil.rmtree(run)
    base = figures["plain"]
    print(f"summarize, {args.n} results, CPU s (median of {args.runs}):")
    for kind, t in figures.items():
        print(f"  {kind:13s} {t:6.3f} s  {t / base:5.2f}x plain  {args.n / t:9.0f} results/s")


if __name__ == "__main__":
    main()
