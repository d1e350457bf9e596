"""A small, dependency-free date parser for the ``date`` comparator (base layer: scoring, lint
and mutation share it).

It understands the forms people and models write dates in, and nothing clever:

- ISO: ``2026-03-20``, ``2026/03/20``, ``20260320``, with an optional time
  (``2026-03-20T14:30``, ``2026-03-20 14:30:00Z``);
- month names: ``March 20, 2026``, ``Mar 20 2026``, ``20 March 2026``, ``20th of March, 2026``,
  optionally after a weekday (``Friday, March 20, 2026``);
- numeric: ``03/20/2026`` (month first, the US order), ``20/03/2026`` when the first number
  cannot be a month, ``20.03.2026`` (day first, the European dotted order).

:func:`parse_date` returns ``(year, month, day, time)`` where ``time`` is ``"HH:MM:SS"`` or ``""``,
or ``None`` when the text is not a date it understands.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["DateKey", "dates_equal", "parse_date"]

DateKey = tuple[int, int, int, str]

_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_WEEKDAY = re.compile(
    r"^(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|sday|nesday|rsday|urday)?\.?,?\s+"
)
_TIME = (
    r"(?:[t\s]+(\d{1,2}):(\d{2})(?::(\d{2}))?(?:\.\d+)?\s*(am|pm)?\s*(z|[+-]\d{2}:?\d{2}|utc)?)?"
)
_ISO = re.compile(r"(\d{4})[-/](\d{1,2})[-/](\d{1,2})" + _TIME)
_COMPACT = re.compile(r"(\d{4})(\d{2})(\d{2})")
_MDY_NAME = re.compile(
    rf"({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})"
    + _TIME.replace("[t\\s]+", "[,\\s]+(?:at\\s+)?")
)
_DMY_NAME = re.compile(
    rf"(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\.?,?\s+(\d{{4}})"
    + _TIME.replace("[t\\s]+", "[,\\s]+(?:at\\s+)?")
)
_NUMERIC = re.compile(r"(\d{1,2})([/.-])(\d{1,2})\2(\d{4})" + _TIME)


def _valid(y: int, m: int, d: int) -> bool:
    if not (1 <= m <= 12 and 1 <= d <= 31):
        return False
    if m == 2:
        leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
        return d <= (29 if leap else 28)
    return not (m in (4, 6, 9, 11) and d > 30)


def _time(h: str | None, mi: str | None, s: str | None, ampm: str | None) -> str | None:
    if h is None or mi is None:
        return ""
    hour = int(h)
    if ampm is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    if hour > 23 or int(mi) > 59 or (s is not None and int(s) > 59):
        return None
    return f"{hour:02d}:{mi}:{s or '00'}"


@lru_cache(maxsize=4096)
def parse_date(text: str) -> DateKey | None:
    """Parse ``text`` as a date (and optional time of day); ``None`` if it is not one."""
    t = " ".join(text.strip().lower().split())
    t = _WEEKDAY.sub("", t)
    y: int
    mo: int
    d: int
    tm: str | None = ""
    if match := _ISO.fullmatch(t):
        y, mo, d = int(match[1]), int(match[2]), int(match[3])
        tm = _time(match[4], match[5], match[6], match[7])
    elif match := _COMPACT.fullmatch(t):
        y, mo, d = int(match[1]), int(match[2]), int(match[3])
    elif match := _MDY_NAME.fullmatch(t):
        y, mo, d = int(match[3]), _MONTHS[match[1]], int(match[2])
        tm = _time(match[4], match[5], match[6], match[7])
    elif match := _DMY_NAME.fullmatch(t):
        y, mo, d = int(match[3]), _MONTHS[match[2]], int(match[1])
        tm = _time(match[4], match[5], match[6], match[7])
    elif match := _NUMERIC.fullmatch(t):
        a, b = int(match[1]), int(match[3])
        y = int(match[4])
        day_first = match[2] == "." or a > 12
        mo, d = (b, a) if day_first else (a, b)
        tm = _time(match[5], match[6], match[7], match[8])
    else:
        return None
    if tm is None or not _valid(y, mo, d):
        return None
    return (y, mo, d, tm)


def dates_equal(a: str, b: str) -> bool | None:
    """Whether two texts name the same date; ``None`` when either is not a date.

    When both carry a time of day the times must agree too; a bare date equals any time that day.
    """
    pa, pb = parse_date(a), parse_date(b)
    if pa is None or pb is None:
        return None
    if pa[:3] != pb[:3]:
        return False
    return not (pa[3] and pb[3] and pa[3] != pb[3])
