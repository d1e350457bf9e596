"""Text from a suite, a run directory, a trace or a server, made safe for each report format.

A name or a value written into a report is shown, never acted on: in a page no character may
hide itself or reorder what is around it (a C0/C1 control, a bidi override or isolate: ``\\u202e``
makes ``exe.txt`` read ``txt.exe``); in a Markdown table no value may end the row (a line
break, a carriage return, a ``|``) or open HTML. What would be hidden is written as its Python
escape (``\\x1b``, ``\\u202e``), as :func:`agentgauge._messages.printable` writes it on the
console. In a CSV cell no value may run as a formula, end its row where the ``csv`` module does
not quote it (a lone carriage return, U+2028), or reach a terminal that prints the file as an
escape sequence (:func:`csv_cell`)."""

from __future__ import annotations

import re
from html import escape
from typing import Final

from .._messages import printable

__all__ = ["csv_cell", "html_text", "md_cell", "visible"]

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


#: what a spreadsheet, a CSV reader or a terminal showing the file hides, acts on or reads as a
#: line break the ``csv`` module does not quote: C0 controls but tab and newline (NUL, ESC of an
#: ANSI sequence, CR, VT, FF, the file/group/record separators), DEL and the C1 controls (NEL),
#: the bidi marks, embeddings, overrides and isolates, and U+2028 / U+2029 (``str.splitlines``
#: and some spreadsheets break a line there)
_CSV_HIDDEN: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)

#: what a spreadsheet reads as the start of a formula (``=HYPERLINK(...)``, ``+cmd|...``,
#: ``-1+1``, ``@SUM(...)``; a tab or a line break before one of them), full-width forms too
_FORMULA_START: Final = frozenset("=+-@\t\r\n\uff1d\uff0b\uff0d\uff20")


def csv_cell(text: str) -> str:
    """``text`` as one spreadsheet cell that shows it and never acts on it.

    A line break is kept as ``\\n`` (``\\r\\n`` and a lone ``\\r`` become one): the ``csv``
    module quotes a field holding one, and a spreadsheet shows a multi-line cell. Every other
    character of :data:`_CSV_HIDDEN` is written as its Python escape (``\\x00``, ``\\x1b``,
    ``\\u2028``, ``\\u202e``): a NUL that some readers stop at, an ANSI sequence, a line
    break the ``csv`` module would leave unquoted, an override that reorders the cell. Then a
    cell that starts like a formula gets a leading ``'`` (OWASP's advice against CSV
    injection). Text that comes from a suite, an agent or a tool (case ids, categories, tool
    names, explanations quoting a reply) is untrusted."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.isprintable():
        text = _CSV_HIDDEN.sub(lambda m: ascii(m.group())[1:-1], text)
    return f"'{text}" if text and text[0] in _FORMULA_START else text
