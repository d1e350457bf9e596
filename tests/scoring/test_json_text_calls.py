"""A tool call written as JSON text: scored the same way by behaviour and tool selection.

Recorded responses read a text that is wholly a JSON tool call as real calls; text that reaches
the scorer as text (a live agent's reply, a transcript) is no call for both scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scoring_helpers import by_name, reply, score, tool

from agentgauge.io import import_suite, json_text_calls, read_responses
from agentgauge.io.importers import ImportOptions
from agentgauge.runner import score_responses
from agentgauge.schema import CaseResult
from agentgauge.scoring import ScoringConfig, classify_behavior

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {
        "type": "dict",
        "required": ["city"],
        "properties": {"city": {"type": "string", "description": "City name"}},
    },
}
TIME_TOOL = {
    "name": "get_time",
    "description": "Local time in a city.",
    "parameters": {
        "type": "dict",
        "required": ["city"],
        "properties": {"city": {"type": "string", "description": "City name"}},
    },
}


def _row(uuid: str, correct: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    """A row in When2Call's format (written for this test)."""
    return {
        "uuid": uuid,
        "source": "test",
        "source_id": uuid,
        "question": "What's the weather in Oslo?",
        "correct_answer": correct,
        "answers": {
            "direct": "It is 3 °C and cloudy in Oslo.",
            "tool_call": json.dumps({"name": "get_weather", "arguments": {"city": "Oslo"}}),
            "request_for_info": "Which Oslo do you mean?",
            "cannot_answer": "I'm sorry, I can't check the weather.",
        },
        "target_tool": "get_weather" if correct == "tool_call" else None,
        "tools": [json.dumps(t) for t in tools],
        "orig_tools": [json.dumps(t) for t in tools],
    }


def _score(tmp_path: Path, rows: list[dict[str, Any]], texts: dict[str, str]) -> list[CaseResult]:
    data = tmp_path / "when2call.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    suite = import_suite("when2call", [data], ImportOptions())
    responses = tmp_path / "responses.jsonl"
    ids = {c.metadata["uuid"]: c.id for c in suite.cases}
    responses.write_text(
        "".join(json.dumps({"case_id": ids[u], "text": t}) + "\n" for u, t in texts.items()),
        encoding="utf-8",
    )
    run = tmp_path / "run"
    score_responses(suite, read_responses(responses), run, ScoringConfig())
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return [CaseResult.model_validate_json(line) for line in lines]


def _named(r: CaseResult, name: str) -> Any:
    return next(s for s in r.scores if s.name == name)


def _selection(r: CaseResult) -> Any:
    return _named(r, "tool_selection")


def test_a_right_json_text_call_passes_behaviour_and_tool_selection(tmp_path: Path) -> None:
    rows = [_row("a", "tool_call", [WEATHER_TOOL, TIME_TOOL])]
    (r,) = _score(tmp_path, rows, {"a": rows[0]["answers"]["tool_call"]})
    # before: behavior tool_call, tool selection "<no tool>", failed
    assert r.status == "passed", r.explanation
    assert r.behavior == "tool_call"
    assert _selection(r).passed is True
    assert _selection(r).actual == "get_weather"
    assert [c.name for c in r.calls] == ["get_weather"]
    assert r.calls[0].arguments == {"city": "Oslo"}


def test_a_wrong_tool_in_json_text_fails_tool_selection(tmp_path: Path) -> None:
    rows = [_row("a", "tool_call", [WEATHER_TOOL, TIME_TOOL])]
    wrong = json.dumps({"name": "get_time", "arguments": {"city": "Oslo"}})
    (r,) = _score(tmp_path, rows, {"a": wrong})
    assert r.status == "failed"
    assert r.behavior == "tool_call"
    assert _selection(r).passed is False
    assert (_selection(r).expected, _selection(r).actual) == ("get_weather", "get_time")


def test_a_json_text_call_where_none_is_wanted_fails(tmp_path: Path) -> None:
    # cannot_answer: the tool was taken away; writing its call as JSON is still a call
    rows = [_row("a", "cannot_answer", [TIME_TOOL])]
    (r,) = _score(tmp_path, rows, {"a": rows[0]["answers"]["tool_call"]})
    assert r.status == "failed"
    assert _selection(r).passed is False
    assert _selection(r).actual == "get_weather"
    assert _named(r, "behavior").actual == "tool_call"


def test_read_responses_decodes_only_a_whole_json_call(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    lines = [
        {"case_id": "a", "text": '{"name": "f", "arguments": {"x": 1}}'},
        {"case_id": "b", "text": '```json\n[{"name": "f", "parameters": "{\\"x\\": 2}"}]\n```'},
        {"case_id": "c", "text": 'Calling {"name": "f", "arguments": {}} now'},
        {"case_id": "d", "text": '{"temperature": 20}'},
        {"case_id": "e", "text": '{"name": "f", "arguments": {}}', "calls": [{"name": "g"}]},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    got = {r.case_id: r for r in read_responses(path)}
    assert [(c.name, c.arguments) for c in got["a"].calls] == [("f", {"x": 1})]
    assert got["a"].form == "native-json-text"
    assert [(c.name, c.arguments) for c in got["b"].calls] == [("f", {"x": 2})]
    assert (got["c"].calls, got["c"].form) == ([], "native")
    assert (got["d"].calls, got["d"].form) == ([], "native")
    # real calls given: the text stays text
    assert ([c.name for c in got["e"].calls], got["e"].form) == (["g"], "native")


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ('{"name": "f", "arguments": {}}', ["f"]),
        ('[{"name": "f", "arguments": {}}, {"name": "g", "parameters": {"a": 1}}]', ["f", "g"]),
        ('{"name": "f", "arguments": "{\\"a\\": 1}"}', ["f"]),
        ('{"name": "f"}', None),
        ('{"name": "", "arguments": {}}', None),
        ('{"name": "f", "arguments": [1]}', None),
        ('{"name": "f", "arguments": "not json"}', None),
        ("[]", None),
        ('[{"name": "f", "arguments": {}}, 3]', None),
        ("The answer is 4.", None),
        ("", None),
    ],
)
def test_json_text_calls(text: str, names: list[str] | None) -> None:
    calls = json_text_calls(text)
    assert (None if calls is None else [c.name for c in calls]) == names


def test_text_given_as_text_is_no_call_for_either_score() -> None:
    """A live agent's reply (or a transcript) that writes a call as text: not a call."""
    text = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'
    weather = tool("get_weather", {"city": {"type": "string"}})
    cs = score({"tool_calls": [{"name": "get_weather"}]}, reply(text=text), [weather])
    # before: behaviour tool_call while tool selection said <no tool>
    assert cs.behavior == "answer"
    assert by_name(cs, "tool_selection").actual == "<no tool>"
    assert cs.status == "failed"
    assert classify_behavior(text, []) == "answer"
