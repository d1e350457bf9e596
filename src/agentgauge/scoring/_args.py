"""Argument matching: one expected call against one actual call, argument by argument.

Each argument earns a value in [0, 1] and a strict verdict, with an explanation a person can act
on (``get_weather.location: expected one of ['New York', 'NYC'], got 'Newark'``). Nested objects
(``fields``) and arrays (``items``) score the average of their parts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..schema import ArgMatcher, ArgsMatch, CallExpectation, ExtraArguments, ToolSpec
from ._assign import assign
from ._transcript import CallRecord, History, resolve_ref
from ._values import MISSING, describe_type, mismatch

__all__ = ["ArgPart", "CallMatch", "MatchContext", "describe_matcher", "match_call", "shown"]


class ArgPart(NamedTuple):
    """The verdict on one argument."""

    name: str
    value: float
    passed: bool
    explanation: str


class CallMatch(NamedTuple):
    """The verdict on one expected call against one actual call."""

    value: float
    passed: bool
    parts: list[ArgPart]
    #: False when the arguments were not compared (``args_match: ignore``)
    checked: bool = True


@dataclass(slots=True)
class MatchContext:
    """What argument matching needs beyond the values: result refs and the extras policy."""

    history: History
    #: the suite/config policy for unexpected extra arguments
    default_extra: ExtraArguments = "fail"
    #: the policy in force for the call being matched (its own, else ``default_extra``)
    extra: ExtraArguments = "fail"
    #: position of the call being matched (refs without ``call`` take the latest result before it)
    pos: int = 0
    #: the suite/config argument comparison (a call's ``args_match`` wins, then ``args_overrides``)
    args_match: ArgsMatch = "exact"
    #: argument comparison per tool name
    args_overrides: Mapping[str, ArgsMatch] = field(default_factory=dict)

    def args_mode(self, exp: CallExpectation) -> ArgsMatch:
        """The argument comparison in force for ``exp``."""
        return exp.args_match or self.args_overrides.get(exp.name) or self.args_match


_regex_cache: dict[str, re.Pattern[str] | str] = {}


def _regex(pattern: str) -> re.Pattern[str] | str:
    """The compiled pattern, or the reason it does not compile."""
    rx = _regex_cache.get(pattern)
    if rx is None:
        try:
            rx = re.compile(pattern)
        except re.error as exc:
            rx = str(exc)
        if len(_regex_cache) > 4096:
            _regex_cache.clear()
        _regex_cache[pattern] = rx
    return rx


def describe_matcher(m: ArgMatcher) -> str:
    """What the matcher expects, in words, with its comparison switches."""
    base = m.describe()
    plain = m.ref is None and m.one_of is None and m.regex is None and not m.any
    plain = plain and m.not_ is None
    if plain and m.fields is None and m.items is None and "value" not in m.model_fields_set:
        base = "any value"
    mods: list[str] = []
    if m.tolerance is not None:
        base += f" ± {m.tolerance:g}"
    if m.rel_tolerance is not None:
        base += f" ± {m.rel_tolerance:.0%}"
    if m.ignore_case:
        mods.append("ignoring case")
    if m.ignore_space:
        mods.append("ignoring spaces")
    if m.date:
        mods.append("as a date")
    if m.unordered:
        mods.append("in any order")
    return f"{base} ({', '.join(mods)})" if mods else base


#: longest value shown in an explanation
MAX_SHOWN = 160


def _r(v: Any) -> str:
    """``repr(v)``, shortened for explanations."""
    text = repr(v)
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 1] + "…"


#: ``repr(v)``, shortened for explanations
shown = _r


def _got(a: Any, e: Any = MISSING) -> str:
    if a is MISSING:
        return "it was omitted"
    text = f"got {_r(a)}"
    if e is not MISSING and e is not None and type(a) is not type(e):
        if not (type(a) in (int, float) and type(e) in (int, float)):
            text += f" ({describe_type(a)})"
        if type(a) is str and type(e) in (int, float, bool):
            text += "; set coerce: true to accept strings"
    return text


def match_value(m: ArgMatcher, a: Any, schema: Any, ctx: MatchContext, path: str) -> ArgPart:
    """Match the value ``a`` (or ``MISSING``) against ``m``; ``schema`` is its JSON Schema."""
    if a is MISSING:
        if m.optional:
            return ArgPart(path, 1.0, True, f"{path}: omitted (optional)")
        if type(schema) is dict and "default" in schema:
            d = schema["default"]
            part = _match_present(m, d, schema, ctx, path)
            if part.passed:
                return ArgPart(
                    path, 1.0, True, f"{path}: omitted; its schema default {_r(d)} matches"
                )
            return ArgPart(
                path,
                0.0,
                False,
                f"{path}: expected {describe_matcher(m)}, it was omitted (schema default {_r(d)})",
            )
        return ArgPart(path, 0.0, False, f"{path}: missing (expected {describe_matcher(m)})")
    return _match_present(m, a, schema, ctx, path)


def _match_not(m: ArgMatcher, a: Any, schema: Any, ctx: MatchContext, path: str) -> ArgPart:
    """``{not: X, ...}``: ``a`` must fail ``X`` and meet the matcher's other keys."""
    assert m.not_ is not None
    inner = _match_present(m.not_, a, schema, ctx, path)
    if inner.passed:
        return ArgPart(path, 0.0, False, f"{path}: expected {m.describe()}, {_got(a)}")
    rest = m.model_copy(update={"not_": None})
    if not rest.compares_value():
        return ArgPart(path, 1.0, True, f"{path}: {_r(a)} as expected ({m.describe()})")
    return _match_present(rest, a, schema, ctx, path)


def _match_present(m: ArgMatcher, a: Any, schema: Any, ctx: MatchContext, path: str) -> ArgPart:
    if m.not_ is not None:
        return _match_not(m, a, schema, ctx, path)
    if m.any:
        return ArgPart(path, 1.0, True, f"{path}: present (any value accepted)")
    if m.ref is not None:
        e, reason = resolve_ref(m.ref, ctx.history, ctx.pos)
        if reason is not None:
            return ArgPart(path, 0.0, False, f"{path}: {reason}")
        d = mismatch(e, a, schema, m)
        if d is None:
            return ArgPart(path, 1.0, True, f"{path}: {_r(a)} is the value of {_ref_name(m)}")
        return ArgPart(
            path,
            0.0,
            False,
            f"{path}: expected {_r(e)} (the value of {_ref_name(m)}), {_got(a, e)}",
        )
    if m.fields is not None:
        return _match_fields(m.fields, a, schema, ctx, path)
    if m.items is not None:
        return _match_items(m, m.items, a, schema, ctx, path)
    ok = True
    single: Any = MISSING
    if "value" in m.model_fields_set:
        single = m.value
        d = mismatch(single, a, schema, m)
        if d is not None:
            ok = False
            if m.one_of is not None:
                ok = any(mismatch(c, a, schema, m) is None for c in m.one_of)
    elif m.one_of is not None:
        ok = any(mismatch(c, a, schema, m) is None for c in m.one_of)
    rx_ok = True
    if m.regex is not None:
        rx = _regex(m.regex)
        if isinstance(rx, str):
            return ArgPart(
                path, 0.0, False, f"{path}: invalid regular expression /{m.regex}/: {rx}"
            )
        rx_ok = type(a) is str and rx.fullmatch(a) is not None
    if ok and rx_ok:
        return ArgPart(path, 1.0, True, f"{path}: {_r(a)} as expected")
    credit = 0.0
    if m.partial:
        for pv in m.partial:
            if pv.credit > credit and mismatch(pv.value, a, schema, m) is None:
                credit = pv.credit
    suffix = f" (partial credit {credit:g})" if credit else ""
    if ok and not rx_ok:
        return ArgPart(
            path, credit, False, f"{path}: expected a match of /{m.regex}/, {_got(a)}{suffix}"
        )
    if single is not MISSING and m.one_of is None and d is not None and d[0]:
        # a nested difference inside an exact object/array value: point at it
        sub, e_sub, a_sub = d
        return ArgPart(
            path, credit, False, f"{path}{sub}: expected {_r(e_sub)}, {_got(a_sub, e_sub)}{suffix}"
        )
    e_ref = single if single is not MISSING else (m.one_of[0] if m.one_of else MISSING)
    return ArgPart(
        path, credit, False, f"{path}: expected {describe_matcher(m)}, {_got(a, e_ref)}{suffix}"
    )


def _ref_name(m: ArgMatcher) -> str:
    assert m.ref is not None
    name = f"{m.ref.tool}.{m.ref.path}" if m.ref.path else f"the result of {m.ref.tool}"
    return name if m.ref.call is None else f"{name} (call {m.ref.call})"


def _props(schema: Any) -> Mapping[str, Any]:
    if type(schema) is dict:
        props = schema.get("properties")
        if type(props) is dict:
            return props
    return {}


def _combine(path: str, parts: list[ArgPart], n: int) -> ArgPart:
    if not parts:
        return ArgPart(path, 1.0, True, f"{path}: as expected")
    value = sum(p.value for p in parts) / max(n, 1)
    failed = [p.explanation for p in parts if not p.passed]
    if not failed:
        return ArgPart(path, min(value, 1.0), True, f"{path}: as expected")
    return ArgPart(path, min(value, 1.0), False, "; ".join(failed))


def _match_fields(
    fields: Mapping[str, ArgMatcher], a: Any, schema: Any, ctx: MatchContext, path: str
) -> ArgPart:
    if type(a) is not dict:
        return ArgPart(path, 0.0, False, f"{path}: expected an object, {_got(a)}")
    props = _props(schema)
    parts = [
        match_value(sub, a.get(k, MISSING), props.get(k), ctx, f"{path}.{k}")
        for k, sub in fields.items()
    ]
    if ctx.extra == "fail":
        for k, v in a.items():
            if k not in fields and not _equals_default(props.get(k), v):
                parts.append(
                    ArgPart(
                        f"{path}.{k}", 0.0, False, f"{path}.{k}: unexpected field (got {_r(v)})"
                    )
                )
    return _combine(path, parts, len(parts))


def _match_items(
    m: ArgMatcher, items: list[ArgMatcher], a: Any, schema: Any, ctx: MatchContext, path: str
) -> ArgPart:
    if type(a) is not list:
        return ArgPart(path, 0.0, False, f"{path}: expected an array, {_got(a)}")
    item_schema = schema.get("items") if type(schema) is dict else None
    n, k = len(items), len(a)
    denom = max(n, k)
    if denom == 0:
        return ArgPart(path, 1.0, True, f"{path}: [] as expected")
    parts: list[ArgPart] = []
    if m.unordered:
        grid = [
            [match_value(im, x, item_schema, ctx, f"{path}[{j}]") for j, x in enumerate(a)]
            for im in items
        ]
        weights = [
            [(2.0 * denom + 2 if p.passed else 0.0) + 1.0 + p.value for p in row] for row in grid
        ]
        pairs = assign(weights, k)
        parts = [grid[i][j] for i, j in pairs]
        used_rows = {i for i, _ in pairs}
        used_cols = {j for _, j in pairs}
        missing = [items[i] for i in range(n) if i not in used_rows]
        extra = [a[j] for j in range(k) if j not in used_cols]
    else:
        parts = [
            match_value(im, x, item_schema, ctx, f"{path}[{j}]")
            for j, (im, x) in enumerate(zip(items, a, strict=False))
        ]
        missing = items[k:]
        extra = a[n:]
    for im in missing:
        parts.append(ArgPart(path, 0.0, False, f"{path}: missing item {describe_matcher(im)}"))
    for x in extra:
        parts.append(ArgPart(path, 0.0, False, f"{path}: unexpected item {_r(x)}"))
    return _combine(path, parts, denom)


def _equals_default(schema: Any, v: Any) -> bool:
    return (
        type(schema) is dict
        and "default" in schema
        and mismatch(schema["default"], v, schema) is None
    )


def match_call(
    exp: CallExpectation, rec: CallRecord, spec: ToolSpec | None, ctx: MatchContext, label: str
) -> CallMatch:
    """Score the arguments of ``rec`` against ``exp`` (names are assumed equal)."""
    mode = ctx.args_mode(exp)
    if mode == "ignore":
        return CallMatch(1.0, True, [], checked=False)
    args = rec.call.arguments
    props = spec.properties() if spec is not None else {}
    ctx.pos = rec.pos
    if exp.extra_arguments is not None:
        policy = exp.extra_arguments
    elif mode == "exact":
        policy = ctx.default_extra
    else:
        policy = "allow" if mode == "superset" else "fail"
    ctx.extra = policy
    expected = exp.arguments
    parts = [
        ArgPart(f"{label}.{name}", 1.0, True, f"{label}.{name}: omitted (args_match: subset)")
        if mode == "subset" and name not in args
        else match_value(m, args.get(name, MISSING), props.get(name), ctx, f"{label}.{name}")
        for name, m in expected.items()
    ]
    if policy == "fail" and (len(args) > len(expected) or any(k not in expected for k in args)):
        for k, v in args.items():
            if k in expected or _equals_default(props.get(k), v):
                continue
            known = "" if k in props or not props else " not in the tool's schema"
            parts.append(
                ArgPart(
                    f"{label}.{k}",
                    0.0,
                    False,
                    f"{label}.{k}: unexpected argument{known} (got {_r(v)})",
                )
            )
    if not parts:
        return CallMatch(1.0, True, parts)
    passed = True
    total = 0.0
    for p in parts:
        total += p.value
        if not p.passed:
            passed = False
    return CallMatch(total / len(parts), passed, parts)
