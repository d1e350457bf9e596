"""Text from a suite, a run directory, a trace or a server, made safe for each report format.

A name or a value written into a report is shown, never acted on: in a page no character may
hide itself or reorder what is around it (a C0/C1 control, a bidi override or isolate: ``\\u202e``
makes ``exe.txt`` read ``txt.exe``); in a Markdown table no value may end the row (a line
break, a carriage return, a ``|``) or open HTML. What would be hidden is written as its Python
escape (``\\x1b``, ``\\u202e``), as :func:`agentgauge._messages.printable` writes it on the
console."""

from __future__ import annotations

import re
from html import escape
from typing import Final

from .._messages import printable

__all__ = ["html_text", "md_cell", "visible"]

#: what a browser or a CI page hides or acts on: C0 and C1 controls but tab, newline and
#: return (markup whitespace); DEL; the bidi marks, embeddings, overrides and isolates
_HIDDEN: Final = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]"
)


def visible(text: str) -> str:
    """``text`` with every character of :data:`_HIDDEN` written as its escape (``\\x1b``);
    line breaks, tabs and everything printable (non-ASCII letters too) kept."""
    return _HIDDEN.sub(lambda m: ascii(m.group())[1:-1], text)


def html_text(value: object) -> str:
    """``value`` as HTML text or an attribute value: markup characters as entities, hidden
    characters visible."""
    return escape(visible(str(value)), quote=True)


def md_cell(text: str) -> str:
    """``text`` as one Markdown table cell: its lines joined by spaces, what is left unprintable
    (a tab, ESC, a bidi override) written as its escape, pipes escaped and ``<``/``>``/``&`` as
    entities (so ``<no tool>`` is not taken for an HTML tag by GitHub)."""
    text = printable(" ".join(text.splitlines()))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text.replace("|", "\\|")
