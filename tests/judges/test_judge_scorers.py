"""The scorers built on the judge, with the rule-based mock judge (and scripted mocks)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from judge_helpers import call_then_reply, make_case, make_result, reply

from agentgauge.judges import (
    BehaviorJudgeScorer,
    EquivalenceScorer,
    GroundednessScorer,
    Judge,
    JudgeConfig,
    RubricScorer,
    is_judge_error,
)
from agentgauge.schema import Score
from agentgauge.testing import MockProvider


def score(scorer: Any, case: Any, result: Any, turns: Any) -> list[Score]:
    out: list[Score] = anyio.run(scorer.score, case, result, turns)
    return out


def failed(name: str) -> Score:
    return Score(name=name, value=0.0, passed=False, explanation=f"{name} failed")


WEATHER = {
    "input": "Weather in NYC?",
    "expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "New York"}}]},
}


def test_argument_equivalence_passes_nyc_for_new_york_and_overrides_the_fail(
    rule_judge: Judge,
) -> None:
    case = make_case(**WEATHER)
    result = make_result(scores=[failed("arguments")])
    turns = call_then_reply("get_weather", {"city": "NYC"}, '{"temp_c": 20}', "It's 20°C.")
    [s] = score(EquivalenceScorer(rule_judge), case, result, turns)
    assert s.passed is True
    assert s.name == "judge.equivalence"
    assert s.parts[0].name == "get_weather.city"
    assert '"NYC" vs expected "New York": equivalent' in s.parts[0].explanation
    assert "equivalence_arguments@v1" in s.parts[0].explanation
    assert result.status == "passed"
    assert "passed on semantic equivalence" in result.explanation


def test_argument_equivalence_rejects_a_different_city(rule_judge: Judge) -> None:
    case = make_case(**WEATHER)
    result = make_result(scores=[failed("arguments")])
    turns = call_then_reply("get_weather", {"city": "Boston"}, "{}", "ok")
    [s] = score(EquivalenceScorer(rule_judge), case, result, turns)
    assert s.passed is False
    assert result.status == "failed"
    assert "different" in s.explanation


def test_equivalence_does_not_override_other_failures(rule_judge: Judge) -> None:
    case = make_case(**WEATHER)
    result = make_result(scores=[failed("arguments"), failed("order")])
    turns = call_then_reply("get_weather", {"city": "NYC"}, "{}", "ok")
    [s] = score(EquivalenceScorer(rule_judge), case, result, turns)
    assert s.passed is True
    assert result.status == "failed"


def test_equivalence_is_skipped_when_the_exact_match_passed(rule_judge: Judge) -> None:
    case = make_case(**WEATHER)
    turns = call_then_reply("get_weather", {"city": "NYC"}, "{}", "ok")
    assert score(EquivalenceScorer(rule_judge), case, make_result("passed"), turns) == []


@pytest.mark.parametrize(
    ("behavior", "reference", "good", "bad"),
    [
        ("answer", "Paris", "The capital of France is Paris.", "It is Lyon."),
        (
            "clarify",
            "Which date do you want to fly?",
            "Sure - what date would you like to fly on?",
            "I booked the 9:40 flight for you.",
        ),
        (
            "refuse",
            "I can't book hotels.",
            "Sorry, I cannot make hotel reservations.",
            "Your hotel is booked!",
        ),
        (
            "recover",
            "The booking service failed; I can try again later.",
            "The booking system returned an error. Shall I retry in a minute?",
            "Your table is booked for 8 pm.",
        ),
    ],
)
def test_reply_equivalence_per_behavior(
    rule_judge: Judge, behavior: str, reference: str, good: str, bad: str
) -> None:
    case = make_case(expect={"behavior": behavior, "reference": reference})
    [ok] = score(EquivalenceScorer(rule_judge), case, make_result(text=good), reply(good))
    [no] = score(EquivalenceScorer(rule_judge), case, make_result(text=bad), reply(bad))
    assert (ok.passed, no.passed) == (True, False), (ok.explanation, no.explanation)


def test_each_equivalence_kind_uses_its_own_prompt() -> None:
    seen = []
    for behavior in ("answer", "clarify", "refuse", "recover"):
        mock = MockProvider(['{"reasoning": "r", "verdict": "equivalent"}'])
        case = make_case(expect={"behavior": behavior, "reference": "ref"})
        score(
            EquivalenceScorer(Judge(mock, JudgeConfig(cache=False))),
            case,
            make_result(),
            reply("x"),
        )
        seen.append((mock.requests[0].messages[0].content or "").splitlines()[0])
    assert seen == [
        "[agentgauge judge task: equivalence_answer v1]",
        "[agentgauge judge task: equivalence_clarify v1]",
        "[agentgauge judge task: equivalence_not_supported v1]",
        "[agentgauge judge task: equivalence_error_handling v1]",
    ]


def test_judge_error_is_recorded_never_pass_or_fail() -> None:
    judge = Judge(MockProvider(["garbage", "more garbage"]), JudgeConfig(cache=False))
    case = make_case(expect={"behavior": "answer", "reference": "Paris"})
    result = make_result()
    [s] = score(EquivalenceScorer(judge), case, result, reply("Paris"))
    assert s.passed is None
    assert is_judge_error(s)
    assert s.explanation.startswith("judge error: equivalence_answer@v1: malformed verdict twice")
    assert result.status == "error"
    assert (result.error or "").startswith("judge.equivalence: judge error:")


@pytest.mark.parametrize(
    ("task", "question", "text", "expected"),
    [
        ("relevance", "What time does the museum close?", "The museum closes at 6 pm.", True),
        ("relevance", "What time does the museum close?", "Bananas are yellow.", False),
        ("fluency", "", "I have booked a table for two at 8 pm for you.", True),
        ("fluency", "", "booked table persons confirmation email", False),
        ("coherence", "", "Your flight leaves at 9:40. Be at the gate by 9:10.", True),
    ],
)
def test_rubric_scorers(
    rule_judge: Judge, task: str, question: str, text: str, expected: bool
) -> None:
    case = make_case(input=question or "hi")
    [s] = score(RubricScorer(rule_judge, task), case, make_result(text=text), reply(text))
    assert s.name == f"judge.{task}"
    assert s.passed is expected, s.explanation
    assert 0.0 <= s.value <= 1.0
    assert "/5" in s.explanation


def test_response_quality_penalises_invented_numbers(rule_judge: Judge) -> None:
    case = make_case(input="Should I bring an umbrella in Oslo?")
    turns = call_then_reply(
        "get_weather", {"city": "Oslo"}, '{"temp_c": 18, "rain_chance": 0.8}', ""
    )
    good = "Yes: rain chance 0.8 in Oslo today, temp 18."
    bad = "Yes: rain chance 0.3 in Oslo today, temp 25."
    [g] = score(RubricScorer(rule_judge, "response_quality"), case, make_result(text=good), turns)
    [b] = score(RubricScorer(rule_judge, "response_quality"), case, make_result(text=bad), turns)
    assert g.value > b.value
    assert g.passed is True
    assert b.passed is False


def test_groundedness_lists_unsupported_claims(rule_judge: Judge) -> None:
    case = make_case(context=["The Louvre is open 9:00-18:00, closed on Tuesdays."])
    text = "The Louvre opens at 9 am and is closed on Tuesdays. Entry is free."
    [s] = score(GroundednessScorer(rule_judge), case, make_result(text=text), reply(text))
    assert s.value == 0.5
    assert s.passed is False
    assert "1 of 2 claims supported" in s.explanation
    assert "unsupported: 'Entry is free.'" in s.explanation
    assert [p.passed for p in s.parts] == [True, False]


def test_groundedness_skips_a_reply_without_claims(rule_judge: Judge) -> None:
    """'yes' or 'None' is not fully grounded: it scored 5/5 and carried a groundedness gate."""
    from agentgauge.metrics import evaluate_gates, summarize_results
    from agentgauge.schema import Gates, ScorerGate

    case = make_case(context=["The Louvre is open 9:00-18:00, closed on Tuesdays."])
    results = []
    for i, text in enumerate(["Yes", "Sure."]):
        [s] = score(GroundednessScorer(rule_judge), case, make_result(text=text), reply(text))
        assert s.passed is None, s.explanation
        assert "no factual claims" in s.explanation
        results.append(
            make_result(text=text).model_copy(update={"case_id": f"c{i}", "scores": [s]})
        )
    gates = Gates(scorers={"groundedness": ScorerGate(min_mean=4.5)})
    report = evaluate_gates(summarize_results(results, gates=gates), gates)
    assert not report.passed  # nothing was judged: the minimum cannot be shown to hold


def test_groundedness_uses_tool_results(rule_judge: Judge) -> None:
    case = make_case(input="Balance?")
    turns = call_then_reply("get_balance", {}, '{"balance": 120.5}', "")
    text = "Your balance is 120.50."
    [s] = score(GroundednessScorer(rule_judge), case, make_result(text=text), turns)
    assert s.passed is True
    assert s.value == 1.0


def test_behavior_judge_scorer(rule_judge: Judge) -> None:
    case = make_case(expect={"behavior": "clarify"})
    text = "Which city should I check?"
    [s] = score(BehaviorJudgeScorer(rule_judge), case, make_result(text=text), reply(text))
    assert (s.passed, s.actual) == (True, "clarify")
    turns = call_then_reply("get_weather", {"city": "Oslo"}, "{}", "")
    [t] = score(BehaviorJudgeScorer(rule_judge), case, make_result(text=None), turns[:1][:1])
    assert t.actual == "tool_call"
    assert t.passed is False


def test_scorer_case_filter(rule_judge: Judge) -> None:
    case = make_case(category="happy_path", expect={"behavior": "answer", "reference": "Paris"})
    scorer = EquivalenceScorer(rule_judge, cases=["rag_*"])
    assert score(scorer, case, make_result(), reply("Lyon")) == []


def test_groundedness_without_material_is_skipped(rule_judge: Judge) -> None:
    text = "The Louvre is free on Sundays."
    [s] = score(GroundednessScorer(rule_judge), make_case(), make_result(text=text), reply(text))
    assert s.passed is None
    assert "no context or tool results" in s.explanation
