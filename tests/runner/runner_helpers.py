"""Runner test helpers: small suites, a stand-in scorer and scripted agents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agentgauge.providers import ModelRequest
from agentgauge.schema import Case, Message, Suite, ToolCall, ToolSpec
from agentgauge.scoring import CaseScore, ScoringConfig
from agentgauge.testing import MockProvider


def simple_score(
    case: Case,
    turns: Sequence[Sequence[Message]],
    tools: Mapping[str, ToolSpec],
    config: ScoringConfig = ScoringConfig(),
) -> CaseScore:
    """Passes when every expected tool was called (the runner's tests do not test scoring)."""
    called = {c.name for turn in turns for m in turn if m.role == "assistant" for c in m.tool_calls}
    expected = {c.name for c in case.expect.tool_calls}
    missing = sorted(expected - called)
    if missing:
        return CaseScore(status="failed", score=0.0, explanation=f"missing calls: {missing}")
    return CaseScore(status="passed", score=1.0, behavior="tool_call" if called else "answer")


WEATHER = ToolSpec(
    name="get_weather",
    description="Current weather in a city",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
)


def make_suite(cases: list[dict[str, Any]], **extra: Any) -> Suite:
    data: dict[str, Any] = {"name": "t", "tools": [WEATHER.model_dump()], "cases": cases}
    data.update(extra)
    return Suite.model_validate(data)


def weather_agent(request: ModelRequest) -> Any:
    """Calls get_weather for the last user message, then answers with what the tool said."""
    last = request.messages[-1]
    if last.role == "tool":
        return f"The tool said: {last.content}"
    return ToolCall(name="get_weather", arguments={"city": last.content or ""})


def tool_looper(request: ModelRequest) -> Any:
    """Never stops calling the tool (a stuck agent)."""
    return ToolCall(name="get_weather", arguments={"city": "Paris"})


def agent(fn: Any, name: str = "mock:test") -> MockProvider:
    return MockProvider([fn], repeat_last=True, name=name)
