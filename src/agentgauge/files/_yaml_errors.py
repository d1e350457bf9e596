"""Turning pydantic validation errors into ``file:line: field.path: message`` lines.

pydantic reports a location (``loc``) per error. Two things make a raw ``loc`` a poor message:

- unions add a step naming the member that was tried (``tools[1].ToolSpec.name``, ``input.str``),
  and report every member's failure, most of them noise ("Input should be a valid string" when
  the user clearly wrote a tool object);
- argument-matcher shorthand is expanded before validation, adding ``fields`` / ``items`` steps
  that are not in the file.

So each ``loc`` is walked against the data that was validated: steps that exist in the data
form the field path shown to the user (and the path looked up for the line number); steps that
do not are union members or expansions and are dropped. Of a union's members, those that failed
only because the value had the wrong shape are dropped when another member got further; when
every member failed on shape, one merged message says what was expected.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from .._messages import did_you_mean as did_you_mean
from .._messages import format_path as format_path
from .._messages import kind_of as kind_of
from ..errors import UserError
from ._yaml import FixedLocator, Locator, PathElem, read_document

_M = TypeVar("_M", bound=BaseModel)

#: at most this many characters per message (pydantic's can run long)
_MAX_MESSAGE = 240

#: error type -> what the value should have been, for merged union messages
_SHAPES: dict[str, str] = {
    "string_type": "a string",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "none_required": "null",
}


def one_line(text: str, limit: int = _MAX_MESSAGE) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@cache
def _known_field_names() -> tuple[str, ...]:
    """Every field name of the on-disk models, for "did you mean" hints."""
    from .. import schema

    names: set[str] = set(schema.MATCHER_KEYS)
    for obj in vars(schema).values():
        if isinstance(obj, type) and issubclass(obj, BaseModel):
            names.update(obj.model_fields)
    return tuple(sorted(names))


def _unwrap(annotation: Any, elem: PathElem) -> Any:
    """The type one path step into ``annotation`` leads to (None when unknown)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        for member in args:
            found = _unwrap(member, elem)
            if found is not None:
                return found
        return None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if isinstance(elem, str):
            field = annotation.model_fields.get(elem)
            if field is not None:
                return field.annotation
            # ArgMatcher shorthand: a nested object's field is again a matcher
            if "fields" in annotation.model_fields and "one_of" in annotation.model_fields:
                return annotation
        if isinstance(elem, int) and "items" in annotation.model_fields:
            return annotation
        return None
    if origin is list and args and isinstance(elem, int):
        return args[0]
    if origin is dict and len(args) == 2 and isinstance(elem, str):
        return args[1]
    return None


def _model_at(root: type[BaseModel] | None, path: Sequence[PathElem]) -> type[BaseModel] | None:
    """The model whose fields the mapping at ``path`` (inside a ``root`` document) holds."""
    current: Any = root
    for elem in path:
        if current is None:
            return None
        current = _unwrap(current, elem)
    # the mapping may be one member of a union: take the first model member
    candidates = typing.get_args(current) or (current,)
    for member in candidates:
        if isinstance(member, type) and issubclass(member, BaseModel):
            return member
    return None


def unknown_field_message(key: str, model: type[BaseModel] | None = None) -> str:
    """``unknown field 'x'`` with a hint: a close field name of ``model`` (or of any model)."""
    if model is not None:
        allowed = [
            (f.alias or name) for name, f in model.model_fields.items() if not name.startswith("_")
        ]
        close = difflib.get_close_matches(key, allowed, n=1, cutoff=0.6)
        if close:
            return f"unknown field '{key}' (did you mean '{close[0]}'?)"
        if len(allowed) <= 10:
            return f"unknown field '{key}' (allowed: {', '.join(allowed)})"
        return f"unknown field '{key}' (not a field of {model.__name__})"
    known = _known_field_names()
    if key in known:
        return f"unknown field '{key}' (it belongs elsewhere in the format, not here)"
    return f"unknown field '{key}'{did_you_mean(key, known)}"


@dataclass(frozen=True)
class _Resolved:
    path: tuple[PathElem, ...]
    #: (path where a union member step was met, the member's name) for the first such step
    union: tuple[tuple[PathElem, ...], str] | None
    type: str
    message: str
    input: Any


def _resolve(error: Any, data: Any) -> _Resolved:
    loc: tuple[PathElem, ...] = tuple(error.get("loc", ()))
    etype = str(error.get("type", ""))
    current = data
    path: list[PathElem] = []
    union: tuple[tuple[PathElem, ...], str] | None = None
    for i, elem in enumerate(loc):
        last = i == len(loc) - 1
        if isinstance(current, dict) and elem in current:
            path.append(elem)
            current = current[elem]
            continue
        if isinstance(current, list) and isinstance(elem, int) and 0 <= elem < len(current):
            path.append(elem)
            current = current[elem]
            continue
        if isinstance(current, dict) and last and etype == "missing":
            path.append(elem)
            continue
        if union is None:
            union = (tuple(path), str(elem))
    return _Resolved(tuple(path), union, etype, str(error.get("msg", "")), error.get("input"))


def _message(r: _Resolved, root: type[BaseModel] | None = None) -> str:
    if r.type == "extra_forbidden" and r.path and isinstance(r.path[-1], str):
        return unknown_field_message(r.path[-1], _model_at(root, r.path[:-1]))
    if r.type == "missing":
        return "required field is missing"
    msg = r.message
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    elif msg.startswith("Assertion failed, "):
        msg = msg[len("Assertion failed, ") :]
    if r.type.endswith("_parsing") and ", " in msg:
        msg = msg.split(", ", 1)[0]  # "..., unable to parse string as a number": the got says it
    scalar = r.input is None or isinstance(r.input, str | int | float | bool)
    if scalar and (r.type.endswith(("_type", "_parsing")) or r.type in ("literal_error", "enum")):
        shown = repr(r.input)
        if len(shown) > 40:
            shown = shown[:39] + "…"
        msg = f"{msg} (got {shown})"
    elif r.type.endswith(("_type", "_parsing")):
        msg = f"{msg} (got {kind_of(r.input)})"
    return one_line(msg)


def _is_shallow(r: _Resolved, at: tuple[PathElem, ...]) -> bool:
    return r.path == at and (r.type in _SHAPES or r.type.endswith("_type"))


def _filter_unions(
    resolved: list[_Resolved], root: type[BaseModel] | None = None
) -> list[tuple[_Resolved, str]]:
    """Drop the noise of unions; returns (error, message) pairs in the original order."""
    groups: dict[tuple[PathElem, ...], list[_Resolved]] = {}
    for r in resolved:
        if r.union is not None:
            groups.setdefault(r.union[0], []).append(r)
    drop: set[int] = set()
    merged: dict[int, str] = {}
    for at, members in groups.items():
        branches: dict[str, list[_Resolved]] = {}
        for r in members:
            assert r.union is not None
            branches.setdefault(r.union[1], []).append(r)
        if len(branches) < 2:
            continue
        shallow = {name for name, errs in branches.items() if all(_is_shallow(e, at) for e in errs)}
        if shallow and len(shallow) < len(branches):
            for name in shallow:
                drop.update(id(e) for e in branches[name])
        elif len(shallow) == len(branches):
            wanted: list[str] = []
            for errs in branches.values():
                for e in errs:
                    shape = _SHAPES.get(e.type, e.message)
                    if shape not in wanted:
                        wanted.append(shape)
            first = members[0]
            merged[id(first)] = (
                f"expected {' or '.join(wanted)}, got {kind_of(first.input)}"
                if len(wanted) > 1
                else _message(first, root)
            )
            drop.update(id(e) for e in members[1:])
    out: list[tuple[_Resolved, str]] = []
    seen: set[tuple[tuple[PathElem, ...], str]] = set()
    for r in resolved:
        if id(r) in drop:
            continue
        msg = merged.get(id(r)) or _message(r, root)
        if (r.path, msg) in seen:
            continue
        seen.add((r.path, msg))
        out.append((r, msg))
    return out


def validation_problems(
    err: ValidationError,
    data: Any,
    *,
    display: str,
    locator: Locator,
    at: Sequence[PathElem] = (),
    shown: Sequence[PathElem] = (),
    model: type[BaseModel] | None = None,
) -> list[str]:
    """One ``file:line: field.path: message`` line per error of ``err``.

    ``data`` is what was validated, found at path ``at`` in the document ``display`` whose
    positions ``locator`` knows; ``shown`` is the prefix of the field path shown to the user;
    ``model`` (the model validated) lets unknown-field messages name the fields allowed there.
    """
    resolved = [_resolve(e, data) for e in err.errors(include_url=False)]
    located: list[tuple[int, str]] = []
    for r, msg in _filter_unions(resolved, model):
        line = locator.line((*at, *r.path))
        where = f"{display}:{line}" if line is not None else display
        field = format_path((*shown, *r.path))
        located.append((line or 0, f"{where}: {field}: {msg}" if field else f"{where}: {msg}"))
    located.sort(key=lambda pair: pair[0])  # stable: same-line errors keep pydantic's order
    return [text for _, text in located]


def validated(
    model: type[_M],
    data: Any,
    *,
    display: str,
    locator: Locator | int,
    what: str | None = None,
) -> _M:
    """``data`` validated as ``model``; a :class:`UserError` with one ``file:line: field:
    message`` line per problem otherwise (``what``, e.g. ``"run record"``, is added to the
    first line: ``... (not a valid run record)``). ``locator``: the document's positions, or
    the line every value is on (a JSONL record)."""
    if isinstance(locator, int):
        locator = FixedLocator(locator)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, data, display=display, locator=locator, model=model)
        if not problems:  # pydantic always names one; never an empty error
            problems = [f"{display}:{locator.line(()) or 1}: {one_line(str(exc))}"]
        if what:
            problems[0] += f" (not a valid {what})"
        raise UserError(problems[0], problems=problems) from None


def read_model_file(path: Path, model: type[_M], display: str, *, what: str | None = None) -> _M:
    """A JSON (``.json``) or YAML file holding one ``model``, read with the input limits and
    validated; every problem is a ``file:line: field: message`` line."""
    doc = read_document(path, display)
    return validated(model, doc.data, display=display, locator=doc.locator, what=what)
