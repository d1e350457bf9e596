"""Checks across a scorer entry's arguments, for the scorers whose arguments depend on each
other (``assert``, ``rubric``) and for the user's own ``python:`` scorers.

Each check runs after every argument fitted its kind (see :class:`~._catalog.ScorerArg`), so
it may trust the types; it yields ``(path inside args, message)``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

#: a scorer named ``python:file.py:function``: the user's own function
PYTHON_PREFIX: Final = "python:"

#: the assertions of the ``assert`` scorer (its other arguments only qualify them)
ASSERTIONS: Final = (
    "contains",
    "not_contains",
    "regex",
    "not_regex",
    "starts_with",
    "ends_with",
    "json",
    "json_schema",
    "min_chars",
    "max_chars",
    "min_words",
    "max_words",
)

Issues = Iterator[tuple[tuple[str | int, ...], str]]


def python_scorer_issue(spec: str) -> str | None:
    """What is wrong with the shape of ``python:file.py:function`` (None: nothing). Where the
    file is and whether it defines the function is the suite-code policy's question."""
    where, sep, attr = spec.removeprefix(PYTHON_PREFIX).rpartition(":")
    if not sep or not where or not attr:
        return f"scorer '{spec}': expected 'python:file.py:function'"
    if not all(p.isidentifier() for p in attr.split(".")):
        return f"scorer '{spec}': '{attr}' is not a Python name"
    return None


def assert_issues(args: Mapping[str, Any]) -> Issues:
    """At least one assertion; bounds that can both hold."""
    if not any(a in args for a in ASSERTIONS):
        yield (), f"scorer 'assert' needs at least one of: {', '.join(ASSERTIONS)}"
    for unit in ("chars", "words"):
        lo, hi = args.get(f"min_{unit}"), args.get(f"max_{unit}")
        if lo is not None and hi is not None and lo > hi:
            yield (f"min_{unit}",), f"min_{unit} {lo} is above max_{unit} {hi}: nothing passes"
    if args.get("json") is False and "json_schema" in args:
        yield ("json",), "json: false contradicts json_schema (a schema implies JSON)"


#: ``scale: pass_fail``: the rubric's judge answers a verdict (pass / fail), not a score
PASS_FAIL: Final = "pass_fail"
#: the most points an integer rubric scale may have (0..100)
MAX_SCALE_POINTS: Final = 101


def rubric_scale(args: Mapping[str, Any]) -> tuple[int, int]:
    """The ``scale`` of a rubric entry (default 1..5; ``pass_fail`` is 0..1); call after
    :func:`rubric_issues`."""
    scale = args.get("scale") or [1, 5]
    if scale == PASS_FAIL:
        return 0, 1
    return int(scale[0]), int(scale[1])


def _scale_issue(scale: Any) -> str | None:
    if isinstance(scale, str):
        return None if scale == PASS_FAIL else f"{scale!r}: expected [lowest, highest] or pass_fail"
    ints = len(scale) == 2 and all(
        isinstance(x, int | float) and not isinstance(x, bool) and float(x).is_integer()
        for x in scale
    )
    if not ints:
        return f"{scale!r}: expected [lowest, highest], two integers (e.g. [0, 10]), or pass_fail"
    lo, hi = int(scale[0]), int(scale[1])
    if not 0 <= lo < hi or hi - lo + 1 > MAX_SCALE_POINTS:
        return (
            f"{scale!r}: expected 0 <= lowest < highest with at most {MAX_SCALE_POINTS} points "
            "(e.g. [1, 5], [0, 10], [1, 3])"
        )
    return None


def _example_issues(args: Mapping[str, Any], lo: int, hi: int) -> Issues:
    pass_fail = args.get("scale") == PASS_FAIL
    for i, ex in enumerate(args.get("examples") or []):
        unknown = sorted(set(ex) - {"reply", "score", "why"})
        if unknown:
            yield ("examples", i), f"unknown key(s) {unknown}: an example is {{reply, score, why}}"
        if not isinstance(ex.get("reply"), str) or not isinstance(ex.get("why"), str):
            yield ("examples", i), "an example needs 'reply' and 'why' (strings)"
        score = ex.get("score")
        if pass_fail:
            if score not in ("pass", "fail"):
                yield ("examples", i, "score"), f"{score!r}: pass or fail (the scale is pass_fail)"
        elif not isinstance(score, int) or isinstance(score, bool) or not lo <= score <= hi:
            yield ("examples", i, "score"), f"{score!r}: an integer on the scale {lo}..{hi}"


def rubric_issues(args: Mapping[str, Any]) -> Issues:
    """``name`` and ``criteria`` given; a scale of integers (0 <= lowest < highest) or
    ``pass_fail``; ``min_score`` and every example's score on the scale (``pass`` / ``fail``
    on a pass_fail scale, which has no ``min_score``); examples as ``{reply, score, why}``."""
    for key in ("name", "criteria"):
        if not str(args.get(key) or "").strip():
            yield (), f"scorer 'rubric' needs '{key}'"
    if args.get("name") and not str(args["name"]).replace("_", "").replace("-", "").isalnum():
        yield ("name",), f"{args['name']!r}: use letters, digits, '_' or '-'"
    scale = args.get("scale")
    if scale is not None:
        problem = _scale_issue(scale)
        if problem:
            yield ("scale",), problem
            return
    lo, hi = rubric_scale(args)
    min_score = args.get("min_score")
    if min_score is not None and scale == PASS_FAIL:
        yield ("min_score",), "a pass_fail scale has no min_score (a pass verdict passes)"
    elif min_score is not None and not lo <= min_score <= hi:
        yield ("min_score",), f"min_score {min_score} is off the scale {lo}..{hi}"
    yield from _example_issues(args, lo, hi)


__all__ = [
    "ASSERTIONS",
    "MAX_SCALE_POINTS",
    "PASS_FAIL",
    "PYTHON_PREFIX",
    "assert_issues",
    "python_scorer_issue",
    "rubric_issues",
    "rubric_scale",
]
