"""Every mutation axis finds a case that cannot fail on it, and leaves a good case alone.

A "weak" case is one whose expectation (or, where agentgauge's own scoring has no gap on that
axis, whose scorer) lets the wrong transcript through; the "good" case catches it.
"""

from __future__ import annotations

import pytest
from _mutation_helpers import audit, axis

CALL_A = {"name": "a", "arguments": {"x": 1}}
CALL_B = {"name": "b", "arguments": {"y": "k"}}


@pytest.mark.usefixtures("lax_scoring")
def test_wrong_tool_found_by_a_check_that_ignores_tool_names() -> None:
    got = audit({"id": "weak", "input": "q", "expect": {"tool_calls": [CALL_A]}})
    assert axis(got["weak"], "wrong_tool") == [True]


def test_wrong_tool_caught() -> None:
    got = audit({"id": "good", "input": "q", "expect": {"tool_calls": [CALL_A]}})
    [verdict] = [v for v in got["good"].verdicts if v.axis == "wrong_tool"]
    assert verdict.passed is False
    assert verdict.detail == "a -> b"
    assert "expected a call to a" in verdict.explanation


RECOVER_NO_CALLS = {
    "id": "weak",
    "input": "q",
    "tool_results": {"a": {"error": "503 Service Unavailable"}},
    "expect": {"behavior": "recover"},
}


def test_no_call_found_when_the_scorer_ignores_recovery() -> None:
    # BFCL's checker has no notion of recovering from a tool error
    got = audit(RECOVER_NO_CALLS, mode="bfcl")
    assert axis(got["weak"], "no_call") == [True]


def test_no_call_caught() -> None:
    assert axis(audit(RECOVER_NO_CALLS)["weak"], "no_call") == [False]
    good = audit({"id": "good", "input": "q", "expect": {"tool_calls": [CALL_A]}})["good"]
    assert axis(good, "no_call") == [False]


def test_extra_call_found_when_failed_calls_are_not_counted() -> None:
    # behavior recover matches the successful calls only: a second call that fails slips by
    weak = {
        "id": "weak",
        "input": "q",
        "tool_results": {"a": [{"result": {"ok": 1}}, {"error": "503 down"}]},
        "expect": {"behavior": "recover", "tool_calls": [CALL_A]},
    }
    good = {"id": "good", "input": "q", "expect": {"tool_calls": [CALL_A]}}
    got = audit(weak, good)
    assert axis(got["weak"], "extra_call") == [True]
    assert axis(got["good"], "extra_call") == [False]


def test_extra_call_for_a_no_tool_behaviour() -> None:
    got = audit({"id": "good", "input": "q", "expect": {"behavior": "no_tool"}})
    assert axis(got["good"], "extra_call") == [False]


@pytest.mark.usefixtures("lax_scoring")
def test_drop_argument_found_by_a_check_that_ignores_arguments() -> None:
    got = audit({"id": "weak", "input": "q", "expect": {"tool_calls": [CALL_A]}})
    assert axis(got["weak"], "drop_argument") == [True]


def test_drop_argument_caught() -> None:
    got = audit({"id": "good", "input": "q", "expect": {"tool_calls": [CALL_A]}})
    [verdict] = [v for v in got["good"].verdicts if v.axis == "drop_argument"]
    assert verdict.passed is False
    assert verdict.explanation == "a.x: missing (expected 1)"


def test_dropping_to_an_accepted_schema_default_is_no_finding() -> None:
    # h's schema default {} gets k its default 'v' too: leaving h out is what the case asks
    case = {
        "id": "c",
        "input": "q",
        "expect": {"tool_calls": [{"name": "a", "arguments": {"x": 1, "h": {"k": "v"}}}]},
    }
    got = audit(case)["c"]
    dropped = {v.detail: v.passed for v in got.verdicts if v.axis == "drop_argument"}
    assert dropped == {"a.x left out": False, "a.h left out": None}
    assert got.survivors == []


def test_drop_argument_skips_optional_and_default_arguments() -> None:
    case = {
        "id": "c",
        "input": "q",
        "expect": {
            "tool_calls": [
                {"name": "a", "arguments": {"x": 1, "h": {"value": {}, "optional": True}}}
            ]
        },
    }
    got = audit(case)["c"]
    assert [v.detail for v in got.verdicts if v.axis == "drop_argument"] == ["a.x left out"]


def test_perturb_argument_found_for_a_format_only_regex() -> None:
    weak = {
        "id": "weak",
        "input": "q",
        "expect": {"tool_calls": [{"name": "b", "arguments": {"y": {"regex": "[a-z ]+"}}}]},
    }
    good = {"id": "good", "input": "q", "expect": {"tool_calls": [CALL_B]}}
    got = audit(weak, good)
    assert axis(got["weak"], "perturb_argument") == [True]
    [verdict] = [v for v in got["good"].verdicts if v.axis == "perturb_argument"]
    assert verdict.passed is False
    assert verdict.detail == "b.y: 'k' -> 'something else'"


def test_perturbation_avoids_values_the_case_lists_as_right() -> None:
    # BFCL lists several acceptable values: the wrong one must be none of them
    case = {
        "id": "c",
        "input": "q",
        "expect": {"tool_calls": [{"name": "a", "arguments": {"x": {"one_of": [1, 2, 0]}}}]},
    }
    [verdict] = [v for v in audit(case)["c"].verdicts if v.axis == "perturb_argument"]
    assert verdict.detail == "a.x: 1 -> 3"
    assert verdict.passed is False


def test_reorder_calls_found_when_each_expectation_accepts_both_values() -> None:
    weak = {
        "id": "weak",
        "input": "q",
        "expect": {
            "order": "strict",
            "tool_calls": [
                {"name": "a", "arguments": {"x": {"one_of": [2, 1]}}},
                {"name": "a", "arguments": {"x": {"one_of": [1, 2]}}},
            ],
        },
    }
    good = {
        "id": "good",
        "input": "q",
        "expect": {"order": "strict", "tool_calls": [CALL_A, CALL_B]},
    }
    got = audit(weak, good)
    assert axis(got["weak"], "reorder_calls") == [True]
    assert axis(got["good"], "reorder_calls") == [False]


def test_reorder_not_tried_when_order_does_not_matter() -> None:
    got = audit({"id": "c", "input": "q", "expect": {"tool_calls": [CALL_A, CALL_B]}})["c"]
    assert "reorder_calls" not in {v.axis for v in got.verdicts}


@pytest.mark.usefixtures("lax_scoring")
def test_drop_call_found_by_a_check_that_ignores_call_counts() -> None:
    got = audit({"id": "weak", "input": "q", "expect": {"tool_calls": [CALL_A, CALL_B]}})
    assert axis(got["weak"], "drop_call") == [True]


def test_drop_call_caught() -> None:
    got = audit({"id": "good", "input": "q", "expect": {"tool_calls": [CALL_A, CALL_B]}})
    assert axis(got["good"], "drop_call") == [False]


FORBIDDEN_ONLY = {"id": "weak", "input": "q", "expect": {"forbidden_tools": ["b"]}}


@pytest.mark.parametrize(
    ("name", "good_behavior"),
    [("text_only", "clarify"), ("refusal", "answer"), ("clarify", "answer")],
)
def test_text_replies_found_when_no_behaviour_is_expected(name: str, good_behavior: str) -> None:
    good = {"id": "good", "input": "q", "expect": {"behavior": good_behavior}}
    got = audit(FORBIDDEN_ONLY, good)
    assert axis(got["weak"], name) == [True]
    assert axis(got["good"], name) == [False]


FORBIDDEN = {"id": "c", "input": "q", "expect": {"tool_calls": [CALL_A], "forbidden_tools": ["b"]}}


@pytest.mark.usefixtures("lax_scoring")
def test_forbidden_call_found_when_the_scorer_ignores_forbidden_tools() -> None:
    assert axis(audit(FORBIDDEN)["c"], "forbidden_call") == [True]


def test_forbidden_call_caught() -> None:
    assert axis(audit(FORBIDDEN)["c"], "forbidden_call") == [False]
    # BFCL's checker has no forbidden tools, but counts the calls: the extra one fails it
    assert axis(audit(FORBIDDEN, mode="bfcl")["c"], "forbidden_call") == [False]
    assert axis(audit(FORBIDDEN_ONLY)["weak"], "forbidden_call") == [False]


RECOVER_WITH_CALLS = {
    "id": "c",
    "input": "q",
    "tool_results": {"a": [{"error": "503 Service Unavailable"}, {"result": {"ok": 1}}]},
    "expect": {"behavior": "recover", "order": "superset", "tool_calls": [CALL_A]},
}


def test_error_echo_found_when_the_scorer_ignores_recovery() -> None:
    assert axis(audit(RECOVER_WITH_CALLS, mode="bfcl")["c"], "error_echo") == [True]


def test_error_echo_caught() -> None:
    got = audit(RECOVER_WITH_CALLS)["c"]
    assert axis(got, "error_echo") == [False]
    assert got.reference.passed is True


def test_error_echo_needs_a_scripted_error() -> None:
    got = audit({"id": "c", "input": "q", "expect": {"tool_calls": [CALL_A]}})["c"]
    assert "error_echo" not in {v.axis for v in got.verdicts}


GROUNDED = {
    "id": "c",
    "input": "What does it cost?",
    "context": ["It costs 12 dollars."],
    "expect": {"behavior": "answer", "reference": "It costs 12 dollars."},
}


def test_unsupported_number_found_when_nothing_checks_grounding() -> None:
    got = audit(GROUNDED)["c"]
    assert axis(got, "unsupported_number") == [True]
    assert got.reference.passed is True


def test_unsupported_number_caught_by_numeric_grounding() -> None:
    got = audit(GROUNDED, scorers=[{"scorer": "numeric_grounding"}])["c"]
    [verdict] = [v for v in got.verdicts if v.axis == "unsupported_number"]
    assert verdict.passed is False
    assert "numeric_grounding" in verdict.explanation
    assert got.reference.passed is True


def test_unsupported_number_left_to_a_judge_is_not_counted() -> None:
    got = audit(GROUNDED, scorers=[{"scorer": "groundedness", "judge": "mock:x"}])["c"]
    # only the (skipped) judge would check it: the audit says so instead of counting a pass
    [verdict] = [v for v in got.verdicts if v.axis == "unsupported_number"]
    assert verdict.passed is None
    assert "judge" in verdict.explanation
