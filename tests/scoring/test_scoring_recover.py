"""``behavior: recover``: what counts as a tool failure, and what counts as recovering from it.

A failure is any injected fault (error, exception, timeout, empty, malformed) or an error
result. Recovery is a later successful call (a retry or another tool), or a final reply that
explains the failure in words; anything else fails, and each path is shown both ways here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scoring_helpers import by_name, score, tool

from agentgauge.io import iter_results
from agentgauge.providers import ModelRequest
from agentgauge.runner import RunConfig, run_suite
from agentgauge.runner._tools import MALFORMED_TEXT
from agentgauge.schema import Message, Suite, ToolCall
from agentgauge.testing import MockProvider

TOOLS = [tool("get_weather", {"city": {"type": "string"}}), tool("get_forecast", {})]

#: what the runner hands the agent for each fault kind (docs/running.md, "Simulated tools")
FAULT_CONTENT = {
    "error": json.dumps({"error": "city not found"}),
    "exception": json.dumps({"error": "tool 'get_weather' raised an exception: internal error"}),
    "timeout": json.dumps({"error": "tool 'get_weather' timed out after 10s"}),
    "empty": "",
    "malformed": MALFORMED_TEXT,
}


def _call(name: str = "get_weather", k: int = 0) -> Message:
    return Message(
        role="assistant", tool_calls=[ToolCall(name=name, arguments={"city": "Paris"}, id=str(k))]
    )


def _result(content: str, name: str = "get_weather", k: int = 0) -> Message:
    return Message(role="tool", name=name, content=content, tool_call_id=str(k))


def _failed_then(final: str | None, content: str = FAULT_CONTENT["error"]) -> list[Message]:
    msgs = [_call(), _result(content)]
    if final is not None:
        msgs.append(Message(role="assistant", content=final))
    return msgs


def _behavior(msgs: list[Message]) -> Any:
    return by_name(score({"behavior": "recover"}, msgs, TOOLS), "behavior")


EXPLAINED = "Sorry, I couldn't get the weather for Paris right now; please try again later."


@pytest.mark.parametrize("kind", sorted(FAULT_CONTENT))
def test_every_fault_kind_is_a_failure_to_recover_from(kind: str) -> None:
    content = FAULT_CONTENT[kind]
    done = _behavior(_failed_then("Done!", content))
    assert (done.passed, done.actual) == (False, "unrecovered"), done.explanation
    assert done.explanation.startswith("did not recover from the failed get_weather call")
    explained = _behavior(_failed_then(EXPLAINED, content))
    assert (explained.passed, explained.actual) == (True, "explained")


def test_a_successful_retry_recovers_and_a_failed_one_does_not() -> None:
    ok = [_call(), _result(MALFORMED_TEXT), _call(k=1), _result('{"temp": 20}', k=1)]
    beh = _behavior([*ok, Message(role="assistant", content="20°C")])
    assert (beh.passed, beh.actual) == (True, "retried")
    assert beh.explanation == "recovered: get_weather succeeded after get_weather failed"
    bad = [_call(), _result(MALFORMED_TEXT), _call(k=1), _result("", k=1)]
    beh = _behavior([*bad, Message(role="assistant", content="It is 20°C.")])
    assert (beh.passed, beh.actual) == (False, "unrecovered")


def test_an_alternative_tool_recovers_but_not_one_called_alongside_the_failure() -> None:
    later = [_call(), _result(FAULT_CONTENT["timeout"]), _call("get_forecast", 1)]
    later.append(_result('{"today": "sun"}', "get_forecast", 1))
    beh = _behavior([*later, Message(role="assistant", content="Sunny today.")])
    assert (beh.passed, beh.actual) == (True, "alternative")
    assert beh.explanation.endswith("(another way)")
    # both calls in one message: the success was not a reaction to the failure
    parallel = Message(
        role="assistant",
        tool_calls=[
            ToolCall(name="get_weather", arguments={"city": "Paris"}, id="0"),
            ToolCall(name="get_forecast", arguments={}, id="1"),
        ],
    )
    msgs = [parallel, _result(FAULT_CONTENT["timeout"]), _result("{}", "get_forecast", 1)]
    beh = _behavior([*msgs, Message(role="assistant", content="Sunny today.")])
    assert (beh.passed, beh.actual) == (False, "unrecovered")


@pytest.mark.parametrize(
    ("final", "why"),
    [
        ('{"error": "city not found"}', "only data"),
        ("city not found", "only repeats the tool's error"),
        ("Error: city not found", "only repeats the tool's error"),
        ('The tool said {"error": "city not found"}', "does not say the call failed"),
        ("Done!", "does not say the call failed"),
        ("success", "does not say the call failed"),
        ("Sorry!", "does not say the call failed"),  # too short to explain anything
        ("All done, the weather is sunny.", "does not say the call failed"),
        ("Everything went fine, no errors at all.", "does not say the call failed"),
    ],
)
def test_a_reply_that_echoes_the_error_or_claims_success_does_not_explain(
    final: str, why: str
) -> None:
    beh = _behavior(_failed_then(final))
    assert beh.passed is False
    assert why in beh.explanation, beh.explanation


@pytest.mark.parametrize(
    "final",
    [
        EXPLAINED,
        "The weather service is unavailable right now.",
        "I got an error from the weather service: city not found. Is the name right?",
        "Unfortunately the weather lookup timed out, so I have no forecast for you.",
    ],
)
def test_a_reply_in_words_explains(final: str) -> None:
    beh = _behavior(_failed_then(final))
    assert (beh.passed, beh.actual) == (True, "explained"), beh.explanation


def test_an_explanation_must_come_after_the_failure() -> None:
    # the text rides on the failing call's own message: said before the failure was seen
    msgs = [
        Message(
            role="assistant",
            content="Sorry, this may fail; trying the weather service.",
            tool_calls=[ToolCall(name="get_weather", arguments={"city": "Paris"}, id="0")],
        ),
        _result(FAULT_CONTENT["error"]),
    ]
    beh = _behavior(msgs)
    assert beh.passed is False
    assert beh.explanation.endswith("no successful retry and no reply after it")


def test_expected_calls_of_a_recover_case_skip_a_malformed_attempt() -> None:
    expect = {
        "behavior": "recover",
        "tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    }
    retried = [_call(), _result(MALFORMED_TEXT), _call(k=1), _result('{"temp": 20}', k=1)]
    cs = score(expect, [*retried, Message(role="assistant", content="20°C")], TOOLS)
    assert cs.status == "passed", cs.explanation  # before: "unexpected call(s) to get_weather"
    only_failed = [_call(), _result(MALFORMED_TEXT), Message(role="assistant", content="Done!")]
    cs = score(expect, only_failed, TOOLS)
    assert cs.status == "failed"
    assert by_name(cs, "behavior").passed is False


def test_no_call_at_all_fails_and_no_failure_is_skipped() -> None:
    beh = _behavior([Message(role="assistant", content="I cannot check the weather.")])
    assert (beh.passed, beh.actual) == (False, "no call")
    beh = _behavior([_call(), _result('{"temp": 3}'), Message(role="assistant", content="3°C")])
    assert (beh.passed, beh.actual) == (None, "no error")


# --------------------------------------------------------------------------- through a run


def _suite(fault: str) -> Suite:
    return Suite.model_validate(
        {
            "name": "recover",
            "tools": [
                {
                    "name": "get_weather",
                    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                    "simulation": {"fault": fault},
                }
            ],
            "cases": [{"id": "c", "input": "Weather in Paris?", "expect": {"behavior": "recover"}}],
        }
    )


def _agent(final: str) -> MockProvider:
    def reply(request: ModelRequest) -> Any:
        if request.messages[-1].role == "tool":
            return final
        return ToolCall(name="get_weather", arguments={"city": "Paris"})

    return MockProvider([reply], repeat_last=True, name="mock:recover")


@pytest.mark.parametrize("fault", ["malformed", "empty", "timeout", "exception", "error"])
def test_a_run_with_a_fault_passes_only_when_the_agent_recovers(fault: str, tmp_path: Path) -> None:
    cfg = RunConfig(cache=False, progress=False)
    run_suite(_suite(fault), cfg, tmp_path / "done", provider=_agent("Done!"))
    [r] = list(iter_results(tmp_path / "done"))
    assert r.status == "failed", r.explanation  # before: malformed passed, nothing to recover
    assert "did not recover from the failed get_weather call" in r.explanation
    run_suite(_suite(fault), cfg, tmp_path / "explained", provider=_agent(EXPLAINED))
    [r] = list(iter_results(tmp_path / "explained"))
    assert r.status == "passed", r.explanation
