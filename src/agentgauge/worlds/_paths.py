"""Paths into a state (``orders.A1.status``, ``items[0]``, ``files["a.txt"]``), JSON equality,
and turning a Python world's objects into plain JSON."""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any, Final

import orjson

from ..schema import Segment, format_path, parse_path

__all__ = [
    "MISSING",
    "Segment",
    "copy_json",
    "format_path",
    "get_path",
    "json_equal",
    "parse_path",
    "short",
    "to_json",
]

#: nothing at a path (``None`` is a value: JSON null)
MISSING: Final[Any] = type("Missing", (), {"__repr__": lambda self: "<absent>"})()

#: a Python world's objects deeper than this are not followed (a cycle, a huge graph)
_MAX_DEPTH: Final = 40


def get_path(state: Any, segments: Sequence[Segment]) -> Any:
    """The value at ``segments`` of ``state``, or :data:`MISSING`. A name of digits indexes a
    list; an index looks up its digits as an object's key."""
    cur = state
    for seg in segments:
        if isinstance(cur, Mapping):
            key = str(seg)
            if key not in cur:
                return MISSING
            cur = cur[key]
        elif isinstance(cur, list):
            if isinstance(seg, str):
                if not seg.isdigit():
                    return MISSING
                seg = int(seg)
            if seg >= len(cur):
                return MISSING
            cur = cur[seg]
        else:
            return MISSING
    return cur


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (through orjson: many times faster than ``copy.deepcopy``;
    keys become strings, as a state's paths read them)."""
    try:
        return orjson.loads(orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS))
    except TypeError:  # not plain JSON (a Python world's odd value): copied as it is
        return copy.deepcopy(value)


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (1 == 1.0), booleans only equal booleans."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b or (
            isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def to_json(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON: tuples and sets become lists (sets sorted), objects their public
    attributes (what a Python world's state is), anything else its ``str``."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is dict and depth < _MAX_DEPTH:
        return {k if type(k) is str else str(k): to_json(v, depth + 1) for k, v in value.items()}
    if kind is list and depth < _MAX_DEPTH:
        return [to_json(v, depth + 1) for v in value]
    if isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if depth >= _MAX_DEPTH:
        return "<too deep>"
    if isinstance(value, Mapping):
        return {str(k): to_json(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_json(v, depth + 1) for v in value]
    if isinstance(value, set | frozenset):
        items = [to_json(v, depth + 1) for v in value]
        return sorted(items, key=lambda v: orjson.dumps(v, option=orjson.OPT_SORT_KEYS))
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return {
            k: to_json(v, depth + 1)
            for k, v in attrs.items()
            if not k.startswith("_") and not callable(v)
        }
    return str(value)


def short(value: Any, limit: int = 80) -> str:
    """A value as shown in an explanation (``repr``-like, cut at ``limit`` characters)."""
    if value is MISSING:
        return "<absent>"
    text = repr(value) if isinstance(value, str) else orjson.dumps(value, default=str).decode()
    return text if len(text) <= limit else text[: limit - 3] + "..."
