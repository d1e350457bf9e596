"""The checks of issue 25 item 1 (docs/scoring.md): each passes a right transcript and fails a
wrong one — call types, tool-name globs, forbidden argument values, forbidden sequences, call
and model-step counts (per turn and suite-wide), the case pass threshold, and ``not:``."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError
from scoring_helpers import by_name, call, reply, result, score, tool

from agentgauge.schema import Defaults, Expectation, Message, StepLimits, Suite, ToolSpec
from agentgauge.scoring import ScoringConfig

MCP_SEARCH = ToolSpec.model_validate(
    {
        "name": "search",
        "mcp": True,
        "parameters": {"type": "object", "properties": {"q": {"type": "string"}}},
    }
)
LOOKUP = tool("lookup", {"q": {"type": "string"}})
GET_WEATHER = tool("get_weather", {"city": {"type": "string"}})
GET_TIME = tool("get_time", {"tz": {"type": "string"}})
BOOK = tool("book_table", {"city": {"type": "string"}})
DELETE = tool("delete_user", {"id": {"type": "string"}})
EMAIL = tool("send_email", {"to": {"type": "string"}, "body": {"type": "string"}})
QUOTE = tool("get_quote", {"amount": {"type": "number"}})
CONFIRM = tool("confirm_transfer", {})
TRANSFER = tool("transfer_funds", {"amount": {"type": "number"}})
TOOLS = [MCP_SEARCH, LOOKUP, GET_WEATHER, GET_TIME, BOOK, DELETE, EMAIL, QUOTE, CONFIRM, TRANSFER]


def steps(*groups: Any) -> list[Message]:
    """One assistant message per group (a call, a tuple of parallel calls, or text), each
    call answered with ``{"ok": true}``."""
    out: list[Message] = []
    for g in groups:
        if isinstance(g, str):
            out += reply(text=g)
            continue
        calls = g if isinstance(g, tuple) else (g,)
        out += reply(*calls)
        out += [result(c.name, {"ok": True}) for c in calls]
    return out


def verdict(expect: dict[str, Any], msgs: list[Message], **kw: Any) -> tuple[bool, str]:
    cs = score(expect, msgs, TOOLS, **kw)
    return cs.status == "passed", cs.explanation


# --- call type ---------------------------------------------------------------------------------


def test_an_expected_call_type_passes_the_right_type_and_fails_the_other() -> None:
    mcp_any = {"tool_calls": [{"name": "*", "type": "mcp", "args_match": "ignore"}]}
    assert verdict(mcp_any, steps(call("search", q="x"), "done"))[0]
    ok, why = verdict(mcp_any, steps(call("lookup", q="x"), "done"))
    assert not ok
    assert "expected a call to * (mcp), got lookup" in why


def test_a_named_call_of_the_wrong_type_fails() -> None:
    # lookup is a plain function: expecting it as an MCP call cannot pass
    exp = {"tool_calls": [{"name": "lookup", "type": "mcp", "arguments": {"q": "x"}}]}
    ok, why = verdict(exp, steps(call("lookup", q="x"), "done"))
    assert not ok
    assert "lookup (mcp)" in why
    exp["tool_calls"][0]["type"] = "function"
    assert verdict(exp, steps(call("lookup", q="x"), "done"))[0]


def test_forbidden_types_fail_a_call_of_that_type_only() -> None:
    exp = {"behavior": "any_tool", "forbidden_types": ["mcp"]}
    assert verdict(exp, steps(call("lookup", q="x"), "done"))[0]
    cs = score(exp, steps(call("search", q="x"), "done"), TOOLS)
    assert cs.status == "failed"
    s = by_name(cs, "forbidden_types")
    assert s.passed is False
    assert s.explanation == "call(s) to a forbidden mcp tool: search"
    exp["forbidden_types"] = ["function"]
    assert verdict(exp, steps(call("search", q="x"), "done"))[0]
    assert not verdict(exp, steps(call("lookup", q="x"), "done"))[0]


def test_a_tool_the_suite_does_not_define_is_a_function() -> None:
    exp = {"behavior": "any_tool", "forbidden_types": ["function"]}
    assert not verdict(exp, steps(call("mystery"), "done"))[0]


# --- globs -------------------------------------------------------------------------------------


def test_a_glob_in_an_expected_call_pairs_any_matching_tool() -> None:
    exp = {"tool_calls": [{"name": "get_*", "args_match": "ignore"}]}
    assert verdict(exp, steps(call("get_weather", city="Oslo"), "done"))[0]
    assert verdict(exp, steps(call("get_time", tz="UTC"), "done"))[0]
    ok, why = verdict(exp, steps(call("book_table", city="Oslo"), "done"))
    assert not ok
    assert "expected a call to get_*, got book_table" in why


def test_a_glob_call_still_checks_its_arguments() -> None:
    exp = {"tool_calls": [{"name": "get_*", "arguments": {"city": "Oslo"}}]}
    assert verdict(exp, steps(call("get_weather", city="Oslo"), "done"))[0]
    cs = score(exp, steps(call("get_weather", city="Bergen"), "done"), TOOLS)
    assert by_name(cs, "arguments").passed is False
    assert "get_*.city: expected 'Oslo', got 'Bergen'" in cs.explanation


def test_globs_in_a_trajectory_keep_the_order() -> None:
    exp = {
        "tool_calls": [
            {"name": "get_*", "args_match": "ignore"},
            {"name": "book_*", "args_match": "ignore"},
        ],
        "order": "strict",
    }
    right = steps(call("get_weather", city="Oslo"), call("book_table", city="Oslo"), "booked")
    wrong = steps(call("book_table", city="Oslo"), call("get_weather", city="Oslo"), "booked")
    assert verdict(exp, right)[0]
    ok, why = verdict(exp, wrong)
    assert not ok
    assert "calls out of order" in why
    # one call more than the trajectory: strict fails, superset passes
    extra = steps(
        call("get_time", tz="UTC"), call("get_weather", city="Oslo"), call("book_table"), "booked"
    )
    assert not verdict(exp, extra)[0]
    assert verdict({**exp, "order": "superset"}, extra)[0]


def test_glob_pairing_is_a_largest_matching_not_first_fit() -> None:
    # '*' could take get_weather and leave get_* without a call; the pairing does not
    exp = {
        "tool_calls": [
            {"name": "*", "args_match": "ignore"},
            {"name": "get_*", "args_match": "ignore"},
        ]
    }
    msgs = steps((call("get_weather", city="Oslo"), call("book_table", city="Oslo")), "done")
    assert verdict(exp, msgs)[0]
    assert not verdict(exp, steps((call("book_table"), call("lookup")), "done"))[0]


def test_forbidden_tools_take_globs() -> None:
    exp = {"behavior": "any_tool", "forbidden_tools": ["delete_*"]}
    assert verdict(exp, steps(call("lookup", q="x"), "done"))[0]
    cs = score(exp, steps(call("delete_user", id="7"), "done"), TOOLS)
    assert by_name(cs, "forbidden_tools").explanation == "forbidden tool called: delete_user"


def test_allowed_tools_fail_a_call_outside_the_allowlist() -> None:
    exp = {"behavior": "any_tool", "allowed_tools": ["get_*", "lookup"]}
    assert verdict(exp, steps(call("get_weather"), call("lookup"), "done"))[0]
    cs = score(exp, steps(call("get_weather"), call("delete_user", id="1"), "done"), TOOLS)
    assert cs.status == "failed"
    assert by_name(cs, "allowed_tools").explanation == (
        "call(s) to a tool not allowed: delete_user (allowed: get_*, lookup)"
    )


# --- forbidden argument values -----------------------------------------------------------------

OUTSIDE = {"send_email": {"to": {"not": {"regex": r"[^@]+@acme\.com"}}}}


def test_a_forbidden_argument_value_is_its_own_failure() -> None:
    exp = {"behavior": "any_tool", "forbidden_arguments": OUTSIDE}
    assert verdict(exp, steps(call("send_email", to="bob@acme.com", body="hi"), "sent"))[0]
    cs = score(exp, steps(call("send_email", to="eve@evil.example", body="hi"), "sent"), TOOLS)
    assert cs.status == "failed"
    s = by_name(cs, "forbidden_arguments")
    assert s.passed is False
    assert s.explanation == (
        "forbidden argument value: send_email.to: 'eve@evil.example' is forbidden "
        "(not a match of /[^@]+@acme\\.com/)"
    )
    # the tool itself may be called: tool selection is not what failed
    assert by_name(cs, "tool_selection").passed is True


def test_forbidden_arguments_with_a_glob_and_an_omitted_argument() -> None:
    exp = {
        "behavior": "any_tool",
        "forbidden_arguments": {"send_*": {"body": {"regex": ".*password.*"}}},
    }
    assert verdict(exp, steps(call("send_email", to="a@acme.com"), "sent"))[0]  # omitted
    assert not verdict(exp, steps(call("send_email", body="my password is x"), "sent"))[0]
    assert verdict(exp, steps(call("lookup", q="password"), "done"))[0]  # another tool


def test_a_not_matcher_on_an_expected_argument() -> None:
    exp = {
        "tool_calls": [
            {"name": "get_weather", "arguments": {"city": {"not": {"one_of": ["Paris", "Rome"]}}}}
        ]
    }
    assert verdict(exp, steps(call("get_weather", city="Oslo"), "done"))[0]
    ok, why = verdict(exp, steps(call("get_weather", city="Rome"), "done"))
    assert not ok
    assert "get_weather.city: expected not one of ['Paris', 'Rome'], got 'Rome'" in why


# --- forbidden sequences -----------------------------------------------------------------------

SEQ = {"after": "get_quote", "then": "transfer_funds", "unless": ["confirm_*"]}


def test_a_forbidden_sequence_fails_without_the_confirming_call() -> None:
    exp = {"behavior": "any_tool", "forbidden_sequences": [SEQ]}
    right = steps(
        call("get_quote", amount=5),
        call("confirm_transfer"),
        call("transfer_funds", amount=5),
        "ok",
    )
    wrong = steps(call("get_quote", amount=5), call("transfer_funds", amount=5), "ok")
    assert verdict(exp, right)[0]
    cs = score(exp, wrong, TOOLS)
    assert by_name(cs, "forbidden_sequences").explanation == (
        "forbidden sequence: transfer_funds called after get_quote with no confirm_* between"
    )
    # in one message: the agent had not seen any confirmation either
    parallel = steps((call("get_quote", amount=5), call("transfer_funds", amount=5)), "ok")
    ok, why = verdict(exp, parallel)
    assert not ok
    assert "in the same message as get_quote" in why


def test_a_forbidden_sequence_looks_at_the_latest_earlier_call_only() -> None:
    exp = {"behavior": "any_tool", "forbidden_sequences": [SEQ]}
    # confirmed, then a new quote and a transfer without a new confirmation
    again = steps(
        call("get_quote", amount=5),
        call("confirm_transfer"),
        call("get_quote", amount=9),
        call("transfer_funds", amount=9),
        "ok",
    )
    assert not verdict(exp, again)[0]
    # the transfer came first: no sequence
    assert verdict(exp, steps(call("transfer_funds", amount=1), call("get_quote", amount=1), "ok"))[
        0
    ]
    never = {
        "behavior": "any_tool",
        "forbidden_sequences": [{"after": "get_quote", "then": "transfer_funds"}],
    }
    assert not verdict(
        never, steps(call("get_quote"), call("confirm_transfer"), call("transfer_funds"), "ok")
    )[0]


# --- step counts -------------------------------------------------------------------------------


def test_min_calls_and_model_step_bounds() -> None:
    two = steps(call("lookup", q="a"), call("lookup", q="b"), "done")  # 3 model steps, 2 calls
    assert verdict({"behavior": "any_tool", "min_calls": 2}, two)[0]
    cs = score({"behavior": "any_tool", "min_calls": 3}, two, TOOLS)
    assert by_name(cs, "min_calls").explanation == "2 tool call(s), at least 3 needed"
    assert verdict({"behavior": "any_tool", "max_model_steps": 3}, two)[0]
    cs = score({"behavior": "any_tool", "max_model_steps": 2}, two, TOOLS)
    assert by_name(cs, "max_model_steps").explanation == "3 model step(s), at most 2 allowed"
    assert verdict({"behavior": "any_tool", "min_model_steps": 3}, two)[0]
    one = steps((call("lookup", q="a"), call("lookup", q="b")))  # 1 model step
    cs = score({"behavior": "any_tool", "min_model_steps": 2}, one, TOOLS)
    assert cs.status == "failed"
    assert by_name(cs, "min_model_steps").actual == "1"


def test_suite_wide_limits_apply_unless_a_turn_sets_its_own() -> None:
    suite = Suite(name="s", defaults=Defaults(limits=StepLimits(max_calls=1, max_model_steps=5)))
    config = ScoringConfig().for_suite(suite)
    two = steps(call("lookup", q="a"), call("lookup", q="b"), "done")
    cs = score({"behavior": "any_tool"}, two, TOOLS, config)
    assert cs.status == "failed"
    assert by_name(cs, "max_calls").explanation == "2 tool call(s), at most 1 allowed"
    assert by_name(cs, "max_model_steps").passed is True
    assert verdict({"behavior": "any_tool", "max_calls": 2}, two, config=config)[0]
    # without the suite's limits the same transcript passes
    assert verdict({"behavior": "any_tool"}, two)[0]


def test_a_minimum_above_its_maximum_is_refused() -> None:
    with pytest.raises(ValidationError, match="min_calls 3 is above max_calls 1"):
        Expectation.model_validate({"min_calls": 3, "max_calls": 1})
    with pytest.raises(ValidationError, match="min_model_steps 2 is above max_model_steps 1"):
        StepLimits(min_model_steps=2, max_model_steps=1)


# --- pass threshold ----------------------------------------------------------------------------

TWO_ARGS = {
    "tool_calls": [{"name": "send_email", "arguments": {"to": "bob@acme.com", "body": "hi"}}]
}
HALF_RIGHT = steps(call("send_email", to="bob@acme.com", body="hello"), "sent")  # score 0.67


def test_a_case_pass_threshold_passes_at_or_above_it_and_fails_below() -> None:
    strict = score(TWO_ARGS, HALF_RIGHT, TOOLS)
    assert strict.status == "failed"
    assert strict.score == pytest.approx(2 / 3)
    passed = score(TWO_ARGS, HALF_RIGHT, TOOLS, pass_threshold=0.6)
    assert passed.status == "passed"
    assert passed.explanation.startswith("passed: score 0.67 is at least pass_threshold 0.6")
    assert "send_email.body: expected 'hi', got 'hello'" in passed.explanation
    failed = score(TWO_ARGS, HALF_RIGHT, TOOLS, pass_threshold=0.7)
    assert failed.status == "failed"
    assert failed.explanation.startswith("score 0.67 is below pass_threshold 0.7")


def test_the_suite_default_threshold_and_a_case_own() -> None:
    suite = Suite(name="s", defaults=Defaults(pass_threshold=0.6))
    config = ScoringConfig().for_suite(suite)
    assert score(TWO_ARGS, HALF_RIGHT, TOOLS, config).status == "passed"
    assert score(TWO_ARGS, HALF_RIGHT, TOOLS, config, pass_threshold=0.9).status == "failed"
    # a wrong tool scores 0: no threshold above 0 lets it through
    wrong = steps(call("lookup", q="x"), "sent")
    assert score(TWO_ARGS, wrong, TOOLS, config).status == "failed"


# --- not ---------------------------------------------------------------------------------------


def test_not_inverts_an_expected_trajectory() -> None:
    exp = {
        "not": {"tool_calls": [{"name": "delete_*", "args_match": "ignore"}], "order": "superset"}
    }
    assert verdict(exp, steps(call("lookup", q="x"), "done"))[0]
    cs = score(exp, steps(call("lookup", q="x"), call("delete_user", id="1"), "done"), TOOLS)
    assert cs.status == "failed"
    s = by_name(cs, "not")
    assert s.explanation.startswith("not: expected this not to hold, but it did: called")
    assert [p.name for p in s.parts] == ["tool_selection", "arguments"]


def test_not_inverts_response_contains_and_counts() -> None:
    exp = {"not": {"response_contains": ["sorry"]}}
    assert verdict(exp, reply(text="It is 20 degrees."))[0]
    assert not verdict(exp, reply(text="Sorry, it failed."))[0]
    exp = {"not": {"max_calls": 0}}  # at least one call, written the other way round
    assert verdict(exp, steps(call("lookup"), "done"))[0]
    assert not verdict(exp, reply(text="done"))[0]


def test_not_applies_its_own_bounds_not_the_suites() -> None:
    suite = Suite(name="s", defaults=Defaults(limits=StepLimits(max_calls=5)))
    config = ScoringConfig().for_suite(suite)
    exp = {"not": {"response_contains": ["sorry"]}}
    cs = score(exp, reply(text="fine"), TOOLS, config)
    assert [p.name for p in by_name(cs, "not").parts] == ["response_contains"]


def test_not_refuses_what_it_cannot_invert() -> None:
    with pytest.raises(ValidationError, match="'not' cannot invert reference"):
        Expectation.model_validate({"not": {"reference": "x"}})
    with pytest.raises(ValidationError, match="'not' needs at least one check"):
        Expectation.model_validate({"not": {"order": "strict"}})


def test_a_case_limits_bound_the_whole_conversation() -> None:
    expect = {"behavior": "any_tool", "max_calls": 1}
    turns = [
        {"user": "and B?", "expect": {"behavior": "any_tool", "max_calls": 1}},
        {"user": "and C?", "expect": {"behavior": "any_tool", "max_calls": 1}},
    ]
    one_each = [steps(call("lookup", q=q), "done") for q in "abc"]
    ok = score(expect, one_each, TOOLS, turns=turns, limits={"max_calls": 3, "min_model_steps": 6})
    assert ok.status == "passed", ok.explanation
    assert by_name(ok, "conversation.max_calls").explanation == (
        "3 tool call(s) in the whole conversation, at most 3 allowed"
    )
    tight = score(expect, one_each, TOOLS, turns=turns, limits={"max_calls": 2})
    assert tight.status == "failed"
    assert by_name(tight, "conversation.max_calls").passed is False
    # every turn met its own bound: only the conversation's failed
    assert [s.name for s in tight.scores if s.passed is False] == ["conversation.max_calls"]
    few = score(expect, one_each, TOOLS, turns=turns, limits={"min_model_steps": 7})
    assert by_name(few, "conversation.min_model_steps").explanation == (
        "6 model step(s) in the whole conversation, at least 7 needed"
    )
