"""Every argument comparator, with the hard cases: types, defaults, unicode, nesting, credit."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scoring_helpers import by_name, call, reply, score, tool

from agentgauge.scoring._values import PlainOptions, mismatch

NUM = tool(
    "f",
    {
        "n": {"type": "integer"},
        "x": {"type": "number"},
        "flag": {"type": "boolean"},
        "s": {"type": "string"},
        "when": {"type": "string"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "unit": {"type": "string", "default": "celsius"},
        "limit": {"type": "integer", "default": 10},
        "opts": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "string", "default": "z"}},
        },
        "people": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            },
        },
    },
)


def verdict(matcher: Any, value: Any, name: str = "s") -> tuple[bool, float, str]:
    expect = {"tool_calls": [{"name": "f", "arguments": {name: matcher}}]}
    cs = score(expect, reply(call("f", **{name: value})), [NUM])
    part = by_name(cs, "arguments").parts[0]
    return part.passed, part.value, part.explanation


@pytest.mark.parametrize(
    ("name", "matcher", "value", "passed"),
    [
        ("x", 3, 3.0, True),  # int where a number is expected
        ("x", 3.0, 3, True),
        ("n", 3, 3, True),
        ("n", 3, 3.0, False),  # a float where the schema says integer
        ("n", {"value": 3, "coerce": True}, 3.0, True),
        ("n", 2, "2", False),  # a string for an integer
        ("n", {"value": 2, "coerce": True}, "2", True),
        ("n", {"value": 2, "coerce": True}, "two", False),
        ("n", 1, True, False),  # a bool is never a number
        ("flag", True, 1, False),
        ("flag", True, True, True),
        ("flag", {"value": True, "coerce": True}, "true", True),
        ("x", {"value": 2.5, "tolerance": 0.1}, 2.58, True),
        ("x", {"value": 2.5, "tolerance": 0.1}, 2.7, False),
        ("x", {"value": 100, "rel_tolerance": 0.05}, 104, True),
        ("x", {"value": 100, "rel_tolerance": 0.05}, 106, False),
        ("x", 0.1 + 0.2, 0.3, True),  # float noise
        ("s", "Paris", "Paris", True),
        ("s", "Paris", "paris", False),
        ("s", {"value": "Paris", "ignore_case": True}, "PARIS", True),
        ("s", {"value": "New York", "ignore_space": True}, "  New   York ", True),
        ("s", {"value": "straße", "ignore_case": True}, "STRASSE", True),  # casefold
        ("s", "café", "cafe\u0301", True),  # NFC: composed vs decomposed
        ("s", {"value": "Zürich", "ignore_case": True}, "ZU\u0308RICH", True),
        ("s", {"one_of": ["New York", "NYC"]}, "NYC", True),
        ("s", {"regex": r"[A-Z]{3}"}, "CDG", True),
        ("s", {"regex": r"[A-Z]{3}"}, "CDGX", False),  # fullmatch
        ("s", {"regex": r"[A-Z]{3}"}, 123, False),
        ("s", {"any": True}, {"whatever": 1}, True),
        ("s", None, None, True),
        ("s", None, "x", False),
        ("when", {"value": "2026-03-20", "date": True}, "March 20, 2026", True),
        ("when", {"value": "2026-03-20", "date": True}, "20 March 2026", True),
        ("when", {"value": "2026-03-20", "date": True}, "03/20/2026", True),
        ("when", {"value": "2026-03-20", "date": True}, "March 21, 2026", False),
        ("when", "2026-03-20", "March 20, 2026", False),  # without date: exact
        ("tags", ["a", "b"], ["a", "b"], True),
        ("tags", ["a", "b"], ["b", "a"], False),
        ("tags", {"value": ["a", "b", "a"], "unordered": True}, ["a", "a", "b"], True),
        ("tags", {"value": ["a", "b", "a"], "unordered": True}, ["a", "b", "b"], False),
        ("tags", [], [], True),
        ("tags", [], ["a"], False),
        ("tags", {"value": [], "unordered": True}, [], True),
        ("opts", {"value": {"a": 1}}, {"a": 1, "b": "z"}, True),  # nested default
        ("opts", {"value": {"a": 1}}, {"a": 1, "b": "y"}, False),
        ("opts", {"a": 1, "b": "z"}, {"a": 1}, True),  # fields shorthand; omitted default
    ],
)
def test_comparators(name: str, matcher: Any, value: Any, passed: bool) -> None:
    assert verdict(matcher, value, name)[0] is passed


def test_explanations_exact_text() -> None:
    assert verdict(2, "2", "n")[2] == (
        "f.n: expected 2, got '2' (a string); set coerce: true to accept strings"
    )
    assert verdict({"value": "Paris", "ignore_case": True}, "Lyon")[2] == (
        "f.s: expected 'Paris' (ignoring case), got 'Lyon'"
    )
    assert verdict({"value": 2.5, "tolerance": 0.1}, 3, "x")[2] == "f.x: expected 2.5 ± 0.1, got 3"
    assert (
        verdict({"regex": "[A-Z]{3}"}, "cdg")[2] == "f.s: expected a match of /[A-Z]{3}/, got 'cdg'"
    )
    assert verdict(True, 1, "flag")[2] == "f.flag: expected True, got 1 (an integer)"


def test_missing_and_optional_and_defaults() -> None:
    def run(args: dict[str, Any], **kw: Any) -> tuple[str, str]:
        expect = {"tool_calls": [{"name": "f", "arguments": args}]}
        cs = score(expect, reply(call("f", **kw)), [NUM])
        return cs.status, cs.explanation

    assert run({"s": "x"}) == ("failed", "f.s: missing (expected 'x')")
    assert run({"s": {"value": "x", "optional": True}}) == ("passed", "")
    assert run({"unit": "celsius"}) == ("passed", "")  # omitted, schema default matches
    assert run({"limit": 10}) == ("passed", "")
    assert run({"limit": 10.0}) == ("passed", "")
    assert run({"unit": "fahrenheit"}) == (
        "failed",
        "f.unit: expected 'fahrenheit', it was omitted (schema default 'celsius')",
    )
    assert run({"unit": {"one_of": ["celsius", "kelvin"]}}) == ("passed", "")


def test_nested_fields_score_average_and_point_at_the_field() -> None:
    matcher = {"a": 1, "b": "q"}
    passed, value, explanation = verdict(matcher, {"a": 1, "b": "r"}, "opts")
    assert not passed
    assert value == 0.5
    assert explanation == "f.opts.b: expected 'q', got 'r'"
    passed, value, explanation = verdict(matcher, {"a": 1, "b": "q", "c": 3}, "opts")
    assert not passed
    assert explanation == "f.opts.c: unexpected field (got 3)"
    assert verdict(matcher, "not an object", "opts")[2] == (
        "f.opts: expected an object, got 'not an object'"
    )


def test_exact_nested_value_points_at_the_difference() -> None:
    passed, _, explanation = verdict(
        {"value": [{"name": "Ann", "age": 3}]}, [{"name": "Ann", "age": 4}], "people"
    )
    assert not passed
    assert explanation == "f.people[0].age: expected 3, got 4"


def test_arrays_of_objects_unordered_assigned_optimally() -> None:
    matcher = {"items": [{"name": {"regex": "A.*"}}, {"name": "Ann"}], "unordered": True}
    value = [{"name": "Ann"}, {"name": "Abe"}]
    # greedy first-fit gives the regex matcher "Ann" and leaves "Abe" to the "Ann" matcher
    passed, score_value, _ = verdict(matcher, value, "people")
    assert passed
    assert score_value == 1.0


def test_arrays_of_objects_ordered_and_lengths() -> None:
    matcher = {"items": [{"name": "Ann"}, {"name": "Bob"}]}
    assert verdict(matcher, [{"name": "Ann"}, {"name": "Bob"}], "people")[0]
    passed, value, explanation = verdict(matcher, [{"name": "Bob"}, {"name": "Ann"}], "people")
    assert not passed
    assert value == 0.0
    passed, value, explanation = verdict(matcher, [{"name": "Ann"}], "people")
    assert not passed
    assert value == 0.5
    assert explanation == "f.people: missing item {name: 'Bob'}"
    assert verdict({"items": []}, [], "people")[0]


def test_partial_credit() -> None:
    matcher = {
        "value": "CDG",
        "partial": [{"value": "ORY", "credit": 0.5}, {"value": "BVA", "credit": 0.2}],
    }
    assert verdict(matcher, "CDG") == (True, 1.0, "f.s: 'CDG' as expected")
    passed, value, explanation = verdict(matcher, "ORY")
    assert (passed, value) == (False, 0.5)
    assert explanation == "f.s: expected 'CDG', got 'ORY' (partial credit 0.5)"
    assert verdict(matcher, "PWM")[:2] == (False, 0.0)


def test_overall_argument_score_averages_arguments() -> None:
    expect = {
        "tool_calls": [
            {
                "name": "f",
                "arguments": {
                    "s": {"value": "CDG", "partial": [{"value": "ORY", "credit": 0.5}]},
                    "n": 2,
                },
            }
        ]
    }
    cs = score(expect, reply(call("f", s="ORY", n=2)), [NUM])
    args = by_name(cs, "arguments")
    assert args.passed is False
    assert args.value == pytest.approx(0.75)
    assert [(p.name, p.value) for p in args.parts] == [("f.s", 0.5), ("f.n", 1.0)]


def test_unknown_tool_schema_still_compares() -> None:
    expect = {"tool_calls": [{"name": "g", "arguments": {"k": 1}}]}
    assert score(expect, reply(call("g", k=1.0))).status == "passed"
    assert score(expect, reply(call("g", k="1"))).status == "failed"


def test_invalid_regex_fails_with_a_reason() -> None:
    passed, _, explanation = verdict({"regex": "[unclosed"}, "x")
    assert not passed
    assert explanation.startswith("f.s: invalid regular expression /[unclosed/: ")


def test_long_values_are_shortened_in_explanations() -> None:
    _, _, explanation = verdict("x", "y" * 1000)
    assert len(explanation) < 250
    assert explanation.endswith("…")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=12,
)


@given(json_values)
def test_every_value_matches_itself(value: Any) -> None:
    assert mismatch(value, value) is None
    assert (
        mismatch(
            value, value, None, PlainOptions(ignore_case=True, ignore_space=True, unordered=True)
        )
        is None
    )


@given(st.integers(-(10**6), 10**6))
def test_bool_never_equals_a_number(n: int) -> None:
    assert mismatch(n, True) is not None
    assert mismatch(True, n) is not None
