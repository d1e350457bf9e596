"""What the reports show of a world's state (docs/worlds.md): the differences the state checks
found (expected vs actual, record and field), the final state record by record with the changed
ones marked, and each tool call's writes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from ..schema import CaseResult, StateDiff, StateWrite, format_path, parse_path
from ..worlds import short

__all__ = ["RecordRow", "diff_cells", "record_rows", "write_text"]

#: records of a final state listed in a case's details (changed ones first)
RECORDS_SHOWN: Final = 200
_CELL: Final = 120


def diff_cells(d: StateDiff) -> tuple[str, str, str, str]:
    """(path, expected, actual, which check) of one difference, as short text."""
    expected = "(absent)" if d.kind == "unexpected" else short(d.expected, _CELL)
    actual = "(absent)" if d.kind == "missing" else short(d.actual, _CELL)
    if d.source == "unchanged":  # what had to stay: the start's value is the expected one
        expected = f"{expected} (at the start)"
    return d.path, expected, actual, d.source


def write_text(w: StateWrite) -> str:
    """``orders.A1.status: 'pending' -> 'cancelled'`` (an insert or a delete says so)."""
    if w.op == "insert":
        return f"{w.path}: inserted {short(w.after, _CELL)}"
    if w.op == "delete":
        return f"{w.path}: deleted (was {short(w.before, _CELL)})"
    return f"{w.path}: {short(w.before, _CELL)} -> {short(w.after, _CELL)}"


@dataclass(frozen=True, slots=True)
class RecordRow:
    """One record of a final state (a collection's entry, or a top-level value)."""

    path: str
    value: Any
    #: a write of the case or a difference found touches it
    changed: bool
    #: a state check found it different from what was expected
    wrong: bool


def _record_of(path: str) -> tuple[str | int, ...]:
    try:
        return parse_path(path)[:2]
    except ValueError:
        return ()


def _touches(a: tuple[str | int, ...], b: tuple[str | int, ...]) -> bool:
    n = min(len(a), len(b))
    return n > 0 and a[:n] == b[:n]


def record_rows(r: CaseResult, limit: int = RECORDS_SHOWN) -> tuple[list[RecordRow], int]:
    """The final state's records (changed first, then in state order), and how many more there
    are. A record is a collection's entry (``orders.A1``), or a top-level value that is not an
    object of objects."""
    if r.world is None:
        return [], 0
    written = [_record_of(w.path) for e in r.trace for w in e.writes]
    wrong = [_record_of(d.path) for d in r.world.diff]
    rows: list[RecordRow] = []
    for name, value in r.world.final.items():
        entries: Sequence[tuple[tuple[str | int, ...], Any]]
        if isinstance(value, dict) and value and all(isinstance(v, dict) for v in value.values()):
            entries = [((name, key), rec) for key, rec in value.items()]
        else:
            entries = [((name,), value)]
        for at, rec in entries:
            bad = any(_touches(at, w) for w in wrong)
            changed = bad or any(_touches(at, w) for w in written)
            rows.append(RecordRow(path=format_path(at), value=rec, changed=changed, wrong=bad))
    rows.sort(key=lambda x: (not x.wrong, not x.changed))
    return rows[:limit], max(len(rows) - limit, 0)
