"""The BFCL AST checker re-implementation: verdicts and BFCL error types on small cases."""

from __future__ import annotations

from typing import Any

import pytest

from agentgauge.scoring._bfcl_ast import (
    BfclFunction,
    check_ast,
    check_relevance,
    standardize_string,
)

WEATHER = BfclFunction(
    "get_weather",
    {
        "city": ("string", None),
        "days": ("integer", None),
        "temp": ("float", None),
        "metric": ("boolean", None),
        "tags": ("array", "string"),
        "point": ("tuple", "float"),
        "opts": ("dict", None),
        "rows": ("array", "dict"),
        "anything": ("any", None),
    },
    ["city"],
)


def verdict(
    args: dict[str, Any],
    answer: dict[str, list[Any]],
    *,
    name: str = "get_weather",
    category: str = "simple_python",
) -> tuple[bool, str]:
    v = check_ast(category, [WEATHER], [(name, args)], [("get_weather", answer)])
    return v.valid, v.error_type


def test_standardize_string_drops_bfcl_punctuation_and_case() -> None:
    assert standardize_string("New York, NY") == "newyorkny"
    assert standardize_string("2024-04-01") == "20240401"
    assert standardize_string("a_b*c^d/e.f") == "abcdef"
    assert standardize_string("it's") == 'it"s'
    # only the space character is removed, not tabs
    assert standardize_string("a\tb") == "a\tb"


def test_exact_pass_and_string_normalisation() -> None:
    assert verdict({"city": "new york"}, {"city": ["New York"]}) == (True, "")
    assert verdict({"city": "NEW-YORK"}, {"city": ["New York", "NYC"]}) == (True, "")
    assert verdict({"city": "Newark"}, {"city": ["New York"]}) == (False, "value_error:string")


def test_wrong_function_name_and_count() -> None:
    assert verdict({"city": "x"}, {"city": ["x"]}, name="get_time") == (
        False,
        "simple_function_checker:wrong_func_name",
    )
    v = check_ast("simple_python", [WEATHER], [], [("get_weather", {"city": ["x"]})])
    assert (v.valid, v.error_type) == (False, "simple_function_checker:wrong_count")


def test_missing_required_unexpected_and_missing_optional() -> None:
    assert verdict({"days": 3}, {"city": ["x"], "days": [3]}) == (
        False,
        "simple_function_checker:missing_required",
    )
    # a parameter the ground truth does not list is unexpected, even if the schema has it
    assert verdict({"city": "x", "days": 3}, {"city": ["x"]}) == (
        False,
        "simple_function_checker:unexpected_param",
    )
    assert verdict({"city": "x", "nope": 1}, {"city": ["x"]}) == (
        False,
        "simple_function_checker:unexpected_param",
    )
    # omitted without "" among the acceptable values: fails
    assert verdict({"city": "x"}, {"city": ["x"], "days": [3]}) == (
        False,
        "simple_function_checker:missing_optional",
    )
    # "" means it may be omitted
    assert verdict({"city": "x"}, {"city": ["x"], "days": [3, ""]}) == (True, "")


def test_type_rules() -> None:
    # int accepted for float, not the other way round
    assert verdict({"city": "x", "temp": 20}, {"city": ["x"], "temp": [20.0]}) == (True, "")
    assert verdict({"city": "x", "days": 3.0}, {"city": ["x"], "days": [3]}) == (
        False,
        "type_error:simple",
    )
    # bool is not an integer (exact Python types)
    assert verdict({"city": "x", "days": True}, {"city": ["x"], "days": [1]}) == (
        False,
        "type_error:simple",
    )
    assert verdict({"city": 5}, {"city": ["5"]}) == (False, "type_error:simple")
    # int for a boolean fails too
    assert verdict({"city": "x", "metric": 1}, {"city": ["x"], "metric": [True]}) == (
        False,
        "type_error:simple",
    )


def test_variable_rule_uses_type_of_first_answer() -> None:
    # the ground truth gives a string for an integer parameter: a string is then accepted,
    # compared exactly (no normalisation)
    assert verdict({"city": "x", "days": "n"}, {"city": ["x"], "days": ["n"]}) == (True, "")
    assert verdict({"city": "x", "days": "N"}, {"city": ["x"], "days": ["n"]}) == (
        False,
        "value_error:others",
    )
    # None in the ground truth accepts None
    assert verdict({"city": "x", "days": None}, {"city": ["x"], "days": [None, ""]}) == (True, "")


def test_lists_tuples_and_nested_types() -> None:
    ans = {"city": ["x"], "tags": [["Sunny Day", "rain"]]}
    assert verdict({"city": "x", "tags": ["sunny day", "RAIN"]}, ans) == (True, "")
    # order matters for lists
    assert verdict({"city": "x", "tags": ["rain", "sunny day"]}, ans) == (
        False,
        "value_error:list/tuple",
    )
    # item type checked one level deep
    assert verdict({"city": "x", "tags": [1, 2]}, ans) == (False, "type_error:nested")
    # tuple parameter: a tuple value is turned into a list; an int is not accepted as a float
    # inside an array
    tup = {"city": ["x"], "point": [[1.5, 2.5]]}
    assert verdict({"city": "x", "point": (1.5, 2.5)}, tup) == (True, "")
    assert verdict({"city": "x", "point": [1.5, 2.5]}, tup) == (True, "")
    # "" among acceptable list values also accepts an empty list
    assert verdict({"city": "x", "tags": []}, {"city": ["x"], "tags": [["a"], ""]}) == (True, "")


def test_dicts_and_lists_of_dicts() -> None:
    ans = {"city": ["x"], "opts": [{"unit": ["Celsius", "C"], "lang": ["en", ""]}]}
    assert verdict({"city": "x", "opts": {"unit": "celsius"}}, ans) == (True, "")
    assert verdict({"city": "x", "opts": {"unit": "K"}}, ans) == (False, "value_error:dict_value")
    assert verdict({"city": "x", "opts": {"unit": "C", "x": 1}}, ans) == (
        False,
        "value_error:dict_key",
    )
    assert verdict({"city": "x", "opts": {"lang": "en"}}, ans) == (False, "value_error:dict_key")
    rows = {"city": ["x"], "rows": [[{"a": [1]}, {"a": [2]}]]}
    assert verdict({"city": "x", "rows": [{"a": 1}, {"a": 2}]}, rows) == (True, "")
    assert verdict({"city": "x", "rows": [{"a": 1}]}, rows) == (
        False,
        "value_error:list_dict_count",
    )


def test_any_type_is_checked_as_string() -> None:
    assert verdict({"city": "x", "anything": "Lambda X"}, {"city": ["x"], "anything": ["lambdax"]})[
        0
    ]


def parallel(calls: list[tuple[str, dict[str, Any]]], answers: list[Any]) -> tuple[bool, str]:
    f = BfclFunction("f", {"a": ("string", None)}, ["a"])
    g = BfclFunction("g", {"b": ("integer", None)}, ["b"])
    v = check_ast("parallel_multiple", [f, g], calls, answers)
    return v.valid, v.error_type


def test_parallel_any_order_and_counts() -> None:
    answers = [("f", {"a": ["x"]}), ("g", {"b": [1]})]
    assert parallel([("g", {"b": 1}), ("f", {"a": "x"})], answers) == (True, "")
    assert parallel([("f", {"a": "x"})], answers) == (
        False,
        "parallel_function_checker_no_order:wrong_count",
    )
    assert parallel([("f", {"a": "x"}), ("g", {"b": 2})], answers) == (
        False,
        "parallel_function_checker_no_order:cannot_find_match",
    )


def test_parallel_is_first_fit_like_bfcl() -> None:
    # a valid one-to-one assignment exists (expected 0 <- call 1, expected 1 <- call 0), but
    # BFCL gives expected 0 the first call that fits, leaving nothing for expected 1
    answers = [("f", {"a": ["1", "2"]}), ("f", {"a": ["1"]})]
    assert parallel([("f", {"a": "1"}), ("f", {"a": "2"})], answers) == (
        False,
        "parallel_function_checker_no_order:cannot_find_match",
    )
    assert parallel([("f", {"a": "2"}), ("f", {"a": "1"})], answers) == (True, "")


def test_multiple_needs_exactly_one_call() -> None:
    f = BfclFunction("f", {"a": ("string", None)}, ["a"])
    g = BfclFunction("g", {"b": ("integer", None)}, ["b"])
    answers = [("g", {"b": [1]})]
    assert check_ast("multiple", [f, g], [("g", {"b": 1})], answers).valid
    two = check_ast("multiple", [f, g], [("g", {"b": 1}), ("g", {"b": 1})], answers)
    assert two.error_type == "multiple_function_checker:wrong_count"


def test_relevance_and_irrelevance() -> None:
    assert check_relevance("irrelevance", has_call=False).valid
    bad = check_relevance("live_irrelevance", has_call=True)
    assert bad.error_type == "irrelevance_error:decoder_success"
    assert check_relevance("live_relevance", has_call=True).valid
    assert check_relevance("live_relevance", has_call=False).error_type == (
        "relevance_error:decoder_failed"
    )


def test_data_bfcl_cannot_handle_is_a_failure_not_a_crash() -> None:
    f = BfclFunction("f", {"a": ("weird", None)}, [])
    v = check_ast("simple", [f], [("f", {"a": 1})], [("f", {"a": [1]})])
    assert (v.valid, v.error_type) == (False, "bfcl:checker_crash")


@pytest.mark.parametrize(
    ("value", "ok"),
    [(["a"], True), (["b"], False), ([], True)],
)
def test_list_with_optional_marker(value: list[str], ok: bool) -> None:
    assert verdict({"city": "x", "tags": value}, {"city": ["x"], "tags": [["a"], ""]})[0] is ok


def test_unicode_strings_standardise_like_python_lower() -> None:
    assert verdict({"city": "ÉCOLE NORMALE"}, {"city": ["école-normale"]}) == (True, "")
    assert verdict({"city": "李雷"}, {"city": ["李雷"]}) == (True, "")
    assert verdict({"city": "李 雷"}, {"city": ["李雷"]}) == (True, "")
    assert verdict({"city": "李丽"}, {"city": ["李雷"]}) == (False, "value_error:string")


def test_dict_quirks_kept_from_bfcl() -> None:
    # a dict parameter whose only acceptable value is "" fails whenever a dict is given
    assert verdict({"city": "x", "opts": {}}, {"city": ["x"], "opts": [""]}) == (
        False,
        "dict_checker:unclear",
    )
    # nested values inside a dict are compared without looking into them
    nested = {"city": ["x"], "opts": [{"range": [[1, 2]]}]}
    assert verdict({"city": "x", "opts": {"range": [1, 2]}}, nested) == (True, "")
    assert verdict({"city": "x", "opts": {"range": [2, 1]}}, nested) == (
        False,
        "value_error:dict_value",
    )
    # an empty list of dicts is accepted when "" is acceptable
    assert verdict({"city": "x", "rows": []}, {"city": ["x"], "rows": [[{"a": [1]}], ""]}) == (
        True,
        "",
    )


def test_empty_arrays() -> None:
    assert verdict({"city": "x", "tags": []}, {"city": ["x"], "tags": [[]]}) == (True, "")
    assert verdict({"city": "x", "tags": []}, {"city": ["x"], "tags": [["a"]]}) == (
        False,
        "value_error:list/tuple",
    )
