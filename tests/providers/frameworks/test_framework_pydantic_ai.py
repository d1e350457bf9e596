"""``pydantic-ai:`` runs the quickstart suite offline (fake model on loopback), mock and real."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("pydantic_ai")

from framework_helpers import run_quickstart, tool_results
from quickstart_model import EXAMPLES

SPEC = f"pydantic-ai:{EXAMPLES / 'pydantic_ai_agent.py'}:agent"


def test_quickstart_mock_mode_passes(fake_model: str, tmp_path: Path) -> None:
    outcome, results = run_quickstart(SPEC, tmp_path / "run")
    failed = {k: r.explanation for k, r in results.items() if r.status != "passed"}
    assert failed == {}
    assert outcome.passed == len(results) == 20
    paris = results["weather-paris"]
    simulated = {"temperature": 18, "unit": "celsius", "conditions": "partly cloudy"}
    assert tool_results(paris) == [simulated]
    models = [e for e in paris.trace if e.kind == "model"]
    assert len(models) == 2
    assert all(e.usage and e.usage.input_tokens > 0 for e in models)
    assert [m.role for m in paris.messages][-3:] == ["assistant", "tool", "assistant"]


def test_real_mode_runs_the_agents_own_tools(fake_model: str, tmp_path: Path) -> None:
    outcome, results = run_quickstart(
        SPEC,
        tmp_path / "run",
        tool_mode="real",
        case_filter=("weather-paris", "weather-service-down"),
    )
    assert tool_results(results["weather-paris"]) == [
        {"temperature": 18, "unit": "celsius", "conditions": "sunny"}
    ]
    # faults still injected on top: the suite's first get_weather answer is an error fault
    events = [e for e in results["weather-service-down"].trace if e.kind == "tool"]
    assert [e.fault for e in events] == ["error", None]
    assert outcome.record.options["tool_mode"] == "real"
