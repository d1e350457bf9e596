"""A call's type, end to end: the tools a real MCP server serves (``tools_from``, stdio) are
``mcp`` calls, the suite's own tools ``function`` calls; ``type:`` on an expected call and
``forbidden_types`` pass and fail on them."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from agentgauge.io import iter_results, load_suite
from agentgauge.providers import ModelRequest
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import ToolCall
from agentgauge.scoring._api import score_case as real_score_case
from agentgauge.testing import MockProvider

SERVER = Path(__file__).resolve().parents[1] / "exchange" / "mcp" / "quick_server.py"

SUITE = """
name: mcp-types
tools_from:
  mcp: {{command: [{python}, quick_server.py]}}
tools:
  - name: lookup_city
    parameters: {{type: object, properties: {{city: {{type: string}}}}}}
    simulation: {{result: {{found: true}}}}
cases:
  - id: weather-is-mcp
    input: What's the weather in Paris?
    tool_results: {{get_weather: {{result: {{temperature: 5}}}}}}
    expect:
      tool_calls: [{{name: get_weather, type: mcp, arguments: {{city: Paris}}}}]
  - id: weather-as-function
    input: What's the weather in Paris?
    tool_results: {{get_weather: {{result: {{temperature: 5}}}}}}
    expect:
      tool_calls: [{{name: get_weather, type: function, arguments: {{city: Paris}}}}]
  - id: no-mcp-allowed
    input: What's the weather in Paris?
    tool_results: {{get_weather: {{result: {{temperature: 5}}}}}}
    expect:
      behavior: any_tool
      forbidden_types: [mcp]
  - id: no-function-allowed
    input: What's the weather in Paris?
    tool_results: {{get_weather: {{result: {{temperature: 5}}}}}}
    expect:
      behavior: any_tool
      forbidden_types: [function]
"""


@pytest.fixture(autouse=True)
def _real_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentgauge.scoring.score_case", real_score_case)


def weather_agent(request: ModelRequest) -> Any:
    if request.messages[-1].role == "tool":
        return "It is 5 degrees."
    return ToolCall(name="get_weather", arguments={"city": "Paris"})


def test_served_tools_are_mcp_calls(tmp_path: Path) -> None:
    shutil.copy(SERVER, tmp_path / "quick_server.py")
    suite_file = tmp_path / "suite.yaml"
    suite_file.write_text(SUITE.format(python=json.dumps(sys.executable)), encoding="utf-8")
    cfg = RunConfig(suite_path=str(suite_file), cache=False, progress=False, allow_suite_code=True)
    provider = MockProvider([weather_agent], repeat_last=True)
    outcome = run_suite(load_suite(suite_file), cfg, tmp_path / "run", provider=provider)
    assert outcome.errors == 0
    got = {r.case_id: r for r in iter_results(tmp_path / "run")}
    assert got["weather-is-mcp"].status == "passed", got["weather-is-mcp"].explanation
    assert got["weather-as-function"].status == "failed"
    assert "get_weather (function)" in got["weather-as-function"].explanation
    assert got["no-mcp-allowed"].status == "failed"
    assert "forbidden mcp tool: get_weather" in got["no-mcp-allowed"].explanation
    assert got["no-function-allowed"].status == "passed", got["no-function-allowed"].explanation
