"""Which tool names a tool file may hold: those some provider accepts.

A tools file is someone else's file. Its names are shown on the console, written into suites,
sent to providers and used as keys of results, so a name no provider would take (a line break,
a space, ``../``) is refused where the file is read, with the line it is on.

The rule is the union of what the providers accept: OpenAI and Anthropic take ASCII letters,
digits, ``_`` and ``-`` (OpenAI 1-64 of them, Anthropic up to 128); Gemini adds ``.`` and ``:``;
MCP (its tool-name format, SEP-986) adds ``.`` and ``/``, up to 128. BFCL's namespaced names
(``math.factorial``, 68 characters at most in its data) stay readable. A ``/`` only ever
separates parts (``user-profile/update``): no part may be empty, ``.`` or ``..``, so a name never
reads as a path out of somewhere."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any, Final

from .._messages import printable
from ..errors import UserError
from ..files import Document
from ..schema import ToolSpec

__all__ = ["check_tool_names", "tool_name_problem", "tool_name_problems"]

_MAX: Final = 128
_CHARS: Final = re.compile(r"[A-Za-z0-9_.:/-]+")
_RULE: Final = (
    f"a tool name is 1-{_MAX} of A-Z a-z 0-9 _ - . : / (OpenAI accepts 1-64 of A-Z a-z 0-9 _ -)"
)


def tool_name_problem(name: str) -> str | None:
    """Why no provider accepts ``name`` as a tool's name, or ``None`` when one does."""
    if len(name) > _MAX:
        return f"{len(name)} characters, more than any provider accepts ({_MAX})"
    if not _CHARS.fullmatch(name):
        bad = next((ch for ch in name if not _CHARS.fullmatch(ch)), "")
        shown = "a space" if bad == " " else f"'{printable(bad)}'"
        return f"'{printable(name)}' holds {shown}; {_RULE}"
    if any(part in ("", ".", "..") for part in name.split("/")):
        return f"'{name}' has an empty, '.' or '..' part between '/'; {_RULE}"
    return None


def check_tool_names(doc: Document, tools: Sequence[ToolSpec]) -> None:
    """Refuse the file when one of ``tools`` (read from ``doc``, in order) has a name no provider
    accepts: ``file:line: tools[i].name: why``, one line per bad name."""
    lines = tool_name_problems(doc, tools)
    if lines:
        raise UserError(lines[0], problems=lines)


def tool_name_problems(doc: Document, tools: Sequence[ToolSpec]) -> list[str]:
    """``file:line: tools[i].name: why`` for each of ``tools`` (read from ``doc``, in order)
    whose name no provider accepts."""
    problems = [(i, why) for i, t in enumerate(tools) if (why := tool_name_problem(t.name))]
    if not problems:
        return []
    paths = list(_tool_paths(doc.data, ()))
    lines = []
    for i, why in problems:
        line = _line(doc, paths[i]) if i < len(paths) else None
        lines.append(f"{doc.display}:{line or 1}: tools[{i}].name: {why}")
    return lines


def _line(doc: Document, path: tuple[str | int, ...]) -> int | None:
    return doc.locator.line(path) or doc.locator.line(path[:-1])


def _tool_paths(data: Any, at: tuple[str | int, ...]) -> Iterator[tuple[str | int, ...]]:
    """The path of each tool's name, in the order ``tools_from_data`` reads the tools."""
    if isinstance(data, list):
        for i, item in enumerate(data):
            yield from _tool_paths(item, (*at, i))
        return
    if isinstance(data, dict):
        for key in ("function_declarations", "functionDeclarations"):
            if key in data and isinstance(data[key], list):
                yield from ((*at, key, i, "name") for i in range(len(data[key])))
                return
        for key in ("tools", "functions", "toolConfig"):
            if key in data and "name" not in data:
                yield from _tool_paths(data[key], (*at, key))
                return
        for key in ("function", "toolSpec"):
            if isinstance(data.get(key), dict) and "name" not in data:
                yield (*at, key, "name")
                return
    yield (*at, "name")
