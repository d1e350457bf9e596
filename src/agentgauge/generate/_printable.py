"""Text from the source (a suite's name, a tool's error, a model's reply) as one printable line,
before it goes into the generated file's comment header or onto the terminal.

The source is untrusted input: a line break in a suite's name would end the header's comment and
put the rest of the name into the YAML as keys of its own, a control character makes the file
unreadable (YAML refuses it) and an escape sequence would drive the terminal."""

from __future__ import annotations

__all__ = ["printable"]


def printable(text: str) -> str:
    """``text`` on one line (every run of whitespace, line breaks included, one space) with each
    other unprintable character written as its escape (``\\x07``, ``\\u202e``)."""
    flat = " ".join(text.split())
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in flat)
