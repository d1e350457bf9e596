"""The matrix comparison in a terminal, readable at any width (80 columns included).

Each table of :func:`matrix_tables` is printed as it is when its columns fit the console with
every word whole (cells wrap only at spaces); otherwise turned on its side (one column per
agent, one row per metric), and when that is still too wide, split into groups of agents that
fit, the metric column repeated. No cell is ever cut with an ellipsis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .._messages import printable
from .._secrets import scrub
from ._matrix import MatrixTable, matrix_lines, matrix_tables

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from ..metrics import MatrixComparison

__all__ = ["fit_table", "render_matrix_console"]

#: what a column costs besides its text: one space of padding each side, one separator
_COLUMN_COST = 3

Grid = tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]


#: a word longer than this (a python: agent's path) may be folded: it cannot fit whole anyway
_LONG_WORD = 24


def _longest_word(text: str) -> int:
    return min(_LONG_WORD, max((len(w) for w in text.split()), default=0))


def _min_width(header: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    """The narrowest the table can be with no word cut: each column as wide as its longest
    word, plus padding and separators."""
    cols = len(header)
    widest = [
        max(_longest_word(header[k]), *(_longest_word(r[k]) for r in rows)) for k in range(cols)
    ]
    return sum(widest) + _COLUMN_COST * cols - 1


def _full_width(header: Sequence[str], rows: Sequence[Sequence[str]]) -> int:
    cols = len(header)
    widest = [max(len(header[k]), *(len(r[k]) for r in rows)) for k in range(cols)]
    return sum(widest) + _COLUMN_COST * cols - 1


def _sideways(t: MatrixTable) -> Grid:
    """One column per row of ``t`` (its first cell, with a rank ``#`` folded in), one row per
    other column."""
    header, rows = t.header, t.rows
    if header and header[0] == "#" and len(header) > 1:  # "1. oracle"
        header = (header[1], *header[2:])
        rows = tuple((f"{r[0]}. {r[1]}", *r[2:]) for r in rows)
    new_header = (header[0], *(r[0] for r in rows))
    new_rows = tuple((header[k], *(r[k] for r in rows)) for k in range(1, len(header)))
    return new_header, new_rows


def _chunks(grid: Grid, width: int) -> list[Grid]:
    """``grid`` split by columns (the first repeated in each part) into parts that fit."""
    header, rows = grid
    parts: list[Grid] = []
    start = 1
    while start < len(header):
        end = start + 1
        while end < len(header):
            cols = [0, *range(start, end + 1)]
            if _min_width([header[c] for c in cols], [[r[c] for c in cols] for r in rows]) > width:
                break
            end += 1
        cols = [0, *range(start, end)]
        parts.append(
            (tuple(header[c] for c in cols), tuple(tuple(r[c] for c in cols) for r in rows))
        )
        start = end
    return parts


def fit_table(t: MatrixTable, width: int) -> list[Grid]:
    """The grids to print for ``t`` at ``width`` columns (see the module docstring)."""
    as_is: Grid = (t.header, t.rows)
    if not t.rows or _full_width(*as_is) <= width:
        return [as_is]
    side = _sideways(t)
    if _full_width(*side) <= width:
        return [side]
    if _min_width(*as_is) <= width:
        return [as_is]
    if _min_width(*side) <= width:
        return [side]
    return _chunks(side, width)


def _widths(grid: Grid, width: int) -> list[int]:
    """Each column's width: its longest word, then what is left of ``width`` shared out
    towards each column's longest cell (a column never narrower than a word in it)."""
    header, rows = grid
    cols = range(len(header))
    least = [max(_longest_word(header[k]), *(_longest_word(r[k]) for r in rows)) for k in cols]
    most = [max(len(header[k]), *(len(r[k]) for r in rows)) for k in cols]
    spare = width - sum(least) - _COLUMN_COST * (len(header) - 1)
    out = list(least)
    while spare > 0:
        wants = [k for k in cols if out[k] < most[k]]
        if not wants:
            break
        for k in wants:
            if spare <= 0:
                break
            out[k] += 1
            spare -= 1
    return out


def _rich_table(title: str, grid: Grid, width: int) -> Table:
    from rich import box
    from rich.table import Table
    from rich.text import Text

    header, rows = grid
    table = Table(
        title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False
    )
    for h, w in zip(header, _widths(grid, width), strict=True):
        # fixed widths: rich wraps at spaces and folds only a word longer than the column
        table.add_column(Text(printable(h)), overflow="fold", width=w)
    for row in rows:  # agents' labels, case ids: shown, never markup
        table.add_row(*(Text(printable(scrub(cell))) for cell in row))
    return table


def render_matrix_console(c: MatrixComparison, console: object) -> None:
    """Print the comparison as rich tables (``console`` is a :class:`rich.console.Console`),
    each laid out to fit the console's width."""
    from rich.console import Console

    assert isinstance(console, Console)
    con: Console = console
    from rich.text import Text

    suite = printable(c.suite)  # the suite's name: one line, never markup
    con.print(Text(f"\n{len(c.agents)} agents on suite {suite}", style="bold"))
    for t in matrix_tables(c):
        grids = fit_table(t, con.width)
        for k, grid in enumerate(grids):
            title = t.title if len(grids) == 1 else f"{t.title} ({k + 1}/{len(grids)})"
            con.print(_rich_table(title, grid, con.width))
    for line in matrix_lines(c):
        con.print(printable(line), markup=False, highlight=False)
