"""Small helpers for one-line messages, shared by every layer (base layer: imports nothing of ours).

``format_path`` renders a document path, ``kind_of`` names a value's JSON type and
``did_you_mean`` suggests the closest known name. Loading, providers, scorers and lint all phrase
their errors with them. ``printable`` shows text from a suite, a run or a model (a suite's name, a
case id, a tool's name or error) on the console as one line: a line break in it would forge a line
of the output and an escape sequence would drive the terminal, so both are written as escapes.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["did_you_mean", "format_path", "kind_of", "one_line", "printable"]


def format_path(path: Sequence[str | int]) -> str:
    """``("cases", 2, "expect")`` -> ``cases[2].expect``."""
    out: list[str] = []
    for elem in path:
        if isinstance(elem, int):
            out.append(f"[{elem}]")
        else:
            out.append(f".{elem}" if out else elem)
    return "".join(out)


def kind_of(value: Any) -> str:
    """A short name of a value's JSON type, with an article."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def did_you_mean(name: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``options``, or ``""``."""
    close = difflib.get_close_matches(name, list(options), n=1, cutoff=0.75)
    return f" (did you mean '{close[0]}'?)" if close else ""


def printable(text: str) -> str:
    """``text`` with every character that is not printable written as its Python escape: a line
    break as ``\\n``, a tab as ``\\t``, ESC as ``\\x1b``, a bidi override as ``\\u202e``;
    the rest (non-ASCII letters included) as it is. The result is one line the terminal shows
    and never interprets."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (line breaks included) one space, then
    :func:`printable`: for a header or a reason where a line break reads as a space."""
    return printable(" ".join(text.split()))
