"""The path syntax of world states: ``orders.A1.status``, ``items[0]``, ``files["a.txt"]``."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

import orjson

__all__ = ["Segment", "format_path", "parse_path"]

Segment = str | int

_PLAIN: Final = re.compile(r"[A-Za-z0-9_\-]+")
_INDEX: Final = re.compile(r"\[(\d+)\]")
_QUOTED: Final = re.compile(r'\["((?:[^"\\]|\\.)*)"\]')


def parse_path(path: str) -> tuple[Segment, ...]:
    """The segments of a dotted path; raises ValueError with the position of a bad one."""
    out: list[Segment] = []
    i = 0
    n = len(path)
    while i < n:
        if path[i] == "[":
            m = _INDEX.match(path, i) or _QUOTED.match(path, i)
            if m is None:
                raise ValueError(f'bad path {path!r} at {i}: expected [n] or ["key"]')
            seg = m.group(1)
            out.append(int(seg) if m.re is _INDEX else orjson.loads(f'"{seg}"'))
            i = m.end()
            continue
        if path[i] == ".":
            if not out or i + 1 >= n:
                raise ValueError(f"bad path {path!r}: a '.' needs a name on both sides")
            i += 1
        m = _PLAIN.match(path, i)
        if m is None:
            raise ValueError(
                f"bad path {path!r} at {i}: names are letters, digits, '_' and '-' "
                '(write ["..."] for others)'
            )
        out.append(m.group(0))
        i = m.end()
    if not out:
        raise ValueError("empty path")
    return tuple(out)


def format_path(segments: Sequence[Segment]) -> str:
    """The written form of ``segments`` (the inverse of :func:`parse_path`)."""
    parts: list[str] = []
    for seg in segments:
        if isinstance(seg, int):
            parts.append(f"[{seg}]")
        elif _PLAIN.fullmatch(seg):
            parts.append(f".{seg}" if parts else seg)
        else:
            parts.append(f"[{orjson.dumps(seg).decode()}]")
    return "".join(parts)
