"""End-to-end verdicts of score_case for single calls and behaviours."""

from __future__ import annotations

import pytest
from scoring_helpers import by_name, call, reply, score, tool

from agentgauge.scoring import ScoringConfig

WEATHER = tool(
    "get_weather",
    {"location": {"type": "string"}, "unit": {"type": "string", "default": "celsius"}},
    ["location"],
)
EXPECT = {
    "tool_calls": [
        {"name": "get_weather", "arguments": {"location": {"one_of": ["New York", "NYC"]}}}
    ]
}


def test_right_call_passes() -> None:
    cs = score(EXPECT, reply(call("get_weather", location="NYC")), [WEATHER])
    assert cs.status == "passed"
    assert cs.score == 1.0
    assert cs.explanation == ""
    assert [s.name for s in cs.scores] == ["tool_selection", "arguments"]
    sel = by_name(cs, "tool_selection")
    assert (sel.expected, sel.actual) == ("get_weather", "get_weather")
    assert cs.behavior == "tool_call"


def test_wrong_value_explains_itself() -> None:
    cs = score(EXPECT, reply(call("get_weather", location="Newark")), [WEATHER])
    assert cs.status == "failed"
    assert (
        cs.explanation == "get_weather.location: expected one of ['New York', 'NYC'], got 'Newark'"
    )
    args = by_name(cs, "arguments")
    assert [p.name for p in args.parts] == ["get_weather.location"]
    assert args.value == 0.0
    assert 0 < cs.score < 1


def test_wrong_tool_records_confusion() -> None:
    cs = score(EXPECT, reply(call("search_web", query="weather NYC")), [WEATHER])
    sel = by_name(cs, "tool_selection")
    assert sel.passed is False
    assert (sel.expected, sel.actual) == ("get_weather", "search_web")
    assert sel.explanation == "expected a call to get_weather, got search_web"
    assert cs.score == 0.0


def test_no_call_when_one_expected() -> None:
    cs = score(EXPECT, reply(text="It is sunny."), [WEATHER])
    sel = by_name(cs, "tool_selection")
    assert sel.actual == "<no tool>"
    assert cs.status == "failed"
    assert cs.behavior == "answer"


def test_extra_argument_fails_by_default_and_can_be_allowed() -> None:
    msgs = reply(call("get_weather", location="NYC", days=3))
    cs = score(EXPECT, msgs, [WEATHER])
    assert cs.status == "failed"
    assert (
        "get_weather.days: unexpected argument not in the tool's schema (got 3)" in cs.explanation
    )
    assert score(EXPECT, msgs, [WEATHER], ScoringConfig(extra_arguments="allow")).status == "passed"
    allow = {"tool_calls": [{**EXPECT["tool_calls"][0], "extra_arguments": "allow"}]}
    assert score(allow, msgs, [WEATHER]).status == "passed"


def test_extra_argument_equal_to_schema_default_is_fine() -> None:
    cs = score(EXPECT, reply(call("get_weather", location="NYC", unit="celsius")), [WEATHER])
    assert cs.status == "passed"


@pytest.mark.parametrize(
    ("behavior", "text", "passed"),
    [
        ("clarify", "Which city do you mean?", True),
        ("clarify", "It is 20°C in Paris.", False),
        ("refuse", "I'm sorry, but I can't book flights.", True),
        ("answer", "The capital of France is Paris.", True),
        ("answer", "Could you tell me which France you mean?", False),
    ],
)
def test_behaviours(behavior: str, text: str, passed: bool) -> None:
    cs = score({"behavior": behavior}, reply(text=text), [WEATHER])
    assert by_name(cs, "behavior").passed is passed
    assert cs.status == ("passed" if passed else "failed")


def test_behaviour_failure_names_both_labels() -> None:
    cs = score({"behavior": "clarify"}, reply(text="It is 20°C."), [WEATHER])
    assert cs.explanation == "expected behaviour clarify, got answer: 'It is 20°C.'"


def test_no_tool_and_any_tool() -> None:
    cs = score({"behavior": "no_tool"}, reply(call("get_weather", location="x")), [WEATHER])
    sel = by_name(cs, "tool_selection")
    assert (sel.passed, sel.expected, sel.actual) == (False, "<no tool>", "get_weather")
    assert score({"behavior": "no_tool"}, reply(text="no idea"), [WEATHER]).status == "passed"
    assert score({"behavior": "any_tool"}, reply(call("whatever")), [WEATHER]).status == "passed"
    assert score({"behavior": "any_tool"}, reply(text="hm"), [WEATHER]).status == "failed"


def test_custom_behaviour_classifier() -> None:
    config = ScoringConfig(behavior_classifier=lambda text, calls: "refuse")
    cs = score({"behavior": "refuse"}, reply(text="Sure, here you go."), [WEATHER], config)
    assert cs.status == "passed"
    assert cs.behavior == "refuse"


def test_empty_expectation_passes() -> None:
    cs = score({}, reply(text="hello"))
    assert (cs.status, cs.score, cs.scores) == ("passed", 1.0, [])


def test_bfcl_mode_delegates(monkeypatch: pytest.MonkeyPatch) -> None:
    import agentgauge.scoring._bfcl as bfcl
    from agentgauge.scoring import CaseScore

    sentinel = CaseScore(status="passed", score=1.0)
    monkeypatch.setattr(bfcl, "score_bfcl", lambda case, turns, tools: sentinel)
    assert score(EXPECT, reply(), [WEATHER], ScoringConfig(mode="bfcl")) is sentinel


def test_weighting_default_and_custom() -> None:
    cs = score(EXPECT, reply(call("get_weather", location="Newark")), [WEATHER])
    assert cs.score == pytest.approx(1 / 3)  # tool_selection 1 (weight 1), arguments 0 (weight 2)
    config = ScoringConfig(weights={"tool_selection": 1.0, "arguments": 1.0})
    cs = score(EXPECT, reply(call("get_weather", location="Newark")), [WEATHER], config)
    assert cs.score == pytest.approx(0.5)


def test_a_failed_case_never_scores_one() -> None:
    config = ScoringConfig(weights={"tool_selection": 1.0, "arguments": 0.0})
    cs = score(EXPECT, reply(call("get_weather", location="Newark")), [WEATHER], config)
    assert cs.status == "failed"
    assert cs.score == 0.99
