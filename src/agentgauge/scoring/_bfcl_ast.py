"""A re-implementation of the Berkeley Function Calling Leaderboard's AST checker (Python).

It works on BFCL-shaped data and gives the same verdicts as BFCL's own checker for its
single-turn categories, with the same error-type names (``value_error:string``,
``simple_function_checker:missing_required``, ...) so a failure can be cross-referenced with a
BFCL score file. Written from a reading of BFCL's published checker; the quirks are kept on
purpose, since the point is to agree with it:

- strings compare after removing spaces and the characters ``, . / - _ * ^``, lower-casing, and
  turning ``'`` into ``"``;
- types are checked with exact Python types (``True`` is not an ``integer``), except that an
  ``int`` is accepted for a ``float`` parameter; ``tuple`` parameters accept a tuple or a list;
  ``any`` is checked as a string; array items are type-checked one level deep;
- a value whose type matches the type of the first acceptable answer instead of the schema
  type (BFCL's "variable" rule) passes the type check and is then compared exactly;
- ``""`` among the acceptable values means the parameter may be omitted (and, for strings and
  lists, that an empty string / empty list is accepted);
- parallel calls: every expected call, in order, takes the first not-yet-matched model call that
  passes (first fit, as BFCL does).

Crashes of BFCL's own checker (data it cannot handle) become the error type
``bfcl:checker_crash`` here instead of aborting the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "BfclFunction",
    "BfclVerdict",
    "check_ast",
    "check_relevance",
    "standardize_string",
]

#: BFCL parameter type name -> the Python type its values must have
PYTHON_TYPES: Final[dict[str, type]] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}

_NESTED_TYPES: Final = ("array", "tuple")
_STRIP_TABLE: Final = str.maketrans("", "", " ,./-_*^")


class _Crash(Exception):
    """BFCL's checker would raise here (a data shape it does not handle)."""


@dataclass(frozen=True, slots=True)
class BfclFunction:
    """A function doc as BFCL's checker sees it: parameter types by BFCL type name."""

    name: str
    #: parameter -> (BFCL type name, BFCL type name of array items or None)
    params: Mapping[str, tuple[str, str | None]]
    required: Sequence[str]


@dataclass(frozen=True, slots=True)
class BfclVerdict:
    """The checker's verdict: valid or not, BFCL's error type and messages."""

    valid: bool
    error_type: str = ""
    errors: tuple[str, ...] = ()

    @property
    def message(self) -> str:
        return " ".join(self.errors)


_VALID: Final = BfclVerdict(True)


def _fail(error_type: str, *errors: str) -> BfclVerdict:
    return BfclVerdict(False, error_type, errors)


def standardize_string(text: str) -> str:
    """BFCL's string standardisation: drop `` ,./-_*^``, lower-case, ``'`` -> ``"``."""
    return text.translate(_STRIP_TABLE).lower().replace("'", '"')


def _std(value: Any) -> Any:
    return standardize_string(value) if type(value) is str else value


def _std_each(container: Any) -> list[Any]:
    """Standardise each element of an acceptable-values container the way BFCL indexes it."""
    if type(container) is list or type(container) is tuple or type(container) is str:
        return [_std(x) for x in container]
    if type(container) is dict and not container:
        return []
    raise _Crash(f"cannot index acceptable values {container!r}")


def _first_answer_type(possible: Sequence[Any]) -> type | None:
    for answer in possible:
        if answer != "":
            return type(answer)
    return None


def _type_name(t: type) -> str:
    return t.__name__


# ---------------------------------------------------------------------------- type checking


def _type_check(
    param: str,
    value: Any,
    possible: Sequence[Any],
    type_desc: str,
    expected: type,
    nested: type | None,
) -> tuple[BfclVerdict, bool]:
    """(verdict, is_variable), as BFCL's ``type_checker``."""
    answer_type = _first_answer_type(possible)
    is_variable = answer_type is not None and answer_type is not expected
    nested_failed = False
    if type(value) is expected:
        if nested is None:
            return _VALID, is_variable
        for item in possible:
            ok = True
            if type(item) is list:
                for element in value:  # type: ignore[attr-defined]
                    inner, _ = _type_check(param, element, item, _type_name(nested), nested, None)
                    if not inner.valid:
                        ok = False
                        break
            if ok:
                return _VALID, is_variable
        nested_failed = True
    nested_msg = (
        f"Nested type checking failed for parameter {param!r}. Expected outer type {type_desc} "
        f"with inner type {nested.__name__ if nested else None}. Parameter value: {value!r}."
    )
    if answer_type is not None and type(value) is answer_type:
        if nested_failed:
            return _fail("type_error:nested", nested_msg), True
        return _VALID, True
    msg = (
        f"Incorrect type for parameter {param!r}. Expected type {type_desc}, "
        f"got {type(value).__name__}. Parameter value: {value!r}."
    )
    if nested_failed:
        return _fail("type_error:simple", nested_msg, msg), False
    return _fail("type_error:simple", msg), False


# ---------------------------------------------------------------------------- value checking


def _string_check(param: str, value: str, possible: Sequence[Any]) -> BfclVerdict:
    accepted = [standardize_string(p) for p in possible if type(p) is str]
    if standardize_string(value) in accepted:
        return _VALID
    return _fail(
        "value_error:string",
        f"Invalid value for parameter {param!r}: {value!r}. Expected one of {list(possible)}. "
        "Case insensitive.",
    )


def _list_check(param: str, value: Sequence[Any], possible: Sequence[Any]) -> BfclVerdict:
    got = [_std(x) for x in value]
    accepted = [_std_each(p) for p in possible]
    if got in accepted:
        return _VALID
    return _fail(
        "value_error:list/tuple",
        f"Invalid value for parameter {param!r}: {value!r}. Expected one of {list(possible)}.",
    )


def _dict_check(param: str, value: Mapping[str, Any], possible: Sequence[Any]) -> BfclVerdict:
    result = _fail("dict_checker:unclear")
    for answer in possible:
        if answer == "":
            continue
        if type(answer) is not dict:
            raise _Crash(f"acceptable value of dict parameter {param!r} is not a dict")
        result = _fail("dict_checker:unclear")
        ok = True
        for key, item in value.items():
            if key not in answer:
                result = _fail("value_error:dict_key", f"Unexpected dict key parameter: '{key}'.")
                ok = False
                break
            accepted = _std_each(answer[key])
            if _std(item) not in accepted:
                result = _fail(
                    "value_error:dict_value",
                    f"Invalid value for parameter {key!r}: {item!r}. Expected one of {accepted}.",
                )
                ok = False
                break
        for key, acceptable in answer.items():
            if key not in value and "" not in acceptable:
                result = _fail(
                    "value_error:dict_key", *result.errors, f"Missing dict key parameter: '{key}'."
                )
                ok = False
                break
        if ok:
            return _VALID
    return result


def _list_dict_check(param: str, value: Sequence[Any], possible: Sequence[Any]) -> BfclVerdict:
    result = _fail("list_dict_checker:unclear")
    for answer in possible:
        if len(value) != len(answer):
            result = _fail(
                "value_error:list_dict_count", "Wrong number of dictionaries in the list."
            )
            continue
        ok = True
        for index, element in enumerate(value):
            if type(element) is not dict:
                raise _Crash(f"list item of {param!r} is not a dict")
            result = _dict_check(param, element, [answer[index]])
            if not result.valid:
                ok = False
                break
        if ok:
            return _VALID
    return result


# ---------------------------------------------------------------------------- one call


def check_call(
    func: BfclFunction,
    call_name: str,
    call_args: Mapping[str, Any],
    answer: Mapping[str, Sequence[Any]],
) -> BfclVerdict:
    """BFCL's ``simple_function_checker``: one model call against one expected call."""
    try:
        return _check_call(func, call_name, call_args, answer)
    except _Crash as crash:
        return _fail("bfcl:checker_crash", f"BFCL's checker cannot handle this data: {crash}.")
    except (TypeError, KeyError, IndexError) as exc:  # shapes BFCL would crash on, too
        return _fail("bfcl:checker_crash", f"BFCL's checker cannot handle this data: {exc!r}.")


def _check_call(
    func: BfclFunction,
    call_name: str,
    call_args: Mapping[str, Any],
    answer: Mapping[str, Sequence[Any]],
) -> BfclVerdict:
    if call_name != func.name:
        return _fail(
            "simple_function_checker:wrong_func_name",
            f"Function name {func.name!r} not found in model output.",
        )
    for param in func.required:
        if param not in call_args:
            return _fail(
                "simple_function_checker:missing_required",
                f"Missing required parameter: {param!r}.",
            )
    for param, raw in call_args.items():
        spec = func.params.get(param)
        if spec is None or param not in answer:
            return _fail(
                "simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}."
            )
        possible = answer[param]
        type_desc, items_desc = spec
        expected = PYTHON_TYPES.get(type_desc)
        if expected is None:
            raise _Crash(f"unknown BFCL type {type_desc!r} of parameter {param!r}")
        nested: type | None = None
        if type_desc in _NESTED_TYPES and items_desc is not None:
            nested = PYTHON_TYPES.get(items_desc)
            if nested is None:
                raise _Crash(f"unknown BFCL item type {items_desc!r} of parameter {param!r}")
        value = raw
        if type_desc == "tuple" and type(value) is tuple:
            value = list(value)
        if type_desc == "float" and type(value) is int:
            value = float(value)
        verdict, is_variable = _type_check(param, value, possible, type_desc, expected, nested)
        if not verdict.valid:
            return verdict
        if not is_variable:
            if expected is dict:
                verdict = _dict_check(param, value, possible)
            elif expected is list and nested is dict:
                verdict = _list_dict_check(param, value, possible)
            elif expected is str:
                verdict = _string_check(param, value, possible)
            elif expected is list:
                verdict = _list_check(param, value, possible)
            else:
                verdict = _VALID if value in possible else _others(param, value, possible)
            if not verdict.valid:
                return verdict
            continue
        if value not in possible:
            return _others(param, value, possible)
    for param, possible in answer.items():
        if param not in call_args and "" not in possible:
            return _fail(
                "simple_function_checker:missing_optional",
                f"Optional parameter {param!r} not provided and not marked as optional.",
            )
    return _VALID


def _others(param: str, value: Any, possible: Sequence[Any]) -> BfclVerdict:
    return _fail(
        "value_error:others",
        f"Invalid value for parameter {param!r}: {value!r}. Expected one of {list(possible)}.",
    )


# ---------------------------------------------------------------------------- whole response


def _find(functions: Sequence[BfclFunction], name: str) -> BfclFunction | None:
    for func in functions:
        if func.name == name:
            return func
    return None


def check_ast(
    category: str,
    functions: Sequence[BfclFunction],
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    answers: Sequence[tuple[str, Mapping[str, Sequence[Any]]]],
) -> BfclVerdict:
    """BFCL's ``ast_checker``: dispatch on the category name as BFCL does."""
    if "parallel" in category:
        return _check_parallel(functions, calls, answers)
    if "multiple" in category:
        if len(calls) != len(answers):
            return _fail("multiple_function_checker:wrong_count", "Wrong number of functions.")
        func = _find(functions, answers[0][0])
        if func is None:
            return _missing_doc(answers[0][0])
        return check_call(func, calls[0][0], calls[0][1], answers[0][1])
    if len(calls) != 1:
        return _fail("simple_function_checker:wrong_count", "Wrong number of functions.")
    if not functions or not answers:
        return _missing_doc(answers[0][0] if answers else "?")
    return check_call(functions[0], calls[0][0], calls[0][1], answers[0][1])


def _missing_doc(name: str) -> BfclVerdict:
    return _fail("bfcl:checker_crash", f"No function doc for expected function {name!r}.")


def _check_parallel(
    functions: Sequence[BfclFunction],
    calls: Sequence[tuple[str, Mapping[str, Any]]],
    answers: Sequence[tuple[str, Mapping[str, Sequence[Any]]]],
) -> BfclVerdict:
    if len(calls) != len(answers):
        return _fail("parallel_function_checker_no_order:wrong_count", "Wrong number of functions.")
    matched: set[int] = set()
    for answer_index, (name, params) in enumerate(answers):
        func = _find(functions, name)
        if func is None:
            return _missing_doc(name)
        errors: list[str] = []
        found = False
        for index, (call_name, call_args) in enumerate(calls):
            if index in matched:
                continue
            verdict = check_call(func, call_name, call_args, params)
            if verdict.valid:
                matched.add(index)
                found = True
                break
            errors.append(f"[model call {index}] {verdict.error_type}: {verdict.message}")
        if not found:
            considered = [i for i in range(len(calls)) if i not in matched]
            return _fail(
                "parallel_function_checker_no_order:cannot_find_match",
                f"Could not find a matching function among index {considered} of model output "
                f"for index {answer_index} of possible answers ({name}).",
                *errors,
            )
    return _VALID


def check_relevance(category: str, has_call: bool) -> BfclVerdict:
    """Relevance / irrelevance: irrelevance passes with no decoded call, relevance with one."""
    if "irrelevance" in category:
        if has_call:
            return _fail(
                "irrelevance_error:decoder_success",
                "Valid syntax. Successfully decode AST when it should not.",
            )
        return _VALID
    if not has_call:
        return _fail(
            "relevance_error:decoder_failed",
            "Invalid syntax. Failed to decode AST when it should have.",
        )
    return _VALID
