"""Argument values for mutation testing: one value that satisfies a matcher (the *witness* a
correct agent would pass) and a plausible wrong value of the same type (the *perturbation*).

Neither function consults the scorer: a witness is built from what the matcher says, a
perturbation from the witness and the schema, and the real scorer decides afterwards whether
the case catches the wrong value.
"""

from __future__ import annotations

import contextlib
import math
import re
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Final

from .._dates import parse_date
from ..schema import ArgMatcher, ResultRef
from ..scoring._values import schema_types

__all__ = [
    "NoWitness",
    "RefValue",
    "accepts",
    "default_accepted",
    "perturb",
    "regex_example",
    "witness",
]

#: placeholders of an argument the matcher accepts anything for, by schema type
_PLACEHOLDERS: Final[dict[str, Any]] = {
    "string": "example",
    "integer": 1,
    "number": 1.5,
    "boolean": True,
    "array": [],
    "object": {},
    "null": None,
}
_ISO_DATE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})(.*)", re.DOTALL)
_CLOCK: Final = re.compile(r"(\d{1,2}):(\d{2})((?::\d{2})?)")
_CODE: Final = re.compile(r"[A-Z]{2,5}")
_EMAIL: Final = re.compile(r"[^@\s]+@[^@\s]+\.[a-z]{2,}", re.IGNORECASE)
_NUMERIC_TEXT: Final = re.compile(r"-?\d+")


class NoWitness(Exception):
    """No value satisfying the matcher could be built (e.g. an unusual regular expression).

    ``impossible``: the matcher accepts no value at all (an empty ``one_of``), so no agent can
    pass."""

    def __init__(self, message: str, *, impossible: bool = False) -> None:
        super().__init__(message)
        self.impossible = impossible


@dataclass(frozen=True, slots=True)
class RefValue:
    """An argument taken from an earlier tool result: resolved when the transcript is played
    (``wrong``: then perturbed, the value a careless agent copies from the wrong place)."""

    ref: ResultRef
    matcher: ArgMatcher
    wrong: bool = False


def placeholder(schema: Any) -> Any:
    """A value of the schema's type (``"example"`` for a string, ``1`` for an integer...)."""
    if isinstance(schema, dict):
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            return enum[0]
        if "default" in schema:
            return schema["default"]
    for t in schema_types(schema):
        if t in _PLACEHOLDERS:
            value = _PLACEHOLDERS[t]
            return list(value) if isinstance(value, list) else value
    return "example"


def _sub_schema(schema: Any, key: str | int) -> Any:
    if not isinstance(schema, dict):
        return None
    if isinstance(key, int):
        return schema.get("items")
    props = schema.get("properties")
    return props.get(key) if isinstance(props, dict) else None


def accepts(m: ArgMatcher, value: Any) -> bool:
    """Whether ``m`` plainly accepts ``value`` (exact values, ``one_of``, ``regex``, ``any``,
    ``not``); raises :class:`NoWitness` for what only the scorer can decide (nested matchers,
    references, tolerances, dates)."""
    if m.ref is not None or m.fields is not None or m.items is not None or m.date:
        raise NoWitness("a banned value of this kind is not built")
    if m.tolerance is not None or m.rel_tolerance is not None:
        raise NoWitness("a banned value of this kind is not built")
    if m.not_ is not None and accepts(m.not_, value):
        return False
    if m.any:
        return True
    ok = True
    if "value" in m.model_fields_set or m.one_of is not None:
        listed = [m.value] if "value" in m.model_fields_set else []
        listed += list(m.one_of or [])
        ok = _listed(value, listed, m.ignore_case)
    if m.regex is not None:
        ok = ok and isinstance(value, str) and re.fullmatch(m.regex, value) is not None
    return ok


def _not_witness(m: ArgMatcher, schema: Any) -> Any:
    """A value for ``{not: X, ...}``: one the other keys accept that ``X`` does not."""
    assert m.not_ is not None
    rest = m.model_copy(update={"not_": None})
    if rest.compares_value():
        candidates = [witness(rest, schema)]
    else:
        candidates = [placeholder(schema)]
        if m.not_.not_ is not None:  # not (not Y): a value Y accepts
            with contextlib.suppress(NoWitness):
                candidates.insert(0, witness(m.not_.not_, schema))
        try:
            banned = witness(m.not_, schema)
        except NoWitness:
            banned = candidates[0]
        candidates += _wrong_values(m.not_, banned, schema)
    for value in candidates:
        if isinstance(value, RefValue) or not accepts(m.not_, value):
            return value
    raise NoWitness(f"no value found that is {m.describe()}")


def witness(m: ArgMatcher, schema: Any) -> Any:
    """A value ``m`` accepts (raises :class:`NoWitness` when none can be built)."""
    if m.not_ is not None:
        return _not_witness(m, schema)
    if m.ref is not None:
        return RefValue(m.ref, m)
    if m.any:
        return placeholder(schema)
    if m.fields is not None:
        out: dict[str, Any] = {}
        for name, sub in m.fields.items():
            if sub.optional and sub.any:
                continue
            try:
                out[name] = witness(sub, _sub_schema(schema, name))
            except NoWitness:
                if not sub.optional:
                    raise
        return out
    if m.items is not None:
        return [witness(sub, _sub_schema(schema, 0)) for sub in m.items]
    if m.one_of is not None:
        usable = [v for v in m.one_of if v != ""] or m.one_of
        if not usable:
            raise NoWitness("an empty one_of list accepts no value", impossible=True)
        return usable[0]
    if m.value is None and m.regex is not None:
        return regex_example(m.regex)
    return m.value


# --------------------------------------------------------------------------- regex examples


def regex_example(pattern: str) -> str:
    """The shortest easy string matching the whole of ``pattern`` (raises :class:`NoWitness`)."""
    try:
        from re import _parser as sre  # type: ignore[attr-defined]

        parsed = sre.parse(pattern)
        text = _emit(parsed, sre)
    except (re.error, _Unsupported, RecursionError) as exc:
        raise NoWitness(f"no example string for /{pattern}/ ({exc})") from None
    if re.fullmatch(pattern, text) is None:
        raise NoWitness(f"no example string for /{pattern}/")
    return text


class _Unsupported(Exception):
    pass


_CATEGORY_CHARS: Final = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "a",
    "CATEGORY_WORD": "a",
    "CATEGORY_NOT_WORD": "-",
}


def _emit(parsed: Any, sre: Any) -> str:
    out: list[str] = []
    for op, arg in parsed:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(arg) != "a" else "b")
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_class_char(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _high, sub = arg
            out.append(_emit(sub, sre) * max(int(low), 0))
        elif name == "SUBPATTERN":
            out.append(_emit(arg[-1], sre))
        elif name == "BRANCH":
            out.append(_emit(arg[1][0], sre))
        elif name in ("AT", "ASSERT", "ASSERT_NOT"):
            continue
        elif name == "ATOMIC_GROUP":
            out.append(_emit(arg, sre))
        else:
            raise _Unsupported(name.lower())
    return "".join(out)


def _class_char(items: Any) -> str:
    negate = False
    for op, arg in items:
        name = str(op)
        if name == "NEGATE":
            negate = True
        elif negate:
            continue
        elif name == "LITERAL":
            return chr(arg)
        elif name == "RANGE":
            return chr(arg[0])
        elif name == "CATEGORY":
            return _CATEGORY_CHARS.get(str(arg), "a")
    if negate:
        banned = {chr(a) for op, a in items if str(op) == "LITERAL"}
        return next(c for c in "a0-_ xZ" if c not in banned)
    raise _Unsupported("character class")


# ----------------------------------------------------------------------------- perturbation


def perturb(m: ArgMatcher, value: Any, schema: Any) -> tuple[Any, str] | None:
    """A plausible wrong value of the same type as ``value`` and what was done to it; None when
    the matcher accepts anything there (``any``) or no different value can be made."""
    if m.not_ is not None:
        try:
            banned = witness(m.not_, schema)
        except NoWitness:
            return None
        if isinstance(banned, RefValue) or banned == value:
            return None
        return banned, f": {_short(value)} -> {_short(banned)} (what `not` bans)"
    if m.any:
        return None
    if m.fields is not None and isinstance(value, dict):
        for name, sub in m.fields.items():
            if name in value and not sub.any:
                inner = perturb(sub, value[name], _sub_schema(schema, name))
                if inner is not None:
                    return {**value, name: inner[0]}, f".{name}{inner[1]}"
        return None
    if m.items is not None and isinstance(value, list):
        for i, sub in enumerate(m.items):
            if i < len(value) and not sub.any:
                inner = perturb(sub, value[i], _sub_schema(schema, 0))
                if inner is not None:
                    return [*value[:i], inner[0], *value[i + 1 :]], f"[{i}]{inner[1]}"
        return None
    accepted = _accepted(m)
    for wrong in _wrong_values(m, value, schema):
        if wrong != value and not _listed(wrong, accepted, m.ignore_case):
            return wrong, f": {_short(value)} -> {_short(wrong)}"
    return None


def _accepted(m: ArgMatcher) -> list[Any]:
    """The values the matcher itself lists as right (a perturbation must avoid them)."""
    if m.one_of is not None:
        return list(m.one_of)
    return [m.value] if m.value is not None else []


def _listed(value: Any, accepted: list[Any], ignore_case: bool) -> bool:
    for a in accepted:
        if isinstance(a, str) and isinstance(value, str):
            if (a.casefold() == value.casefold()) if ignore_case else a == value:
                return True
        elif (type(a) is type(value) or (_number(a) and _number(value))) and a == value:
            return True
    return False


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _wrong_values(m: ArgMatcher, value: Any, schema: Any) -> list[Any]:
    """Wrong values of the type of ``value``, the most plausible first."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int | float):
        slack = (m.tolerance or 0.0) + (m.rel_tolerance or 0.0) * abs(value)
        delta: float = 1 + slack
        if isinstance(value, int) or "integer" in schema_types(schema):
            step = math.ceil(delta)
            return [int(value) + k * step for k in (1, -1, 2, -2, 3, 10)]
        return [value + k * delta for k in (1, -1, 2, -2, 3, 10)]
    if isinstance(value, str):
        return _wrong_texts(value, schema)
    if isinstance(value, list):
        return [value[:-1]] if value else [["other"]]
    if isinstance(value, dict):
        if not value:
            return [{"other": 1}]
        key = next(iter(value))
        inner = _wrong_values(ArgMatcher(value=value[key]), value[key], _sub_schema(schema, key))
        return [{**value, key: w} for w in inner[:1]]
    if value is None:
        return ["other"]
    return []


def _wrong_texts(text: str, schema: Any) -> list[Any]:
    out: list[Any] = []
    enum = schema.get("enum") if isinstance(schema, dict) else None
    if isinstance(enum, list):
        out += [v for v in enum if isinstance(v, str) and v.casefold() != text.casefold()]
    shifted = _shift_date(text)
    if shifted is not None:
        out.append(shifted)
    if clock := _CLOCK.fullmatch(text.strip()):
        hour = (int(clock[1]) + 1) % 24
        out.append(f"{hour:02d}:{clock[2]}{clock[3]}")
    if _NUMERIC_TEXT.fullmatch(text.strip()):
        out.append(str(int(text.strip()) + 1))
    if _CODE.fullmatch(text):
        # JFK -> KGL: a code of the same shape, every letter one further
        out.append("".join(chr((ord(c) - 65 + 1) % 26 + 65) for c in text))
    if _EMAIL.fullmatch(text.strip()):
        out.append("someone.else@example.org")
    out += ["something else", "another thing"]
    return out


def _shift_date(text: str) -> str | None:
    """The date one day later, in ISO form (keeping an ISO date's time part)."""
    key = parse_date(text)
    if key is None:
        return None
    day = date(key[0], key[1], key[2]) + timedelta(days=1)
    iso = _ISO_DATE.fullmatch(text.strip())
    return day.isoformat() + (iso[4] if iso else "")


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:59] + "…"


def default_accepted(m: ArgMatcher, schema: Any, value: Any) -> bool:
    """Whether leaving the argument out is right: its schema default is a value the matcher
    lists (the scorer judges an omission as the default)."""
    if not isinstance(schema, dict) or "default" not in schema:
        return False
    default = schema["default"]
    return default == value or (m.one_of is not None and default in m.one_of)
