"""Speed of loading and linting suites (``agentgauge validate``), on synthetic cases.

Medians over ``--runs`` in this process, for ``--cases`` cases of one tool call each (two
argument matchers):

- **jsonl**: ``load_cases`` on a JSONL file (the fast path: orjson per line, no YAML tree);
- **yaml** / **json**: ``read_suite`` on the same cases inline in a YAML / JSON suite (YAML keeps
  a node tree for line numbers; JSON finds positions only when an error needs them);
- **lint**: ``lint_suite`` on the loaded YAML suite;
- **errors**: ``load_cases`` on a JSONL file where every twentieth case is broken (all problems
  collected, each with its line).

    python benchmarks/bench_loader.py                 # 5 runs, 10,000 cases
    python benchmarks/bench_loader.py --cases 100000 --runs 3 --no-yaml
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import yaml

from agentgauge.errors import UserError
from agentgauge.io import lint_suite, load_cases, read_suite

TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["city"],
    },
}


def case(i: int, broken: bool = False) -> dict[str, Any]:
    arguments: dict[str, Any] = {
        "city": {"value": f"City {i}", "ignore_case": True},
        "unit": {"one_of": ["celsius", "fahrenheit"], "optional": True},
    }
    if broken:
        arguments["city"]["tolerance"] = "wide"
    return {
        "id": f"c{i}",
        "category": "happy_path",
        "input": f"What's the weather in City {i}?",
        "expect": {"tool_calls": [{"name": "get_weather", "arguments": arguments}]},
    }


def timed(runs: int, fn: Callable[[], Any]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def expect_errors(path: Path) -> int:
    try:
        load_cases(path)
    except UserError as err:
        return len(err.problems)
    raise AssertionError("expected problems")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--no-yaml", action="store_true", help="skip the (slow) YAML suite")
    args = parser.parse_args()
    n = args.cases
    cases = [case(i) for i in range(n)]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        jsonl = root / "cases.jsonl"
        jsonl.write_bytes(b"".join(orjson.dumps(c) + b"\n" for c in cases))
        broken = root / "broken.jsonl"
        broken.write_bytes(b"".join(orjson.dumps(case(i, i % 20 == 0)) + b"\n" for i in range(n)))
        suite = {"name": "bench", "tools": [TOOL], "cases": cases}
        json_suite = root / "suite.json"
        json_suite.write_bytes(orjson.dumps(suite, option=orjson.OPT_INDENT_2))
        rows = [("jsonl", timed(args.runs, lambda: load_cases(jsonl)))]
        rows.append(("json", timed(args.runs, lambda: read_suite(json_suite))))
        if not args.no_yaml:
            yaml_suite = root / "suite.yaml"
            yaml_suite.write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
            rows.append(("yaml", timed(args.runs, lambda: read_suite(yaml_suite))))
            loaded = read_suite(yaml_suite)
        else:
            loaded = read_suite(json_suite)
        rows.append(("lint", timed(args.runs, lambda: lint_suite(loaded))))
        assert expect_errors(broken) == min((n + 19) // 20, 1000) + ((n + 19) // 20 >= 1000)
        rows.append(("errors", timed(args.runs, lambda: expect_errors(broken))))
    print(f"{n:,} cases, median of {args.runs} runs")
    for name, seconds in rows:
        print(f"  {name:<7} {seconds:8.3f} s   {n / seconds:>10,.0f} cases/s")


if __name__ == "__main__":
    main()
