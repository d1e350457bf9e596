"""Tool calls written as text in a provider's own JSON shape (OpenAI ``tool_calls``, Anthropic
``tool_use``, Gemini ``functionCall``) are read as calls, as the ``{name, arguments}`` shape is;
the opt-in lenient reading also finds calls inside prose (docs/scoring.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scoring_helpers import by_name, reply, score, tool

from agentgauge.formats import json_text_calls, text_calls
from agentgauge.io import read_responses
from agentgauge.runner import score_responses
from agentgauge.schema import CaseResult, Defaults, Suite
from agentgauge.scoring import ScoringConfig

ARGS = {"city": "Oslo"}
OPENAI_MESSAGE = {
    "role": "assistant",
    "content": None,
    "tool_calls": [
        {
            "id": "call_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps(ARGS)},
        }
    ],
}
OPENAI_COMPLETION = {"id": "x", "choices": [{"index": 0, "message": OPENAI_MESSAGE}]}
OPENAI_LEGACY = {"role": "assistant", "function_call": {"name": "get_weather", "arguments": "{}"}}
RESPONSES_ITEM = {"type": "function_call", "call_id": "c", "name": "get_weather", "arguments": "{}"}
RESPONSES_MCP = {"type": "mcp_call", "server_label": "w", "name": "get_weather", "arguments": "{}"}
RESPONSES = {"output": [{"type": "reasoning", "summary": []}, RESPONSES_ITEM]}
ANTHROPIC_BLOCK = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": ARGS}
ANTHROPIC_CONTENT = [{"type": "text", "text": "Checking."}, ANTHROPIC_BLOCK]
ANTHROPIC_MESSAGE = {"role": "assistant", "content": ANTHROPIC_CONTENT, "stop_reason": "tool_use"}
GEMINI_PART = {"functionCall": {"name": "get_weather", "args": ARGS}}
GEMINI_CONTENT = {"role": "model", "parts": [GEMINI_PART]}
GEMINI_RESPONSE = {"candidates": [{"content": GEMINI_CONTENT, "finishReason": "STOP"}]}
GEMINI_SNAKE = {"function_call": {"name": "get_weather", "args": ARGS}}


@pytest.mark.parametrize(
    "shape",
    [
        OPENAI_MESSAGE,
        OPENAI_MESSAGE["tool_calls"],
        OPENAI_MESSAGE["tool_calls"][0],
        OPENAI_COMPLETION,
        OPENAI_LEGACY,
        RESPONSES_ITEM,
        RESPONSES_MCP,
        RESPONSES,
        ANTHROPIC_BLOCK,
        ANTHROPIC_CONTENT,
        ANTHROPIC_MESSAGE,
        GEMINI_PART,
        [GEMINI_PART],
        GEMINI_CONTENT,
        GEMINI_RESPONSE,
        GEMINI_SNAKE,
    ],
)
def test_a_provider_shape_written_as_the_whole_text_is_read_as_calls(shape: Any) -> None:
    calls = json_text_calls(json.dumps(shape))
    assert calls is not None
    assert [c.name for c in calls] == ["get_weather"]
    assert calls[0].arguments in (ARGS, {})


@pytest.mark.parametrize(
    "shape",
    [
        {"role": "assistant", "content": "It is sunny."},
        {"content": [{"type": "text", "text": "It is sunny."}]},
        {"candidates": [{"content": {"parts": [{"text": "It is sunny."}]}}]},
        {"tool_calls": []},
        {"type": "function", "function": {"name": "", "arguments": "{}"}},
        {"type": "function", "function": {"name": "f", "arguments": "not json"}},
        {"type": "tool_use", "name": "f", "input": [1, 2]},
        [ANTHROPIC_BLOCK, 3],
        {"functionCall": {"args": {}}},
        {"temperature": 20},
    ],
)
def test_json_that_is_not_only_calls_is_not_read_as_calls(shape: Any) -> None:
    assert json_text_calls(json.dumps(shape)) is None


PROSE = (
    'Sure! I will look that up: {"name": "get_weather", "arguments": {"city": "Oslo"}} '
    "and then tell you."
)
HERMES = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>'
FENCED = 'Let me check.\n```json\n[{"name": "get_weather", "arguments": {"city": "Oslo"}}]\n```'


@pytest.mark.parametrize("text", [PROSE, HERMES, FENCED])
def test_the_lenient_reading_finds_calls_inside_prose(text: str) -> None:
    assert json_text_calls(text) is None  # strict: not the whole text
    calls = text_calls(text, lenient=True)
    assert calls is not None
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", ARGS)]


def test_the_lenient_reading_keeps_order_and_skips_other_json() -> None:
    text = (
        'First {"name": "a", "arguments": {}}, the config {"debug": true}, then '
        '[{"name": "b", "arguments": {"x": 1}}, {"name": "c", "arguments": {}}].'
    )
    calls = text_calls(text, lenient=True)
    assert calls is not None
    assert [c.name for c in calls] == ["a", "b", "c"]
    assert text_calls("No calls here {not json} [1, 2].", lenient=True) is None


WEATHER = tool("get_weather", {"city": {"type": "string"}})
EXPECT = {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}


def test_a_call_in_prose_passes_only_with_the_lenient_opt_in() -> None:
    strict = score(EXPECT, reply(text=PROSE), [WEATHER])
    assert strict.status == "failed"
    assert by_name(strict, "tool_selection").actual == "<no tool>"
    lenient = score(EXPECT, reply(text=PROSE), [WEATHER], ScoringConfig(text_calls="lenient"))
    assert lenient.status == "passed", lenient.explanation
    assert lenient.behavior == "tool_call"
    # a wrong call written in prose still fails
    wrong = PROSE.replace("Oslo", "Rome")
    cs = score(EXPECT, reply(text=wrong), [WEATHER], ScoringConfig(text_calls="lenient"))
    assert cs.status == "failed"
    assert "get_weather.city: expected 'Oslo', got 'Rome'" in cs.explanation


def test_the_suite_default_turns_the_lenient_reading_on() -> None:
    config = ScoringConfig().for_suite(Suite(name="s", defaults=Defaults(text_calls="lenient")))
    assert score(EXPECT, reply(text=HERMES), [WEATHER], config).status == "passed"
    # a reply that quotes no call is unchanged
    assert score(EXPECT, reply(text="It is sunny."), [WEATHER], config).status == "failed"


def test_recorded_responses_in_provider_shapes_are_scored_as_calls(tmp_path: Path) -> None:
    suite = Suite.model_validate(
        {
            "name": "s",
            "tools": [WEATHER.model_dump()],
            "cases": [
                {"id": "openai", "input": "Weather in Oslo?", "expect": EXPECT},
                {"id": "anthropic", "input": "Weather in Oslo?", "expect": EXPECT},
                {"id": "gemini", "input": "Weather in Oslo?", "expect": EXPECT},
                {"id": "wrong", "input": "Weather in Oslo?", "expect": EXPECT},
            ],
        }
    )
    wrong = {**GEMINI_PART, "functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}
    texts = {
        "openai": OPENAI_MESSAGE,
        "anthropic": ANTHROPIC_CONTENT,
        "gemini": GEMINI_RESPONSE,
        "wrong": wrong,
    }
    path = tmp_path / "responses.jsonl"
    path.write_text(
        "".join(json.dumps({"case_id": k, "text": json.dumps(v)}) + "\n" for k, v in texts.items()),
        encoding="utf-8",
    )
    run = tmp_path / "run"
    score_responses(suite, read_responses(path), run, ScoringConfig())
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    got = {r.case_id: r for r in map(CaseResult.model_validate_json, lines)}
    for case in ("openai", "anthropic", "gemini"):
        assert got[case].status == "passed", (case, got[case].explanation)
        assert [c.name for c in got[case].calls] == ["get_weather"]
    assert got["wrong"].status == "failed"
    assert "expected 'Oslo', got 'Rome'" in got["wrong"].explanation
