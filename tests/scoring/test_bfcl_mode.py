"""``score_case`` in bfcl mode on agentgauge cases (imported or hand-written)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import ScorerError
from agentgauge.io import bfcl_type, read_responses
from agentgauge.schema import Case, Message, ToolCall, ToolSpec
from agentgauge.scoring import ScoringConfig, score_case
from agentgauge.scoring._bfcl import bfcl_category

BFCL = ScoringConfig(mode="bfcl")
WEATHER = ToolSpec(
    name="get_weather",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "days": {"type": "integer"},
            "temp": {"type": "number"},
        },
        "required": ["city"],
    },
)
TIME = ToolSpec(name="get_time", parameters={"type": "object", "properties": {}})
TOOLS = {"get_weather": WEATHER, "get_time": TIME}


def case(expect: dict[str, Any], **extra: Any) -> Case:
    return Case.model_validate({"id": "c", "input": "hi", "expect": expect, **extra})


def reply(*calls: tuple[str, dict[str, Any]], text: str | None = None) -> list[list[Message]]:
    tool_calls = [ToolCall(name=n, arguments=a) for n, a in calls]
    return [[Message(role="assistant", content=text, tool_calls=tool_calls)]]


def test_hand_written_case_in_bfcl_mode() -> None:
    c = case({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    assert bfcl_category(c, 2) == "multiple"
    ok = score_case(c, reply(("get_weather", {"city": "PARIS"})), TOOLS, BFCL)
    assert ok.status == "passed"
    assert ok.score == 1.0
    bad = score_case(c, reply(("get_weather", {"city": "Paris", "days": 2})), TOOLS, BFCL)
    assert bad.status == "failed"
    assert bad.explanation.startswith("simple_function_checker:unexpected_param")
    (s,) = bad.scores
    assert (s.name, s.expected, s.actual) == ("bfcl", "get_weather", "get_weather")


def test_optional_matcher_becomes_empty_string_marker() -> None:
    c = case(
        {
            "tool_calls": [
                {
                    "name": "get_weather",
                    "arguments": {"city": "Paris", "days": {"one_of": [3], "optional": True}},
                }
            ]
        }
    )
    assert score_case(c, reply(("get_weather", {"city": "Paris"})), TOOLS, BFCL).status == "passed"
    got = score_case(c, reply(("get_weather", {"city": "Paris", "days": 4})), TOOLS, BFCL)
    assert got.explanation.startswith("value_error:others")


def test_text_instead_of_a_call_is_a_decoder_failure() -> None:
    c = case({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    got = score_case(c, reply(text="It is sunny."), TOOLS, BFCL)
    assert got.status == "failed"
    assert got.explanation.startswith("ast_decoder:decoder_failed")


def test_no_tool_and_any_tool() -> None:
    irrelevant = case({"behavior": "no_tool"})
    assert score_case(irrelevant, reply(text="No."), TOOLS, BFCL).status == "passed"
    called = score_case(irrelevant, reply(("get_time", {})), TOOLS, BFCL)
    assert called.explanation.startswith("irrelevance_error:decoder_success")
    relevant = case({"behavior": "any_tool"})
    assert score_case(relevant, reply(("get_time", {})), TOOLS, BFCL).status == "passed"
    assert score_case(relevant, reply(text="?"), TOOLS, BFCL).status == "failed"


def test_matchers_bfcl_cannot_express_are_scorer_errors() -> None:
    c = case({"tool_calls": [{"name": "get_weather", "arguments": {"city": {"regex": "Par.*"}}}]})
    with pytest.raises(ScorerError, match="regex"):
        score_case(c, reply(("get_weather", {"city": "Paris"})), TOOLS, BFCL)


def test_recorded_bfcl_types_and_ground_truth_win() -> None:
    tool = ToolSpec(
        name="f",
        parameters={
            "type": "object",
            "properties": {"p": {"type": "array", "items": {"type": "number"}}},
            "required": ["p"],
        },
    )
    c = case(
        {"tool_calls": [{"name": "f", "arguments": {"p": [[1.0, 2.0]]}}]},
        metadata={
            "bfcl_category": "simple_python",
            "bfcl_types": {"f": {"p": "tuple"}},
            "bfcl_ground_truth": [{"f": {"p": [[1.0, 2.0]]}}],
        },
    )
    tup = [
        [Message(role="assistant", tool_calls=[ToolCall(name="f", arguments={"p": (1.0, 2.0)})])]
    ]
    assert score_case(c, tup, {"f": tool}, BFCL).status == "passed"


def test_bfcl_type_names_from_json_schema() -> None:
    assert bfcl_type({"type": "number"}) == "float"
    assert bfcl_type({"type": "object"}) == "dict"
    assert bfcl_type({"description": "no type"}) == "any"
    assert bfcl_type({"type": ["string", "null"]}) == "string"
    assert bfcl_type({"type": "array", "x-bfcl-type": "tuple"}) == "tuple"


def _recorded_turns(tmp_path: Path, result: object, tools: list[str]) -> list[list[Message]]:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"id": "c", "result": result}) + "\n", encoding="utf-8")
    (response,) = read_responses(path)
    return response.turns(tools)


@pytest.mark.parametrize(
    "result",
    [
        [{"get_weather": '{"city": "Paris"'}],  # arguments are not valid JSON
        [{"get_weather": "{city: Paris}"}],
        ["get_weather"],  # an item that is not {name: arguments}
        {"get_weather": '{"city": "Paris"}'},  # not a list
    ],
)
def test_undecodable_function_calling_result_is_a_decoder_failure(
    tmp_path: Path, result: object
) -> None:
    # BFCL's decoder raises on these, and BFCL reports ast_decoder:decoder_failed; this was
    # reported as a reply with no call (simple_function_checker:wrong_count)
    turns = _recorded_turns(tmp_path, result, list(TOOLS))
    simple = case({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    verdict = score_case(simple, turns, TOOLS, BFCL)
    assert verdict.status == "failed"
    assert verdict.explanation.startswith("ast_decoder:decoder_failed: ")
    parallel = case(
        {
            "tool_calls": [
                {"name": "get_weather", "arguments": {"city": "Paris"}},
                {"name": "get_weather", "arguments": {"city": "Rome"}},
            ]
        }
    )
    assert score_case(parallel, turns, TOOLS, BFCL).explanation.startswith(
        "ast_decoder:decoder_failed: "
    )
    # no call was decoded: right on an irrelevance case, wrong on a relevance case
    assert score_case(case({"behavior": "no_tool"}), turns, TOOLS, BFCL).status == "passed"
    relevance = score_case(case({"behavior": "any_tool"}), turns, TOOLS, BFCL)
    assert relevance.explanation.startswith("relevance_error:decoder_failed")


def test_decodable_results_keep_their_labels(tmp_path: Path) -> None:
    simple = case({"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]})
    ok = _recorded_turns(tmp_path, [{"get_weather": '{"city": "paris"}'}], list(TOOLS))
    assert score_case(simple, ok, TOOLS, BFCL).status == "passed"
    # an empty list decodes (to no call): BFCL counts the calls
    empty = _recorded_turns(tmp_path, [], list(TOOLS))
    assert score_case(simple, empty, TOOLS, BFCL).explanation.startswith(
        "multiple_function_checker:wrong_count"  # two tools offered: BFCL's "multiple"
    )
