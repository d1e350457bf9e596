"""Build a :class:`ToolSpec` from a typed Python function: its signature and its docstring.

```python
from typing import Literal
from agentgauge import tool

@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict:
    '''Current weather for a city.

    Args:
        city: City name, e.g. Paris.
        unit: Temperature unit.
    '''

get_weather.tool_spec   # ToolSpec(name="get_weather", description="Current weather ...", ...)
```

Types map to JSON Schema through pydantic: ``str``/``int``/``float``/``bool``, ``list[T]``,
``dict[str, T]``, ``Literal[...]`` and ``Enum`` (an ``enum``), ``T | None`` (the type itself; a
``None`` default makes it optional), pydantic models, dataclasses and ``TypedDict`` (nested
objects, inlined). Parameters with a default are not required and carry their ``default``.
Parameter descriptions come from a Google-style ``Args:`` section, a NumPy-style
``Parameters`` section or Sphinx ``:param name:`` lines; ``Annotated[T, Field(description=...)]``
works too.
"""

from __future__ import annotations

import inspect
import re
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar, overload

import typing_extensions as te
from pydantic import Field, PydanticUserError, create_model

from ._tool import ToolSpec

__all__ = ["tool", "tool_from_function"]

F = TypeVar("F", bound=Callable[..., Any])

#: attribute the ``tool`` decorator sets on a function
SPEC_ATTRIBUTE: Final = "tool_spec"

_SECTION = re.compile(
    r"^(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Returns?|Yields?|"
    r"Raises|Examples?|Notes?|See Also|Attributes|Warnings?|References)\s*:?\s*$"
)
_GOOGLE_PARAM = re.compile(r"^\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_PARAM = re.compile(r"^\*{0,2}(\w+)\s*(?::.*)?$")
_SPHINX_PARAM = re.compile(r"^:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


@dataclass(frozen=True)
class _Doc:
    """A docstring's summary and its parameters' descriptions."""

    summary: str
    params: dict[str, str]


def _join(lines: list[str]) -> str:
    return " ".join(" ".join(line.split()) for line in lines if line.strip()).strip()


def _parse_docstring(doc: str) -> _Doc:
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    summary: list[str] = []
    params: dict[str, list[str]] = {}
    i = 0
    while i < len(lines) and not _SECTION.match(lines[i].strip()) and not lines[i].startswith(":"):
        summary.append(lines[i])
        i += 1
    section = ""
    current: str | None = None
    while i < len(lines):
        raw = lines[i]
        text = raw.strip()
        i += 1
        sphinx = _SPHINX_PARAM.match(text)
        if sphinx:
            current = sphinx.group(1)
            params[current] = [sphinx.group(2)]
            section = "sphinx"
            continue
        if text.startswith(":"):
            current = None  # :returns:, :raises: ... end a Sphinx parameter
            continue
        header = _SECTION.match(text)
        if header and not raw.startswith((" ", "\t")):
            section = header.group(1).lower()
            current = None
            if i < len(lines) and set(lines[i].strip()) == {"-"}:
                i += 1  # NumPy underline
            continue
        if section not in ("args", "arguments", "parameters", "params", "sphinx") or not text:
            continue
        indent = len(raw) - len(raw.lstrip())
        google = _GOOGLE_PARAM.match(text)
        if section != "parameters" and google and indent <= 4:
            current = google.group(1)
            params[current] = [google.group(2)]
        elif section == "parameters" and indent == 0 and _NUMPY_PARAM.match(text):
            match = _NUMPY_PARAM.match(text)
            assert match is not None
            current = match.group(1)
            params[current] = []
        elif current is not None:
            params[current].append(text)
    return _Doc(summary=_join(summary), params={k: _join(v) for k, v in params.items()})


# ------------------------------------------------------------------------------ TypedDict


def _portable(annotation: Any) -> Any:
    """Swap ``typing.TypedDict`` classes for ``typing_extensions`` ones (pydantic needs those
    before Python 3.12), wherever they appear inside ``annotation``."""
    if sys.version_info >= (3, 12):
        return annotation
    if typing.is_typeddict(annotation) and type(annotation).__module__ == "typing":
        return _portable_typeddict(annotation)
    args = typing.get_args(annotation)
    origin = typing.get_origin(annotation)
    if not args or origin is typing.Literal:
        return annotation
    mapped = tuple(_portable(a) for a in args)
    if mapped == args:
        return annotation
    if origin is typing.Annotated:
        return typing.Annotated[(mapped[0], *annotation.__metadata__)]
    if origin in (typing.Union, types.UnionType):
        return typing.Union[mapped]  # noqa: UP007 - rebuilt from parts
    if isinstance(annotation, types.GenericAlias):
        return types.GenericAlias(origin, mapped)
    copy_with = getattr(annotation, "copy_with", None)
    return copy_with(mapped) if copy_with is not None else annotation


_TYPEDDICTS: dict[Any, Any] = {}


def _portable_typeddict(cls: Any) -> Any:
    if cls not in _TYPEDDICTS:
        hints = typing.get_type_hints(cls)
        required = getattr(cls, "__required_keys__", frozenset(hints))
        fields = {
            k: te.Required[_portable(v)] if k in required else te.NotRequired[_portable(v)]
            for k, v in hints.items()
        }
        _TYPEDDICTS[cls] = te.TypedDict(cls.__name__, fields)  # type: ignore[operator]
    return _TYPEDDICTS[cls]


# ------------------------------------------------------------------------- schema clean-up


def _resolve_refs(node: Any, defs: dict[str, Any], seen: tuple[str, ...] = ()) -> Any:
    """Inline ``$ref``s to ``$defs`` (a recursive reference is left as ``{"type": "object"}``)."""
    if isinstance(node, list):
        return [_resolve_refs(x, defs, seen) for x in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/")
        rest = {k: v for k, v in node.items() if k != "$ref"}
        if name in seen or name not in defs:
            return {"type": "object", **rest}
        return {**_resolve_refs(defs[name], defs, (*seen, name)), **rest}
    return {k: _resolve_refs(v, defs, seen) for k, v in node.items() if k != "$defs"}


def _strip_titles(node: Any) -> Any:
    """Drop pydantic's generated ``title`` keywords (not properties that are named "title")."""
    if isinstance(node, list):
        return [_strip_titles(x) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {k: _strip_titles(v) for k, v in value.items()}
        else:
            out[key] = _strip_titles(value)
    return out


def _drop_null_branch(prop: dict[str, Any]) -> dict[str, Any]:
    """``anyOf: [X, {type: null}]`` with a ``None`` default -> ``X``, in every nested object
    too: an optional argument is simply left out, it never needs to be ``null``."""
    if isinstance(prop.get("properties"), dict):
        prop = {
            **prop,
            "properties": {
                k: _drop_null_branch(v) if isinstance(v, dict) else v
                for k, v in prop["properties"].items()
            },
        }
    if isinstance(prop.get("items"), dict):
        prop = {**prop, "items": _drop_null_branch(prop["items"])}
    if "default" not in prop or prop["default"] is not None:
        return prop
    others = {k: v for k, v in prop.items() if k not in ("anyOf", "default")}
    branches = prop.get("anyOf")
    if not isinstance(branches, list):
        return others
    rest = [b for b in branches if b != {"type": "null"}]
    if len(rest) == 1 and isinstance(rest[0], dict):
        return {**rest[0], **others}
    return {"anyOf": rest, **others}


# ------------------------------------------------------------------------------- public API


def tool_from_function(
    fn: Callable[..., Any], *, name: str | None = None, description: str | None = None
) -> ToolSpec:
    """A :class:`ToolSpec` from a function's name, docstring and typed parameters.

    ``self``/``cls``, ``*args`` and ``**kwargs`` are skipped. An unannotated parameter accepts
    any JSON value. ``name`` and ``description`` override the function's own.
    """
    cached = getattr(fn, SPEC_ATTRIBUTE, None)
    if isinstance(cached, ToolSpec) and name is None and description is None:
        return cached
    doc = _parse_docstring(inspect.getdoc(fn) or "")
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as err:  # unresolvable annotations: say which function
        raise TypeError(
            f"cannot resolve the type hints of {fn.__qualname__}: {err} (types named in string "
            "annotations must be importable from the function's module)"
        ) from err
    fields: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD) or param.name in (
            "self",
            "cls",
        ):
            continue
        annotation = _portable(hints.get(param.name, Any))
        has_default = param.default is not inspect.Parameter.empty
        described = doc.params.get(param.name)
        default = param.default if has_default else ...
        info = Field(default, description=described) if described else Field(default)
        fields[param.name] = (annotation, info)
        if not has_default:
            required.append(param.name)
    try:
        model = create_model(f"{fn.__name__}_arguments", **fields)
        raw = model.model_json_schema()
    except PydanticUserError as err:  # a parameter type with no JSON Schema (a callable, ...)
        first = str(err).splitlines()[0]
        raise TypeError(f"cannot describe the parameters of {fn.__name__}: {first}") from err
    defs = raw.get("$defs", {})
    schema = _strip_titles(_resolve_refs(raw, defs))
    properties = {
        k: _drop_null_branch(v) if isinstance(v, dict) else v
        for k, v in schema.get("properties", {}).items()
    }
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = required
    return ToolSpec(
        name=name or fn.__name__,
        description=description if description is not None else doc.summary,
        parameters=parameters,
    )


@overload
def tool(fn: F, /) -> F: ...


@overload
def tool(*, name: str | None = None, description: str | None = None) -> Callable[[F], F]: ...


def tool(
    fn: F | None = None, /, *, name: str | None = None, description: str | None = None
) -> F | Callable[[F], F]:
    """Decorator: attach a :class:`ToolSpec` built from the function as ``fn.tool_spec``.

    Use bare (``@tool``) or with overrides (``@tool(name="lookup")``). The function itself is
    returned unchanged, so it can still be called (e.g. as a simulated tool).
    """

    def attach(f: F) -> F:
        setattr(f, SPEC_ATTRIBUTE, tool_from_function(f, name=name, description=description))
        return f

    return attach(fn) if fn is not None else attach
