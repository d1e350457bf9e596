"""The mutation audit knows the checks of issue 25: for each, a mutant the check alone catches
(the right transcript passes), and the audit flags the case when the check cannot fail."""

from __future__ import annotations

from typing import Any

from agentgauge.mutation import AuditConfig, CaseAudit, audit_suite, case_findings
from agentgauge.schema import Suite

TOOLS: list[dict[str, Any]] = [
    {"name": "a", "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}},
    {"name": "b", "parameters": {"type": "object", "properties": {"y": {"type": "string"}}}},
    {"name": "m", "mcp": True, "parameters": {"type": "object", "properties": {}}},
    {"name": "confirm", "parameters": {"type": "object", "properties": {}}},
]
A = {"name": "a", "arguments": {"x": 1}}


def audit(*cases: dict[str, Any], **defaults: Any) -> dict[str, CaseAudit]:
    suite = Suite.model_validate(
        {"name": "t", "tools": TOOLS, "cases": list(cases), "defaults": defaults}
    )
    return {c.case_id: c for c in audit_suite(suite, AuditConfig()).cases}


def caught(case: CaseAudit, axis: str, *check: str) -> None:
    """The right transcript passes; every ``axis`` mutant fails, on the check named."""
    assert case.reference.passed is True, case.reference.explanation
    got = [v for v in case.verdicts if v.axis == axis]
    assert got, f"no {axis} mutant for {case.case_id}: {[v.axis for v in case.verdicts]}"
    for v in got:
        assert v.passed is False, v
        assert all(word in v.explanation for word in check), v.explanation


def test_wrong_type() -> None:
    got = audit({"id": "c", "input": "q", "expect": {"tool_calls": [{"name": "*", "type": "mcp"}]}})
    caught(got["c"], "wrong_type", "expected a call to * (mcp)")


def test_forbidden_type_and_disallowed_call() -> None:
    got = audit(
        {"id": "t", "input": "q", "expect": {"tool_calls": [A], "forbidden_types": ["mcp"]}},
        {"id": "l", "input": "q", "expect": {"tool_calls": [A], "allowed_tools": ["a"]}},
    )
    caught(got["t"], "forbidden_type", "forbidden mcp tool: m")
    caught(got["l"], "disallowed_call", "not allowed")


def test_forbidden_argument() -> None:
    banned = {"b": {"y": {"not": {"regex": "ok.*"}}}}
    case = {
        "id": "c",
        "input": "q",
        "expect": {
            "tool_calls": [{"name": "b", "arguments": {"y": {"any": True}}}],
            "forbidden_arguments": banned,
        },
    }
    got = audit(case)["c"]
    caught(got, "forbidden_argument", "forbidden argument value: b.y")


def test_forbidden_sequence() -> None:
    case = {
        "id": "c",
        "input": "q",
        "expect": {
            "behavior": "any_tool",
            "forbidden_sequences": [{"after": "a", "then": "b", "unless": ["confirm"]}],
        },
    }
    caught(audit(case)["c"], "forbidden_sequence", "forbidden sequence: b called")


def test_call_counts_per_turn_and_suite_wide() -> None:
    few = audit({"id": "few", "input": "q", "expect": {"behavior": "any_tool", "min_calls": 2}})
    caught(few["few"], "too_few_calls", "at least 2 needed")
    many = {"id": "many", "input": "q", "expect": {"tool_calls": [A], "order": "superset"}}
    caught(audit(many, limits={"max_calls": 1})["many"], "too_many_calls", "at most 1 allowed")


def test_model_steps() -> None:
    two = [A, {"name": "b", "arguments": {"y": "k"}}]
    got = audit(
        {"id": "max", "input": "q", "expect": {"tool_calls": [A], "max_model_steps": 2}},
        {
            "id": "min",
            "input": "q",
            "expect": {"tool_calls": two, "order": "strict", "min_model_steps": 3},
        },
    )
    caught(got["max"], "extra_steps", "at most 2 allowed")
    caught(got["min"], "fewer_steps", "at least 3 needed")


def test_negated() -> None:
    case = {
        "id": "c",
        "input": "q",
        "expect": {
            "behavior": "any_tool",
            "not": {"order": "superset", "tool_calls": [{"name": "b", "args_match": "ignore"}]},
        },
    }
    caught(audit(case)["c"], "negated", "not: expected this not to hold")


def test_text_call_is_caught_strictly_and_benign_when_lenient() -> None:
    case = {"id": "c", "input": "q", "expect": {"tool_calls": [A]}}
    caught(audit(case)["c"], "text_call", "got <no tool>")
    lenient = audit(case, text_calls="lenient")["c"]
    got = [v for v in lenient.verdicts if v.axis == "text_call"]
    # the right calls inside prose, in each provider's shape: no mistake, not counted
    benign = [v for v in got if "inside prose as" in v.detail]
    assert len(benign) == 3
    assert all(v.passed is None for v in benign)
    assert all("defaults.text_calls: lenient" in v.explanation for v in benign)
    # a wrong call written inside prose is read, and fails
    (wrong,) = [v for v in got if v.detail.startswith("a wrong call written inside prose")]
    assert wrong.passed is False
    assert "expected a call to a, got b" in wrong.explanation


def test_a_threshold_that_lets_a_mistake_through_is_flagged() -> None:
    case = {
        "id": "c",
        "input": "q",
        "pass_threshold": 0.6,
        "expect": {"tool_calls": [A], "forbidden_types": ["mcp"]},
    }
    got = audit(case)["c"]
    assert "forbidden_type" in got.surviving_axes
    messages = [f.message for f in case_findings(got)]
    assert any("a wrong transcript passes (forbidden_type)" in m for m in messages), messages
    # without the threshold nothing survives on that axis
    strict = audit({**case, "pass_threshold": None})["c"]
    assert "forbidden_type" not in strict.surviving_axes


def test_a_threshold_of_zero_cannot_fail() -> None:
    got = audit({"id": "c", "input": "q", "pass_threshold": 0, "expect": {"tool_calls": [A]}})
    assert got["c"].cannot_fail


def test_a_not_matcher_gets_a_right_value_and_a_banned_one() -> None:
    case = {
        "id": "c",
        "input": "q",
        "expect": {
            "tool_calls": [{"name": "b", "arguments": {"y": {"not": {"one_of": ["P", "R"]}}}}]
        },
    }
    caught(audit(case)["c"], "perturb_argument", "b.y: expected not one of ['P', 'R'], got 'P'")


def test_a_glob_call_is_played_with_a_tool_it_matches() -> None:
    case = {
        "id": "c",
        "input": "q",
        "expect": {"tool_calls": [{"name": "[ab]", "args_match": "ignore"}]},
    }
    got = audit(case)["c"]
    # the wrong tool is one the glob does not match (m), not b
    caught(got, "wrong_tool", "expected a call to [ab], got m")


def test_not_over_exact_calls_lets_the_calls_plus_another_through() -> None:
    """``not`` with the default order any_order forbids *exactly* its calls: the audit shows a
    right call made together with the forbidden one passing."""
    trap = {
        "id": "c",
        "input": "q",
        "expect": {"tool_calls": [A], "order": "superset",
                   "not": {"tool_calls": [{"name": "b", "args_match": "ignore"}]}},
    }  # fmt: skip
    got = audit(trap)["c"]
    assert "negated" in got.surviving_axes
    fixed = {
        **trap,
        "expect": {**trap["expect"], "not": {**trap["expect"]["not"], "order": "superset"}},
    }  # type: ignore[dict-item]
    assert "negated" not in audit(fixed)["c"].surviving_axes


def test_a_case_limits_over_the_conversation_are_mutated() -> None:
    turns = [{"user": "again", "expect": {"tool_calls": [A]}}]
    case = {
        "id": "c",
        "input": "q",
        "expect": {"tool_calls": [A], "order": "superset"},
        "turns": [{**turns[0], "expect": {"tool_calls": [A], "order": "superset"}}],
        "limits": {"max_calls": 2, "max_model_steps": 4, "min_calls": 2},
    }
    got = audit(case)["c"]
    caught(got, "too_many_calls", "conversation", "at most 2 allowed")
    caught(got, "extra_steps")
    caught(got, "too_few_calls")
