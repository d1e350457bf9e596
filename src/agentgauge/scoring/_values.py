"""Schema-aware comparison of JSON values: the leaf rules every matcher builds on.

Private, but stable enough for other scorers in this package (the BFCL mode may read it).

:func:`mismatch` returns ``None`` when ``actual`` equals ``expected`` under the options, and
otherwise ``(subpath, expected_part, actual_part)`` naming the innermost difference — nothing is
allocated on the success path.

Rules (documented in docs/scoring.md):

- a boolean is never a number (``True`` does not equal ``1``);
- an integer equals a float of the same value where a ``number`` is expected; a float where the
  schema says ``integer`` fails unless ``coerce``;
- a string never equals a number or a boolean unless ``coerce`` (``"2"`` for an integer);
- strings compare after NFC normalisation; ``ignore_case`` also casefolds, ``ignore_space``
  strips and collapses runs of whitespace; ``date`` compares both as dates when both parse;
- ``tolerance`` / ``rel_tolerance`` widen numeric equality;
- arrays compare item by item (``unordered``: as multisets), objects key by key, and a key missing
  on one side is fine when the schema gives it a default equal to the other side's value.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any, Final, Protocol

__all__ = [
    "MISSING",
    "STRICT",
    "CompareOptions",
    "Diff",
    "PlainOptions",
    "describe_type",
    "mismatch",
    "norm_text",
    "schema_types",
]


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


#: marks an omitted argument or field
MISSING: Final[Any] = _Missing()

#: (subpath, expected part, actual part) of the innermost difference
Diff = tuple[str, Any, Any]


class CompareOptions(Protocol):
    """The comparison switches; an :class:`~agentgauge.schema.ArgMatcher` satisfies it."""

    @property
    def ignore_case(self) -> bool: ...
    @property
    def ignore_space(self) -> bool: ...
    @property
    def date(self) -> bool: ...
    @property
    def coerce(self) -> bool: ...
    @property
    def unordered(self) -> bool: ...
    @property
    def tolerance(self) -> float | None: ...
    @property
    def rel_tolerance(self) -> float | None: ...


class PlainOptions:
    """Options with every switch off unless given (exact, schema-aware comparison)."""

    __slots__ = (
        "coerce",
        "date",
        "ignore_case",
        "ignore_space",
        "rel_tolerance",
        "tolerance",
        "unordered",
    )

    def __init__(
        self,
        *,
        ignore_case: bool = False,
        ignore_space: bool = False,
        date: bool = False,
        coerce: bool = False,
        unordered: bool = False,
        tolerance: float | None = None,
        rel_tolerance: float | None = None,
    ) -> None:
        self.ignore_case = ignore_case
        self.ignore_space = ignore_space
        self.date = date
        self.coerce = coerce
        self.unordered = unordered
        self.tolerance = tolerance
        self.rel_tolerance = rel_tolerance


#: exact comparison (still schema-aware: 1 == 1.0 for a number)
STRICT: Final = PlainOptions()

_TYPE_ALIASES: Final = {
    "integer": "integer",
    "int": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "string": "string",
    "str": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "object": "object",
    "dict": "object",
    "null": "null",
    "any": "",
}
_NO_TYPES: Final[tuple[str, ...]] = ()
_type_cache: dict[str | tuple[str, ...], tuple[str, ...]] = {}


def schema_types(schema: Any) -> tuple[str, ...]:
    """The canonical JSON types a schema allows (``()`` when it does not say)."""
    if type(schema) is not dict:
        return _NO_TYPES
    t = schema.get("type")
    if t is None:
        alts = schema.get("anyOf") or schema.get("oneOf")
        if isinstance(alts, list):
            out: list[str] = []
            for alt in alts:
                out.extend(schema_types(alt))
            return tuple(out)
        return _NO_TYPES
    key: str | tuple[str, ...] = t if isinstance(t, str) else tuple(str(x) for x in t)
    cached = _type_cache.get(key)
    if cached is None:
        names = (key,) if isinstance(key, str) else key
        cached = tuple(c for c in (_TYPE_ALIASES.get(n.lower(), n.lower()) for n in names) if c)
        _type_cache[key] = cached
    return cached


def norm_text(s: str, ignore_case: bool, ignore_space: bool) -> str:
    """NFC-normalise ``s``; optionally casefold and collapse whitespace."""
    if not s.isascii():
        s = unicodedata.normalize("NFC", s)
    if ignore_space:
        s = " ".join(s.split())
    if ignore_case:
        s = s.casefold()
    return s


def describe_type(v: Any) -> str:
    """``'a string'``, ``'an integer'``… for explanations."""
    if v is MISSING:
        return "omitted"
    if v is None:
        return "null"
    t = type(v)
    if t is bool:
        return "a boolean"
    if t is int:
        return "an integer"
    if t is float:
        return "a float"
    if t is str:
        return "a string"
    if t is list:
        return "an array"
    if t is dict:
        return "an object"
    return f"a {t.__name__}"


def _coerce_str(a: str, target: type) -> Any:
    s = a.strip()
    if target is bool:
        low = s.lower()
        return True if low == "true" else False if low == "false" else MISSING
    try:
        if target is int:
            return int(s)
        f = float(s)
    except ValueError:
        return MISSING
    return f if math.isfinite(f) else MISSING


def _num_mismatch(e: int | float, a: Any, schema: Any, o: CompareOptions) -> bool:
    """True when the number ``a`` does not equal ``e``."""
    ta = type(a)
    if ta is str:
        if not o.coerce:
            return True
        a = _coerce_str(a, int if "integer" in schema_types(schema) else float)
        if a is MISSING:
            return True
        ta = type(a)
    if ta is not int and ta is not float:
        return True  # bool, None, containers: never a number
    if ta is float and not o.coerce:
        types = schema_types(schema)
        if "integer" in types and "number" not in types:
            return True
    if a == e:
        return False
    tol = o.tolerance
    rel = o.rel_tolerance
    if tol is not None and abs(a - e) <= tol + 1e-12:
        return False
    if rel is not None and abs(a - e) <= rel * abs(e) + 1e-12:
        return False
    return not (ta is float or type(e) is float) or not math.isclose(a, e, rel_tol=1e-12)


def _str_equal(e: str, a: str, o: CompareOptions) -> bool:
    if e == a:
        return True
    if o.date:
        from .._dates import dates_equal  # only a ``date`` comparison parses dates

        same = dates_equal(e, a)
        if same is not None:
            return same
    ic, isp = o.ignore_case, o.ignore_space
    if e.isascii() and a.isascii() and not ic and not isp:
        return False
    return norm_text(e, ic, isp) == norm_text(a, ic, isp)


def mismatch(
    expected: Any, actual: Any, schema: Any = None, o: CompareOptions = STRICT
) -> Diff | None:
    """``None`` when ``actual`` matches ``expected``; else the innermost difference."""
    te = type(expected)
    if te is str:
        if type(actual) is str:
            return None if _str_equal(expected, actual, o) else ("", expected, actual)
        return ("", expected, actual)
    if te is int or te is float:
        return ("", expected, actual) if _num_mismatch(expected, actual, schema, o) else None
    if te is bool:
        if type(actual) is bool:
            return None if actual is expected else ("", expected, actual)
        if o.coerce and type(actual) is str and _coerce_str(actual, bool) is expected:
            return None
        return ("", expected, actual)
    if expected is None:
        return None if actual is None else ("", expected, actual)
    if te is list:
        if type(actual) is not list:
            return ("", expected, actual)
        item_schema = schema.get("items") if type(schema) is dict else None
        if len(expected) != len(actual):
            return ("", expected, actual)
        if o.unordered and len(expected) > 1:
            return _unordered_mismatch(expected, actual, item_schema, o)
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            d = mismatch(e, a, item_schema, o)
            if d is not None:
                return (f"[{i}]{d[0]}", d[1], d[2])
        return None
    if te is dict:
        if type(actual) is not dict:
            return ("", expected, actual)
        props = schema.get("properties") if type(schema) is dict else None
        if type(props) is not dict:
            props = None
        for k, e in expected.items():
            sub = props.get(k) if props is not None else None
            a = actual.get(k, MISSING)
            if a is MISSING:
                if (
                    type(sub) is dict
                    and "default" in sub
                    and mismatch(e, sub["default"], sub, o) is None
                ):
                    continue
                return (f".{k}", e, MISSING)
            d = mismatch(e, a, sub, o)
            if d is not None:
                return (f".{k}{d[0]}", d[1], d[2])
        if len(actual) != len(expected) or any(k not in expected for k in actual):
            for k, a in actual.items():
                if k in expected:
                    continue
                sub = props.get(k) if props is not None else None
                if (
                    type(sub) is dict
                    and "default" in sub
                    and mismatch(sub["default"], a, sub, o) is None
                ):
                    continue
                return (f".{k}", MISSING, a)
        return None
    return None if expected == actual else ("", expected, actual)


def _unordered_mismatch(
    expected: list[Any], actual: list[Any], schema: Any, o: CompareOptions
) -> Diff | None:
    """Multiset equality: a perfect matching of equal items (augmenting paths; lists are short)."""
    n = len(expected)
    ok = [[mismatch(e, a, schema, o) is None for a in actual] for e in expected]
    owner = [-1] * n  # owner[j] = expected index holding actual j

    def augment(i: int, seen: list[bool]) -> bool:
        for j in range(n):
            if ok[i][j] and not seen[j]:
                seen[j] = True
                if owner[j] < 0 or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(n):
        if not augment(i, [False] * n):
            return ("", expected, actual)
    return None
