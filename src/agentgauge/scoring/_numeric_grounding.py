"""Deterministic numeric groundedness: every number in a reply must come from the material.

Ungrounded numbers are the costliest hallucinations (a wrong price, date or balance), and they
can be checked offline. :func:`check_numeric_grounding` finds each number, amount, percentage,
date and clock time in a response and flags those that do not appear in the sources (the case's
context, the tool results the agent saw, the user's own messages).

What is normalised (see ``docs/judges.md``):

- thousands separators: ``1,000`` = ``1000`` (a comma followed by exactly three digits);
  a dot is always the decimal point (``1.000`` is one);
- trailing zeros: ``8.50`` = ``8.5``;
- rounding: a number matches a source number less than half a unit of its last digit away
  (``18.4`` matches ``18.37``; ``18`` matches ``18.37`` too; ``2`` does not match ``1.5``);
- magnitudes: ``1.2k``, ``$3m``, ``2.5 million``, ``4bn``/``4 billion`` are multiplied out (their
  rounding step scales with them: ``$1.2k`` matches 1,234);
- currencies: ``$``, ``€``, ``£``, ``¥``, ``USD``/``EUR``/``GBP`` are stripped; the currency itself
  is not compared;
- percentages: ``8.5%`` = ``8.5 percent`` = ``8.5 per cent`` = ``8.5 pct``, and a percentage also
  matches the same fraction (``80%`` matches ``0.8`` in a tool result) and vice versa;
- dates: ``2026-03-20``, ``03/20/2026`` and ``20/03/2026`` (both readings kept when ambiguous),
  ``March 20, 2026``, ``20 March 2026``, ``Mar 20``, ``20th of March``; a date without a year
  matches any source date on that day and month; a date with a year needs the same year;
- clock times: ``9:40``, ``09:40``, ``9 am``, ``9:40 pm`` (12-hour times become 24-hour).

Signs are ignored (``-5`` is 5), digits inside identifiers (``QX7P``, ``GPT-4``, ``call_1``)
are not numbers, and spelled-out numbers (``ten``) are not recognised.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Literal

MentionKind = Literal["number", "amount", "percent", "date", "time"]

_MONTHS = {
    m: i
    for i, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for m in names
}
_MONTH = r"(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_ORD = r"(?:st|nd|rd|th)?"
_NOT_AFTER_WORD = r"(?<![A-Za-z0-9_.,/])(?<![A-Za-z]-)"

_ISO_DATE = re.compile(_NOT_AFTER_WORD + r"(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_SLASH_DATE = re.compile(_NOT_AFTER_WORD + r"(\d{1,2})[/.](\d{1,2})[/.](\d{4}|\d{2})(?![\d/])")
_MONTH_DAY = re.compile(
    r"\b" + _MONTH + r"\s+(\d{1,2})" + _ORD + r"(?:,?\s+(\d{4}))?(?!\d)", re.IGNORECASE
)
_DAY_MONTH = re.compile(
    r"(?<![\w.])(\d{1,2})" + _ORD + r"\s+(?:of\s+)?" + _MONTH + r"(?:,?\s+(\d{4}))?\b",
    re.IGNORECASE,
)
_TIME = re.compile(
    _NOT_AFTER_WORD
    + r"(\d{1,2})(?::(\d{2}))?\s*(?:([ap])\.?\s?m\b)"
    + r"|"
    + _NOT_AFTER_WORD
    + r"(\d{1,2}):(\d{2})(?!\d)",
    re.IGNORECASE,
)
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.,])(?<![A-Za-z]-)"
    r"(?P<cur>[$€£¥]|(?:USD|EUR|GBP)\s?)?"
    r"(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?P<suf>\s?%|\s?(?:percent|per\s?cent|pct)\b|\s?(?:thousand|million|billion)\b|"
    r"(?:k|K|bn|BN|mn)\b|(?:m|M|b|B)\b)?",
)
_MULT = {
    "k": 3,
    "thousand": 3,
    "m": 6,
    "mn": 6,
    "million": 6,
    "b": 9,
    "bn": 9,
    "billion": 9,
}


@dataclass(frozen=True, kw_only=True)
class NumericMention:
    """One number-like mention in a text."""

    text: str
    kind: MentionKind
    start: int
    #: the value (numbers, amounts, percentages: a percentage as written, 8.5 for 8.5%)
    value: float | None = None
    #: half of the rounding step: |source - value| < tolerance counts as the same number
    tolerance: float = 0.0
    #: normalised keys of dates (``2026-03-20`` and ``--03-20``) and times (``T09:40``)
    keys: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class NumericGrounding:
    """The outcome of a check: every mention found in the response, and the ungrounded ones."""

    mentions: tuple[NumericMention, ...]
    ungrounded: tuple[NumericMention, ...] = field(default=())

    @property
    def grounded_fraction(self) -> float:
        if not self.mentions:
            return 1.0
        return 1.0 - len(self.ungrounded) / len(self.mentions)

    @property
    def passed(self) -> bool:
        return not self.ungrounded

    def explain(self) -> str:
        if not self.mentions:
            return "no numbers, dates or amounts in the response"
        if not self.ungrounded:
            return f"all {len(self.mentions)} numbers/dates in the response appear in the sources"
        listed = ", ".join(repr(m.text) for m in self.ungrounded)
        return (
            f"{len(self.ungrounded)} of {len(self.mentions)} numbers/dates not found in the "
            f"context or tool results: {listed}"
        )


def _step(frac: str | None, exponent: int) -> float:
    decimals = len(frac) - 1 if frac else 0
    return float(10 ** (exponent - decimals))


def _valid_date(y: int | None, m: int, d: int) -> bool:
    return 1 <= m <= 12 and 1 <= d <= 31 and (y is None or 1000 <= y <= 9999)


def _date_keys(y: int | None, m: int, d: int) -> tuple[str, ...]:
    partial = f"--{m:02d}-{d:02d}"
    return (f"{y:04d}-{m:02d}-{d:02d}", partial) if y is not None else (partial,)


def _year(text: str | None) -> int | None:
    if not text:
        return None
    y = int(text)
    return y + 2000 if y < 100 else y


def _dates_and_times(text: str) -> list[NumericMention]:
    found: list[NumericMention] = []

    def add(m: re.Match[str], kind: MentionKind, keys: Iterable[str]) -> None:
        found.append(
            NumericMention(
                text=m.group(0).strip(), kind=kind, start=m.start(), keys=tuple(dict.fromkeys(keys))
            )
        )

    for m in _ISO_DATE.finditer(text):
        yr: int | None = int(m.group(1))
        mo, d = int(m.group(2)), int(m.group(3))
        if _valid_date(yr, mo, d):
            add(m, "date", _date_keys(yr, mo, d))
    for m in _SLASH_DATE.finditer(text):
        a, b, y = int(m.group(1)), int(m.group(2)), _year(m.group(3))
        keys = [
            k for mo, d in ((a, b), (b, a)) if _valid_date(y, mo, d) for k in _date_keys(y, mo, d)
        ]
        if keys:
            add(m, "date", keys)
    for m in _MONTH_DAY.finditer(text):
        mo, d, y = _MONTHS[m.group(1).lower()], int(m.group(2)), _year(m.group(3))
        if _valid_date(y, mo, d):
            add(m, "date", _date_keys(y, mo, d))
    for m in _DAY_MONTH.finditer(text):
        d, mo, y = int(m.group(1)), _MONTHS[m.group(2).lower()], _year(m.group(3))
        if _valid_date(y, mo, d):
            add(m, "date", _date_keys(y, mo, d))
    for m in _TIME.finditer(text):
        if m.group(3):
            h, minute = int(m.group(1)), int(m.group(2) or 0)
            if not 1 <= h <= 12:
                continue
            h = h % 12 + (12 if m.group(3).lower() == "p" else 0)
        else:
            h, minute = int(m.group(4)), int(m.group(5))
        if h <= 23 and minute <= 59:
            add(m, "time", (f"T{h:02d}:{minute:02d}",))
    return found


def extract_numeric(text: str) -> list[NumericMention]:
    """Every number, amount, percentage, date and time in ``text``, in order of appearance."""
    found = _dates_and_times(text)
    # drop overlapping date/time matches, keeping the longest
    found.sort(key=lambda x: (x.start, -len(x.text)))
    spans: list[tuple[int, int]] = []
    kept: list[NumericMention] = []
    for f in found:
        end = f.start + len(f.text)
        if any(s < end and f.start < e for s, e in spans):
            continue
        spans.append((f.start, end))
        kept.append(f)
    for m in _NUMBER.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in spans):
            continue
        suffix = (m.group("suf") or "").strip().lower().replace(" ", "")
        try:
            base = Decimal(m.group("int").replace(",", "") + (m.group("frac") or ""))
        except InvalidOperation:  # pragma: no cover - the regex admits digits only
            continue
        kind: MentionKind = "amount" if m.group("cur") else "number"
        exponent = 0
        if suffix in ("%", "pct") or suffix.startswith("per"):
            kind = "percent"
        elif suffix in _MULT:
            if suffix in ("m", "b") and not m.group("cur"):
                suffix = ""  # 5m is five metres, 3b is a label: only $3m is a magnitude
            else:
                exponent = _MULT[suffix]
        value = float(base * (Decimal(10) ** exponent))
        tol = _step(m.group("frac"), exponent) / 2
        kept.append(
            NumericMention(
                text=m.group(0).strip(), kind=kind, start=m.start(), value=value, tolerance=tol
            )
        )
    kept.sort(key=lambda x: x.start)
    return kept


@dataclass
class _Sources:
    values: list[float]
    keys: set[str]


def _index(sources: Sequence[str]) -> _Sources:
    values: list[float] = []
    keys: set[str] = set()
    for text in sources:
        for m in extract_numeric(text):
            keys.update(m.keys)
            if m.value is not None:
                values.append(m.value)
                if m.kind == "percent":
                    values.append(m.value / 100)
    return _Sources(values=values, keys=keys)


def _grounded(m: NumericMention, src: _Sources) -> bool:
    if m.keys:
        # a date written with a year needs that year; one without matches any year
        wanted = [k for k in m.keys if not k.startswith("--")] or list(m.keys)
        return any(k in src.keys for k in wanted)
    assert m.value is not None
    targets = [(m.value, m.tolerance)]
    if m.kind == "percent":
        targets.append((m.value / 100, m.tolerance / 100))
    return any(
        abs(s - v) < t or abs(s - v) <= 1e-9 * max(1.0, abs(v))
        for v, t in targets
        for s in src.values
    )


def check_numeric_grounding(
    response: str, sources: Sequence[str], *, ignore: Iterable[float] = ()
) -> NumericGrounding:
    """Find the numbers in ``response`` that appear in none of ``sources``.

    ``ignore`` lists values never flagged (e.g. ``[1, 2, 3]`` for step numbers).
    """
    mentions = extract_numeric(response)
    src = _index(sources)
    skip = set(ignore)
    bad = tuple(m for m in mentions if not (m.value in skip or _grounded(m, src)))
    return NumericGrounding(mentions=tuple(mentions), ungrounded=bad)


__all__ = [
    "MentionKind",
    "NumericGrounding",
    "NumericMention",
    "check_numeric_grounding",
    "extract_numeric",
]
