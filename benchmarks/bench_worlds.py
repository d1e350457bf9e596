"""What a world costs (docs/worlds.md): one tool call answered by a declarative world and by a
Python world (each call's writes diffed from snapshots) against the state's size; the state
checks of a case (checks, unchanged, the reference replayed and diffed); and a whole run of a
world suite against the same suite answered by static results.

    python benchmarks/bench_worlds.py [--runs 5] [--records 10,1000,10000] [--cases 500]

Medians over the runs; the machine is shared, so the load average is printed with them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from agentgauge._suite_code import SuiteCodePolicy
from agentgauge.providers import ModelRequest
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Case, Suite, ToolCall, WorldSpec
from agentgauge.scoring import score_case
from agentgauge.testing import MockProvider
from agentgauge.worlds import WorldBuilder, WorldOutcome, reference_states

OPS = {
    "cancel": {"op": "update", "collection": "orders", "key": "order_id", "fields": {},
               "set": {"status": "cancelled"}},
    "get": {"op": "get", "collection": "orders", "key": "order_id"},
}  # fmt: skip

SHOP = textwrap.dedent(
    """
    class Shop:
        def __init__(self, state):
            self.orders = state["orders"]

        def cancel(self, order_id):
            self.orders[order_id]["status"] = "cancelled"
            return {"ok": True}

        def get(self, order_id):
            return self.orders[order_id]
    """
)


def _state(n: int) -> dict[str, Any]:
    return {"orders": {f"O{i}": {"status": "pending", "total": i, "customer": f"c{i % 97}"}
                       for i in range(n)}}  # fmt: skip


def _median(samples: list[float]) -> float:
    return statistics.median(samples)


def per_call(records: int, runs: int, folder: Path) -> tuple[float, float]:
    """Microseconds per call (half updates, half gets): declarative, Python."""
    case = Case(id="c", input="x")
    calls = [ToolCall(name="cancel" if i % 2 else "get", arguments={"order_id": f"O{i % records}"})
             for i in range(200)]  # fmt: skip
    table = WorldBuilder(WorldSpec.model_validate({"state": _state(records), "operations": OPS}))
    (folder / "shop.py").write_text(SHOP)
    python = WorldBuilder(
        WorldSpec.model_validate({"class": "shop.py:Shop", "state": _state(records)}),
        SuiteCodePolicy(root=folder.resolve(), allowed=True),
    )
    out = []
    for builder in (table, python):
        samples = []
        for _ in range(runs):
            world = builder.build(case)
            t0 = time.perf_counter()
            for c in calls:
                world.apply(c)
            samples.append((time.perf_counter() - t0) / len(calls) * 1e6)
        out.append(_median(samples))
    return out[0], out[1]


def grading(records: int, runs: int) -> float:
    """Milliseconds to grade one case: 2 checks, unchanged on the collection, the reference
    replayed on a fresh world and diffed (the world built, the snapshots taken)."""
    spec = WorldSpec.model_validate({"state": _state(records), "operations": OPS})
    suite = Suite.model_validate({"name": "b", "tools": [{"name": "cancel"}, {"name": "get"}],
                                  "world": spec.model_dump(by_alias=True)})  # fmt: skip
    case = Case.model_validate({"id": "c", "input": "x", "expect": {"state": {
        "checks": [{"path": "orders.O1.status", "equals": "cancelled"},
                   {"path": "orders", "count": 1, "where": {"status": "cancelled"}}],
        "same_as_reference": True,
        "reference": [{"name": "cancel", "arguments": {"order_id": "O1"}}]}}})  # fmt: skip
    builder = WorldBuilder(spec)
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        world = builder.build(case)
        initial = world.snapshot()
        world.apply(ToolCall(name="cancel", arguments={"order_id": "O1"}))
        final = world.snapshot()
        ref, _, _ = reference_states(builder.build(case), case)
        outcome = WorldOutcome(initial=initial, turns=[final], reference=ref)
        verdict = score_case(case, [[]], suite.tool_map(), world=outcome)
        samples.append((time.perf_counter() - t0) * 1000)
        assert verdict.goal_met, verdict.explanation
    return _median(samples)


def _agent(request: ModelRequest) -> Any:
    if request.messages[-1].role == "tool":
        return "Done."
    return ToolCall(name="cancel", arguments={"order_id": request.messages[-1].content or ""})


def whole_run(cases: int, records: int, runs: int, folder: Path) -> tuple[float, float]:
    """Seconds for a run of ``cases`` cases (one call each, graded; a state of ``records``
    records): static results, world."""
    keys = [f"O{i % records}" for i in range(cases)]
    items = [{"id": f"c{i}", "input": k,
              "expect": {"tool_calls": [{"name": "cancel", "arguments": {"order_id": k}}],
                         "state": {"checks": [{"path": f"orders.{k}.status",
                                               "equals": "cancelled"}]}}}
             for i, k in enumerate(keys)]  # fmt: skip
    static_items = [{**c, "expect": {"tool_calls": c["expect"]["tool_calls"]}} for c in items]
    world = Suite.model_validate(
        {
            "name": "w",
            "tools": [{"name": "cancel"}],
            "cases": items,
            "world": {"state": _state(records), "operations": OPS},
        }
    )
    static = Suite.model_validate({"name": "s", "cases": static_items, "tools": [
        {"name": "cancel", "simulation": {"result": {"ok": True}}}]})  # fmt: skip
    out = []
    for suite in (static, world):
        samples = []
        for k in range(runs):
            provider = MockProvider([_agent], repeat_last=True, name="mock:b")
            t0 = time.perf_counter()
            run_suite(suite, RunConfig(cache=False, progress=False, max_concurrency=16),
                      folder / f"{suite.name}-{records}-{k}", provider=provider)  # fmt: skip
            samples.append(time.perf_counter() - t0)
        out.append(_median(samples))
    return out[0], out[1]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--records", default="10,1000,10000")
    ap.add_argument("--cases", type=int, default=500)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.runs} runs")
        for n in (int(x) for x in args.records.split(",")):
            table, python = per_call(n, args.runs, folder)
            print(f"{n:>6} records: per call: declarative {table:8.1f} µs, python {python:9.1f} µs;"
                  f" grading a case {grading(n, args.runs):7.2f} ms")  # fmt: skip
        for records in (20, args.cases):
            static, world = whole_run(args.cases, records, args.runs, folder)
            print(f"run of {args.cases} cases, a state of {records} records: static results "
                  f"{static:.2f} s, world {world:.2f} s (ratio {world / static:.2f})")  # fmt: skip
    sys.stdout.flush()


if __name__ == "__main__":
    main()
