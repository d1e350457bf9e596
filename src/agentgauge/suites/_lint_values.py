"""Lint checks of expected values against a tool's JSON Schema (types, enums, nesting), and
whether an expectation constrains anything a scorer can fail."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any, Final

from .._messages import kind_of
from ..files import PathElem
from ..schema import MATCHER_KEYS, ArgMatcher, Expectation


def schema_types(schema: Any) -> set[str] | None:
    """The JSON types a schema allows, or None when it does not say (or says anything)."""
    if not isinstance(schema, dict):
        return None
    t = schema.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {str(x) for x in t}
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            out: set[str] = set()
            for b in branches:
                bt = schema_types(b)
                if bt is None:
                    return None
                out |= bt
            return out
    if "enum" in schema or "const" in schema:
        return None
    if "properties" in schema:
        return {"object"}
    return None


def _fits(value: Any, t: str) -> bool:
    if t == "string":
        return isinstance(value, str)
    if t == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer()
        )
    if t == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "array":
        return isinstance(value, list)
    if t == "object":
        return isinstance(value, dict)
    if t == "null":
        return value is None
    return True


@dataclass(frozen=True)
class Issue:
    code: str
    path: tuple[PathElem, ...]
    message: str


def _loose(value: Any) -> Any:
    """A string compared ignoring case and spacing (how ``ignore_case``/``ignore_space`` see it)."""
    return " ".join(value.split()).casefold() if isinstance(value, str) else value


def _in_enum(value: Any, enum: list[Any], loose: bool) -> bool:
    if value in enum:
        return True
    return loose and _loose(value) in {_loose(e) for e in enum}


def value_issues(
    value: Any, schema: Any, path: tuple[PathElem, ...], loose: bool = False
) -> Iterator[Issue]:
    """Where an exact expected value does not fit a JSON Schema (type, enum, nesting).

    ``loose``: strings are compared ignoring case and spacing (the matcher says so)."""
    if not isinstance(schema, dict) or value is None:
        return
    types = schema_types(schema)
    if types is not None and not any(_fits(value, t) for t in types):
        wanted = " or ".join(sorted(types))
        hint = ""
        if isinstance(value, dict) and MATCHER_KEYS & value.keys():
            hint = (
                " (a matcher inside an exact value is compared literally: write `items:` or "
                "`fields:` explicitly to nest matchers)"
            )
        yield Issue(
            "wrong-type", path, f"{value!r} is {kind_of(value)}, the schema says {wanted}{hint}"
        )
        return
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        scalar_enum = not any(isinstance(e, list | dict) for e in enum)
        if isinstance(value, list) and scalar_enum:
            # an enum of scalars on an array (BFCL writes them so): it constrains the items
            for i, item in enumerate(value):
                if not _in_enum(item, enum, loose):
                    yield Issue(
                        "not-in-enum", (*path, i), f"{item!r} is not one of the enum {enum!r}"
                    )
        elif not _in_enum(value, enum, loose):
            yield Issue("not-in-enum", path, f"{value!r} is not one of the schema's enum {enum!r}")
    if isinstance(value, dict):
        props = schema.get("properties")
        if isinstance(props, dict):
            closed = schema.get("additionalProperties") is False
            for key, sub in value.items():
                if key in props:
                    yield from value_issues(sub, props[key], (*path, key), loose)
                elif closed:
                    yield Issue("unknown-argument", (*path, key), f"the schema has no '{key}'")
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(value):
            yield from value_issues(item, schema["items"], (*path, i), loose)


def matcher_issues(m: ArgMatcher, schema: Any, path: tuple[PathElem, ...]) -> Iterator[Issue]:
    """Where an argument matcher cannot fit the argument's schema."""
    if m.not_ is not None:
        yield from matcher_issues(m.not_, schema, (*path, "not"))
    if m.any or m.ref is not None or not isinstance(schema, dict):
        return
    types = schema_types(schema)
    if types is not None:
        numeric = bool(types & {"number", "integer"})
        if (m.tolerance is not None or m.rel_tolerance is not None) and not numeric:
            yield Issue("wrong-type", path, "a numeric tolerance on a non-numeric argument")
        textual = m.regex is not None or m.ignore_case or m.ignore_space or m.date
        if textual and "string" not in types:
            yield Issue("wrong-type", path, "a string comparison on a non-string argument")
    if m.coerce:
        return
    if m.fields is not None:
        props = schema.get("properties")
        if isinstance(props, dict):
            closed = bool(props) and schema.get("additionalProperties") in (None, False)
            for key, sub in m.fields.items():
                if key in props:
                    yield from matcher_issues(sub, props[key], (*path, key))
                elif closed:
                    yield Issue(
                        "unknown-argument", (*path, key), f"the object schema has no '{key}'"
                    )
        elif types is not None and "object" not in types:
            yield Issue("wrong-type", path, f"an object is expected, the schema says {types}")
        return
    if m.items is not None:
        item_schema = schema.get("items")
        for i, sub in enumerate(m.items):
            yield from matcher_issues(sub, item_schema, (*path, i))
        return
    if m.regex is not None:
        return
    loose = m.ignore_case or m.ignore_space
    if m.one_of is not None:
        for i, value in enumerate(m.one_of):
            yield from value_issues(value, schema, (*path, "one_of", i), loose)
    else:
        yield from value_issues(m.value, schema, path, loose)


def structural_issues(
    m: ArgMatcher, path: tuple[PathElem, ...], defined: Collection[str]
) -> Iterator[Issue]:
    """Schema-independent problems of a matcher, at any depth: a regex that does not compile
    (``bad-regex``), a ``date`` value that does not parse (``bad-date``) and a ``ref`` to a
    tool that is not defined (``unknown-tool``)."""
    if m.regex is not None:
        try:
            re.compile(m.regex)
        except re.error as err:
            yield Issue("bad-regex", path, f"invalid regular expression {m.regex!r}: {err}")
    if m.date:
        from .._dates import parse_date

        for value in [m.value, *(m.one_of or [])]:
            if isinstance(value, str) and parse_date(value) is None:
                yield Issue(
                    "bad-date",
                    path,
                    f"{value!r} does not parse as a date, so `date: true` compares it as text",
                )
    if m.ref is not None and m.ref.tool not in defined:
        yield Issue(
            "unknown-tool", (*path, "ref"), f"ref names tool '{m.ref.tool}', which is not defined"
        )
    if m.not_ is not None:
        yield from structural_issues(m.not_, (*path, "not"), defined)
    for key, sub in (m.fields or {}).items():
        yield from structural_issues(sub, (*path, key), defined)
    for i, sub in enumerate(m.items or []):
        yield from structural_issues(sub, (*path, i), defined)


#: optional expectation fields that, when set, give a scorer something to fail
_CHECKED_FIELDS: Final = (
    "response_format",
    "protected_arguments",
    "injected_instruction",
    "secrets",
    "state",
)


#: the turn's own checks beyond calls and behaviour (issue 25: what must not happen, counts)
_RULE_FIELDS: Final = (
    "allowed_tools",
    "forbidden_types",
    "forbidden_arguments",
    "forbidden_sequences",
    "not_",
)


def _constrains(e: Expectation) -> bool:
    return bool(
        e.behavior is not None
        or e.tool_calls
        or e.forbidden_tools
        or e.response_contains
        or any(
            getattr(e, f"{b}_{what}") is not None
            for b in ("min", "max")
            for what in ("calls", "model_steps")
        )
        or e.reference
        or any(getattr(e, name, None) for name in _CHECKED_FIELDS)
        or any(getattr(e, name, None) for name in _RULE_FIELDS)
    )
