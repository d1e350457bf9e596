"""What the checks of issue 25 item 1 cost (docs/scoring.md, "What must not happen").

1. ``score_case`` on one turn (three calls, their results, a reply): the expected calls alone,
   then the same with every check (forbidden types and tools, an allowlist glob, a banned
   argument value, a forbidden sequence, four bounds, a ``not``) — CPU µs per case and ratio;
2. a text-only reply of about 2,000 characters with one call written in its prose, read
   strictly (the default) and leniently (``text_calls: lenient``) — µs per case and ratio;
3. the mutation audit of examples/guardrails as shipped (strict) and with
   ``defaults.text_calls: lenient`` — mutants built and CPU seconds.

Medians of ``--runs`` runs (CPU time of this process, so other load on the machine does not
count).

    python benchmarks/bench_checks.py [--runs 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgauge.mutation import AuditConfig, audit_suite
from agentgauge.schema import Case, Message, ToolCall, ToolSpec
from agentgauge.scoring import ScoringConfig, score_case
from agentgauge.suites import load_suite

GUARDRAILS = Path(__file__).resolve().parents[1] / "examples" / "guardrails" / "suite.yaml"
N = 2_000

TOOLS = [
    ToolSpec.model_validate(
        {"name": n, "mcp": n == "kb_search", "parameters": {"type": "object", "properties": p}}
    )
    for n, p in [
        ("get_weather", {"city": {"type": "string"}}),
        ("get_quote", {"amount": {"type": "number"}}),
        ("confirm", {}),
        ("transfer", {"amount": {"type": "number"}}),
        ("delete_user", {"id": {"type": "string"}}),
        ("kb_search", {"q": {"type": "string"}}),
    ]
]
PLAIN: dict[str, Any] = {
    "order": "superset",
    "tool_calls": [
        {"name": "get_weather", "arguments": {"city": "Oslo"}},
        {"name": "get_quote", "arguments": {"amount": 10}},
        {"name": "transfer", "arguments": {"amount": 10}},
    ],
}
CHECKS: dict[str, Any] = {
    **PLAIN,
    "forbidden_types": ["mcp"],
    "forbidden_tools": ["delete_*"],
    "allowed_tools": ["get_*", "confirm", "transfer"],
    "forbidden_arguments": {"*": {"city": {"regex": ".*password.*"}}},
    "forbidden_sequences": [{"after": "get_quote", "then": "transfer", "unless": ["confirm"]}],
    "max_calls": 5,
    "min_calls": 1,
    "max_model_steps": 6,
    "min_model_steps": 1,
    "not": {"order": "superset", "tool_calls": [{"name": "delete_*", "args_match": "ignore"}]},
}


def _turn() -> list[Message]:
    out: list[Message] = []
    plan: list[tuple[str, dict[str, Any]]] = [
        ("get_weather", {"city": "Oslo"}),
        ("get_quote", {"amount": 10}),
        ("confirm", {}),
        ("transfer", {"amount": 10}),
    ]
    for k, (name, args) in enumerate(plan):
        call = ToolCall(name=name, arguments=args, id=f"c{k}")
        out.append(Message(role="assistant", tool_calls=[call]))
        out.append(Message(role="tool", content='{"ok": true}', tool_call_id=f"c{k}", name=name))
    out.append(Message(role="assistant", content="Done."))
    return out


def _prose() -> list[Message]:
    call = json.dumps({"name": "get_weather", "arguments": {"city": "Oslo"}})
    filler = "The forecast service answers in a moment; " * 22
    return [Message(role="assistant", content=f"{filler}I will call {call} now. {filler}")]


def _cpu(fn: Callable[[], object], n: int) -> float:
    """CPU µs per call of ``fn`` over ``n`` calls."""
    start = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - start) / n * 1e6


def _score_bench(runs: int) -> None:
    tools = {t.name: t for t in TOOLS}
    turn = [_turn()]
    config = ScoringConfig()
    for expect in (PLAIN, CHECKS):
        case = Case.model_validate({"id": "c", "input": "q", "expect": expect})
        assert score_case(case, turn, tools, config).status == "passed"
    no_not = {k: v for k, v in CHECKS.items() if k != "not"}
    rows = [
        ("expected calls only", PLAIN),
        ("every check but not", no_not),
        ("every check", CHECKS),
    ]
    base = 0.0
    for label, expect in rows:
        case = Case.model_validate({"id": "c", "input": "q", "expect": expect})

        def one(case: Case = case) -> object:
            return score_case(case, turn, tools, config)

        us = statistics.median(_cpu(one, N) for _ in range(runs))
        base = base or us
        print(f"score_case, {label + ':':22} {us:8.1f} µs/case  ({us / base:.2f}×)")


def _text_bench(runs: int) -> None:
    tools = {t.name: t for t in TOOLS}
    case = Case.model_validate(
        {"id": "c", "input": "q", "expect": {"tool_calls": [PLAIN["tool_calls"][0]]}}
    )
    turn = [_prose()]
    strict, lenient = ScoringConfig(), ScoringConfig(text_calls="lenient")
    assert score_case(case, turn, tools, strict).status == "failed"
    assert score_case(case, turn, tools, lenient).status == "passed"
    a = statistics.median(
        _cpu(lambda: score_case(case, turn, tools, strict), N) for _ in range(runs)
    )
    b = statistics.median(
        _cpu(lambda: score_case(case, turn, tools, lenient), N) for _ in range(runs)
    )
    chars = len(turn[0][0].content or "")
    print(f"{chars:,}-char prose reply, strict:  {a:8.1f} µs/case")
    print(f"{chars:,}-char prose reply, lenient: {b:8.1f} µs/case  ({b / a:.2f}×)")


def _audit_bench(runs: int) -> None:
    base = load_suite(GUARDRAILS)
    lenient = base.model_copy(
        update={"defaults": base.defaults.model_copy(update={"text_calls": "lenient"})}
    )
    for label, suite in (("strict", base), ("lenient", lenient)):
        times, built, passed = [], 0, 0
        for _ in range(runs):
            start = time.process_time()
            audit = audit_suite(suite, AuditConfig())
            times.append(time.process_time() - start)
            built = sum(len(c.verdicts) for c in audit.cases)
            passed = sum(len(c.survivors) for c in audit.cases)
        print(
            f"audit of examples/guardrails ({label}): {built} mutants, {passed} pass, "
            f"{statistics.median(times):.2f} CPU s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    _score_bench(runs)
    _text_bench(runs)
    _audit_bench(runs)


if __name__ == "__main__":
    main()
