"""Behaviour accuracy agrees with the verdicts: a skipped behaviour check is not a failure."""

from __future__ import annotations

import json
from typing import Any

from agentgauge.metrics import summarize_results
from agentgauge.metrics._verdicts import behavior_verdict
from agentgauge.schema import Case, CaseResult, Message, ToolCall, ToolSpec
from agentgauge.scoring import score_case

WEATHER = ToolSpec(
    name="get_weather",
    parameters={"type": "object", "properties": {"city": {"type": "string"}}},
)
TOOLS = {"get_weather": WEATHER}


def _assistant(text: str | None = None, *calls: ToolCall) -> Message:
    return Message(role="assistant", content=text, tool_calls=list(calls))


def _weather_turn(result: Any) -> list[Message]:
    return [
        _assistant(None, ToolCall(name="get_weather", arguments={"city": "Paris"}, id="c1")),
        Message(role="tool", name="get_weather", content=json.dumps(result), tool_call_id="c1"),
        _assistant("It is 18 °C in Paris."),
    ]


def _run(case: Case, turns: list[list[Message]]) -> CaseResult:
    """A result as the runner writes it, scored by the real scorer."""
    verdict = score_case(case, turns, TOOLS)
    return CaseResult(
        case_id=case.id,
        status=verdict.status,
        score=verdict.score,
        scores=verdict.scores,
        explanation=verdict.explanation,
        expected_behavior=case.expect.behavior,
        expected_tools=[c.name for c in case.expect.tool_calls],
        calls=[c for turn in turns for m in turn for c in m.tool_calls],
        text=turns[-1][-1].content,
        behavior=verdict.behavior,
    )


def _recover_case(i: int) -> Case:
    return Case.model_validate(
        {
            "id": f"recover-{i}",
            "input": "Weather in Paris?",
            "expect": {
                "behavior": "recover",
                "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
            },
        }
    )


def _behaviour_case(i: int, behavior: str) -> Case:
    return Case.model_validate(
        {"id": f"{behavior}-{i}", "input": "hi", "expect": {"behavior": behavior}}
    )


def _all_pass_run() -> list[CaseResult]:
    replies = {
        "clarify": "Which city would you like the forecast for?",
        "refuse": "I'm sorry, but I can't book flights.",
        "answer": "Paris is the capital of France.",
    }
    results = [
        _run(_behaviour_case(i, b), [[_assistant(replies[b])]])
        for i, b in enumerate(
            ["clarify", "clarify", "clarify", "refuse", "refuse", "answer", "answer"]
        )
    ]
    # three recovery cases in which no tool failed: their behaviour check is skipped
    results += [_run(_recover_case(i), [_weather_turn({"temp": 18})]) for i in range(3)]
    return results


def test_all_pass_run_reports_full_behaviour_accuracy() -> None:
    results = _all_pass_run()
    assert all(r.status == "passed" for r in results)
    s = summarize_results(results)
    # before the fix: 7 of 10 (the skipped recover checks counted as failures)
    assert (s.behavior.passed, s.behavior.n, s.behavior.skipped) == (7, 7, 3)
    assert s.behavior.value == 1.0
    recover = s.behavior_by_expected["recover"]
    assert (recover.n, recover.skipped) == (0, 3)


def test_real_behaviour_failure_still_counts() -> None:
    results = _all_pass_run()
    wrong = _run(_behaviour_case(99, "clarify"), [[_assistant("It is sunny in Springfield.")]])
    assert wrong.status == "failed"
    s = summarize_results([*results, wrong])
    assert (s.behavior.passed, s.behavior.n, s.behavior.skipped) == (7, 8, 3)
    assert s.behavior.value is not None
    assert s.behavior.value < 1.0


def test_a_failed_recovery_counts_as_a_failure() -> None:
    looped = _run(
        _recover_case(7),
        [
            [
                *_weather_turn({"error": "503"})[:2],
                _assistant("It is 18 °C in Paris."),
            ]
        ],
    )
    assert looped.status == "failed"
    assert behavior_verdict(looped) == (False, "recover")


def test_without_a_score_recover_is_skipped_and_turn_0_is_judged() -> None:
    # a result without a behaviour score (another scorer): recover cannot be judged from labels
    r = CaseResult(case_id="a", status="passed", expected_behavior="recover", behavior="answer")
    assert behavior_verdict(r) == (None, "recover")
    # no tool expected in turn 0, a tool called in turn 1: turn 0 is what the expectation means
    multi = CaseResult(
        case_id="b",
        status="passed",
        expected_behavior="no_tool",
        behavior="tool_call",
        calls=[ToolCall(name="get_weather", arguments={})],
        scores=[],
    )
    multi.scores = [
        *score_case(
            Case.model_validate(
                {
                    "id": "b",
                    "input": "hi",
                    "expect": {"behavior": "no_tool"},
                    "turns": [
                        {"user": "Paris?", "expect": {"tool_calls": [{"name": "get_weather"}]}}
                    ],
                }
            ),
            [[_assistant("Hello!")], _weather_turn({"temp": 18})],
            TOOLS,
        ).scores
    ]
    assert behavior_verdict(multi) == (True, "no_tool")
