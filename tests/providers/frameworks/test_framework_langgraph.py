"""``langgraph:`` runs the quickstart suite offline (fake model on loopback), mock and real."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langgraph.prebuilt")
pytest.importorskip("langchain_openai")

from framework_helpers import fake_model, fake_server, run_quickstart, tool_results
from quickstart_model import EXAMPLES

SPEC = f"langgraph:{EXAMPLES / 'langgraph_agent.py'}:graph"
__all__ = ["fake_model", "fake_server"]


@pytest.fixture(autouse=True)
def _fresh_http_client() -> None:
    # langchain-openai caches one async HTTP client, bound to the event loop of its first use;
    # each run_suite here is a new event loop (a process runs one agentgauge run per loop)
    from langchain_openai.chat_models import _client_utils

    _client_utils._cached_async_httpx_client.cache_clear()


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


def test_real_mode_runs_the_graphs_own_tools(fake_model: str, tmp_path: Path) -> None:
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
