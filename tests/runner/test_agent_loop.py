"""The agent loop: tool calls, simulated results, step limits and multi-turn conversations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from runner_helpers import agent, make_suite, tool_looper, weather_agent

from agentgauge.io import iter_results
from agentgauge.providers import ModelRequest
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import CaseResult, ToolCall

CFG = RunConfig(cache=False, progress=False)


def only_result(run_dir: Path) -> CaseResult:
    results = list(iter_results(run_dir))
    assert len(results) == 1
    return results[0]


def test_tool_loop_feeds_results_back_and_records_everything(tmp_path: Path) -> None:
    suite = make_suite(
        [
            {
                "id": "w1",
                "input": "Paris",
                "category": "tool_call",
                "tags": ["weather"],
                "difficulty": "easy",
                "expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
                "tool_results": {"get_weather": {"result": {"temp_c": 21, "sky": "sunny"}}},
            }
        ],
        defaults={"system": "You are a weather bot."},
    )
    provider = agent(weather_agent)
    outcome = run_suite(suite, CFG, tmp_path, provider=provider)
    r = only_result(tmp_path)
    assert (outcome.passed, outcome.failed, outcome.errors) == (1, 0, 0)
    assert r.status == "passed"
    assert [m.role for m in r.messages] == ["system", "user", "assistant", "tool", "assistant"]
    tool_msg = r.messages[3]
    assert orjson.loads(tool_msg.content or "") == {"temp_c": 21, "sky": "sunny"}
    assert tool_msg.tool_call_id == r.messages[2].tool_calls[0].id
    assert r.text == 'The tool said: {"temp_c":21,"sky":"sunny"}'
    assert [c.name for c in r.calls] == ["get_weather"]
    assert (r.model_calls, r.tool_calls) == (2, 1)
    assert [e.kind for e in r.trace] == ["model", "tool", "model"]
    tool_event = r.trace[1]
    assert tool_event.tool == "get_weather"
    assert tool_event.arguments == {"city": "Paris"}
    assert tool_event.result == {"temp_c": 21, "sky": "sunny"}
    assert r.trace[0].usage is not None
    assert r.trace[0].usage.input_tokens > 0
    assert r.usage.input_tokens == sum(e.usage.input_tokens for e in r.trace if e.usage)
    # copied from the case
    assert (r.category, r.difficulty, r.tags) == ("tool_call", "easy", ["weather"])
    assert r.expected_tools == ["get_weather"]
    assert r.expected_behavior == "tool_call"
    # the second model call saw the tool result
    assert provider.requests[1].messages[-1].role == "tool"
    assert provider.requests[0].tools[0].name == "get_weather"


def test_step_limit_ends_a_looping_agent(tmp_path: Path) -> None:
    suite = make_suite(
        [
            {
                "id": "loop",
                "input": "Paris",
                "max_steps": 3,
                "tool_results": {"get_weather": {"error": "service down"}},
            }
        ]
    )
    provider = agent(tool_looper)
    run_suite(suite, CFG, tmp_path, provider=provider)
    r = only_result(tmp_path)
    assert r.step_limit_hit
    assert r.model_calls == 3
    assert provider.calls == 3
    assert r.status == "passed"  # scored as it stands (the stand-in scorer passes it)
    assert "step limit" in r.explanation


def test_run_config_max_steps_overrides_case(tmp_path: Path) -> None:
    suite = make_suite([{"id": "loop", "input": "x", "max_steps": 5}])
    provider = agent(tool_looper)
    cfg = RunConfig(cache=False, progress=False, max_steps=2)
    run_suite(suite, cfg, tmp_path, provider=provider)
    assert only_result(tmp_path).model_calls == 2


def test_multi_turn_conversation_carries_state(tmp_path: Path) -> None:
    suite = make_suite(
        [
            {
                "id": "mt",
                "input": "Paris",
                "turns": [
                    {"user": "Lyon", "expect": {"tool_calls": [{"name": "get_weather"}]}},
                    {"user": "thanks"},
                ],
                "tool_results": {
                    "get_weather": [{"result": "sunny"}, {"result": "rainy"}],
                },
            }
        ]
    )

    def agent_fn(request: ModelRequest) -> Any:
        last = request.messages[-1]
        if last.role == "tool":
            return f"it is {last.content}"
        if last.content == "thanks":
            return "you're welcome"
        return ToolCall(name="get_weather", arguments={"city": last.content})

    provider = agent(agent_fn)
    run_suite(suite, CFG, tmp_path, provider=provider)
    r = only_result(tmp_path)
    assert [m.content for m in r.messages if m.role == "user"] == ["Paris", "Lyon", "thanks"]
    assert (r.expected_tools, r.later_expected_tools) == ([], ["get_weather"])
    assert [e.turn for e in r.trace] == [0, 0, 0, 1, 1, 1, 2]
    # successive calls get successive results, across turns
    assert [e.result for e in r.trace if e.kind == "tool"] == ["sunny", "rainy"]
    assert r.text == "you're welcome"
    # the last request holds the whole conversation so far
    assert len(provider.requests[-1].messages) == 9


def test_conversation_input_is_used_as_given(tmp_path: Path) -> None:
    suite = make_suite(
        [
            {
                "id": "conv",
                "input": [
                    {"role": "system", "content": "be brief"},
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "hello"},
                    {"role": "user", "content": "Rome"},
                ],
                "tool_results": {"get_weather": {"result": "hot"}},
            }
        ],
        defaults={"system": "ignored: the conversation has its own"},
    )
    provider = agent(weather_agent)
    run_suite(suite, CFG, tmp_path, provider=provider)
    first = provider.requests[0].messages
    assert [m.content for m in first] == ["be brief", "hi", "hello", "Rome"]
    assert only_result(tmp_path).calls[0].arguments == {"city": "Rome"}


def test_case_tool_subset_is_offered(tmp_path: Path) -> None:
    other = {"name": "get_time", "description": "time", "simulation": {"result": "noon"}}
    suite = make_suite(
        [{"id": "sub", "input": "x", "tools": ["get_time"]}],
        tools=[other, {"name": "get_weather"}],
    )
    provider = agent(lambda req: "no tools needed")
    run_suite(suite, CFG, tmp_path, provider=provider)
    assert [t.name for t in provider.requests[0].tools] == ["get_time"]


def test_seed_and_stream_reach_the_model(tmp_path: Path) -> None:
    provider = agent(lambda req: "ok")
    cfg = RunConfig(cache=False, progress=False, seed=42, stream=True)
    run_suite(make_suite([{"id": "s", "input": "x"}]), cfg, tmp_path, provider=provider)
    config = provider.requests[0].config
    assert (config.seed, config.stream, config.temperature) == (42, True, 0.0)
