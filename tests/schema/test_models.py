"""The on-disk models: shorthand expansion, validation rules, and strictness."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agentgauge.schema import ArgMatcher, Case, Expectation, Suite, ToolSim


def test_scalar_shorthand_is_exact_value() -> None:
    m = ArgMatcher.model_validate("Paris")
    assert m.value == "Paris"
    assert m.fields is None


def test_mapping_without_matcher_keys_is_a_nested_object() -> None:
    m = ArgMatcher.model_validate(
        {"city": "Paris", "geo": {"lat": {"tolerance": 0.1, "value": 48.8}}}
    )
    assert m.fields is not None
    assert m.fields["city"].value == "Paris"
    geo = m.fields["geo"].fields
    assert geo is not None
    assert geo["lat"].tolerance == 0.1
    assert geo["lat"].value == 48.8


def test_list_with_matchers_becomes_items() -> None:
    m = ArgMatcher.model_validate([{"one_of": ["a", "b"]}, "c"])
    assert m.items is not None
    assert m.items[0].one_of == ["a", "b"]
    assert m.items[1].value == "c"


def test_list_with_a_matcher_nested_in_an_object_becomes_items() -> None:
    m = ArgMatcher.model_validate([{"name": "Ann"}, {"name": {"regex": "B.*"}}])
    assert m.items is not None
    second = m.items[1].fields
    assert second is not None
    assert second["name"].regex == "B.*"
    first = m.items[0].fields
    assert first is not None
    assert first["name"].value == "Ann"


def test_inferred_behavior_is_visible_in_dumps() -> None:
    e = Expectation.model_validate({"tool_calls": [{"name": "f"}]})
    assert e.model_dump()["behavior"] == "tool_call"


def test_plain_list_is_exact_value() -> None:
    m = ArgMatcher.model_validate([1, 2, 3])
    assert m.value == [1, 2, 3]
    assert m.items is None


def test_matcher_with_unknown_key_is_rejected() -> None:
    with pytest.raises(ValidationError, match="toleranse"):
        ArgMatcher.model_validate({"value": 1, "toleranse": 0.1})


def test_tool_calls_imply_tool_call_behavior() -> None:
    e = Expectation.model_validate({"tool_calls": [{"name": "f", "arguments": {"x": 1}}]})
    assert e.behavior == "tool_call"


def test_clarify_cannot_carry_tool_calls() -> None:
    with pytest.raises(ValidationError, match="cannot have expected tool_calls"):
        Expectation.model_validate({"behavior": "clarify", "tool_calls": [{"name": "f"}]})


def test_tool_call_behavior_needs_calls() -> None:
    with pytest.raises(ValidationError, match="needs at least one"):
        Expectation.model_validate({"behavior": "tool_call"})


def test_case_rejects_unknown_fields() -> None:
    with pytest.raises(ValidationError, match="inptu"):
        Case.model_validate({"id": "a", "inptu": "hi"})


def test_tool_sim_error_implies_error_fault() -> None:
    sim = ToolSim.model_validate({"error": "service unavailable"})
    assert sim.fault == "error"


def test_tool_sim_rejects_result_and_fault() -> None:
    with pytest.raises(ValidationError, match="either 'result' or 'fault'"):
        ToolSim.model_validate({"result": {"ok": True}, "fault": "timeout"})


def test_suite_tools_for_case() -> None:
    suite = Suite.model_validate(
        {
            "name": "s",
            "tools": [{"name": "a"}, {"name": "b"}],
            "cases": [
                {"id": "1", "input": "hi"},
                {"id": "2", "input": "hi", "tools": ["b", {"name": "inline"}]},
            ],
        }
    )
    assert [t.name for t in suite.tools_for(suite.cases[0])] == ["a", "b"]
    assert [t.name for t in suite.tools_for(suite.cases[1])] == ["b", "inline"]


def test_case_with_an_empty_conversation_is_rejected() -> None:
    with pytest.raises(ValidationError, match="at least one message"):
        Case.model_validate({"id": "a", "input": []})
