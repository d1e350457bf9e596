"""``openai-agents:`` runs the quickstart suite offline (fake model on loopback), mock and real."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("agents.run")

from framework_helpers import run_quickstart, tool_results
from quickstart_model import EXAMPLES

SPEC = f"openai-agents:{EXAMPLES / 'openai_agents_agent.py'}:agent"


def test_quickstart_mock_mode_passes(fake_model: str, tmp_path: Path) -> None:
    outcome, results = run_quickstart(SPEC, tmp_path / "run")
    failed = {k: r.explanation for k, r in results.items() if r.status != "passed"}
    assert failed == {}
    assert outcome.passed == len(results) == 20
    paris = results["weather-paris"]
    # the suite's simulation answered, observed through the SDK's hooks
    assert tool_results(paris) == [
        {"temperature": 18, "unit": "celsius", "conditions": "partly cloudy"}
    ]
    models = [e for e in paris.trace if e.kind == "model"]
    assert len(models) == 2
    assert all(e.usage and e.usage.input_tokens > 0 for e in models)
    assert [m.role for m in paris.messages][-3:] == ["assistant", "tool", "assistant"]
    assert outcome.record.options["tool_mode"] == "mock"
    assert outcome.provider_calls == sum(r.model_calls for r in results.values()) > 20


def test_real_mode_runs_the_agents_own_tools(fake_model: str, tmp_path: Path) -> None:
    outcome, results = run_quickstart(
        SPEC, tmp_path / "run", tool_mode="real", case_filter=("weather-paris", "flights-*")
    )
    assert tool_results(results["weather-paris"]) == [
        {"temperature": 18, "unit": "celsius", "conditions": "sunny"}
    ]
    assert results["weather-paris"].status == "passed"
    assert outcome.record.options["tool_mode"] == "real"


def test_real_mode_faults_on_top(fake_model: str, tmp_path: Path) -> None:
    # weather-service-down: the suite's first get_weather result is an error fault, injected in
    # real mode too; the agent's retry reaches its own tool
    _, results = run_quickstart(
        SPEC, tmp_path / "run", tool_mode="real", case_filter=("weather-service-down",)
    )
    events = [e for e in results["weather-service-down"].trace if e.kind == "tool"]
    assert [e.fault for e in events] == ["error", None]
    assert events[1].result == {"temperature": 18, "unit": "celsius", "conditions": "sunny"}
    assert results["weather-service-down"].status == "passed"
