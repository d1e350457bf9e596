"""Argument values for generated cases: what a parameter is (a date, an e-mail address, an id
...), a value of that kind, another value of it (a change of mind, a typo and its correction),
how a user says it, and the matcher an expected call checks it with.

Values come, in order, from the world's records (an ``order_id`` is a key of ``orders``), from
the source suite's own expected calls (the values its cases already use), then from the
parameter's schema and name (an enum's values, a date, an id of the parameter's own prefix).
Everything is drawn from a seeded ``random.Random``: same seed, same values.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Final

from ..schema import ArgMatcher, Case, JsonValue, Suite

__all__ = ["Slot", "ValuePool", "kind_of", "matcher", "said", "value_texts"]

_CITIES: Final = ("Lisbon", "Denver", "Osaka", "Toronto", "Vienna", "Nairobi", "Santiago", "Oslo")
_EMAILS: Final = (
    "dana.reyes@example.com",
    "li.wei@example.com",
    "omar.haddad@example.com",
    "ines.moreau@example.com",
    "kofi.mensah@example.com",
)
_AIRPORTS: Final = ("JFK", "LHR", "CDG", "SFO", "NRT", "SEA", "BOS", "MAD", "FRA", "SYD")
_CURRENCIES: Final = ("USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD")
_NAMES: Final = ("Casa Verde", "Blue Harbor", "The Copper Pot", "Sakura House", "Green Olive")
_TITLES: Final = ("Quarterly review", "Project kickoff", "Budget planning", "Team retro")
_TITLE_WORDS: Final = ("title", "subject", "summary", "topic", "event", "heading")
#: parameter names people would not say as they are
_LABELS: Final = {"to": "recipient", "cc": "copy recipient", "bcc": "blind copy recipient"}
_STREETS: Final = ("12 Harbour Rd", "48 Birch Lane", "7 Mill St", "210 Pine Ave", "3 Quay St")
_TEXTS: Final = (
    "Please find the notes from today attached.",
    "Can we move our call to Thursday?",
    "The invoice is paid, thank you.",
    "See you at the station at nine.",
)
_COUNT_WORDS: Final = ("size", "count", "people", "guests", "quantity", "nights", "seats", "qty")
_TEXT_WORDS: Final = ("body", "message", "text", "content", "note", "comment", "description")
_ID_WORDS: Final = ("id", "ids", "number", "code", "ref", "reference", "key", "sku", "account")


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", name) if w]


def _type(schema: Mapping[str, Any]) -> str:
    t = schema.get("type")
    if isinstance(t, list):
        t = next((x for x in t if x != "null"), "string")
    return t if isinstance(t, str) else "string"


def kind_of(name: str, schema: Mapping[str, Any]) -> str:
    """What a parameter holds: ``enum``, ``bool``, ``int``, ``count``, ``number``, ``list``,
    ``object``, or a string's kind: ``date``, ``time``, ``email``, ``airport``, ``currency``,
    ``city``, ``id``, ``text``, ``name``."""
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return "enum"
    t = _type(schema)
    words = [w.lower() for w in _words(name)]
    if t == "boolean":
        return "bool"
    if t == "integer":
        return "count" if any(w in _COUNT_WORDS for w in words) else "int"
    if t == "number":
        return "number"
    if t in ("array", "object"):
        return "list" if t == "array" else "object"
    desc = str(schema.get("description", "")).lower()
    fmt = str(schema.get("format", "")).lower()
    if fmt == "date" or "yyyy-mm-dd" in desc or words[-1:] in (["date"], ["day"]):
        return "date"
    if fmt == "time" or "hh:mm" in desc or words[-1:] == ["time"]:
        return "time"
    if fmt == "email" or "email" in words or "e-mail" in desc or words in (["to"], ["recipient"]):
        return "email"
    if words and (words[-1] == "address" or words[0] in ("line1", "line2", "street")):
        return "street"
    if words and words[-1] in ("zip", "postcode", "postal"):
        return "zip"
    if words in (["state"], ["province"], ["region"]):
        return "region"
    if "iata" in desc or "airport" in desc:
        return "airport"
    if "currency" in words or "iso code" in desc:
        return "currency"
    if words and words[-1] in ("city", "location", "place", "town"):
        return "city"
    if words and words[-1] in _ID_WORDS:
        return "id"
    if any(w in _TEXT_WORDS for w in words):
        return "text"
    if any(w in _TITLE_WORDS for w in words):
        return "title"
    return "name"


def _fresh(kind: str, name: str, schema: Mapping[str, Any], rng: random.Random) -> JsonValue:
    """A value of ``kind`` made up for this parameter."""
    if kind == "enum":
        return rng.choice(list(schema["enum"]))
    if kind == "bool":
        return rng.choice([True, False])
    if kind in ("int", "count", "number"):
        low, high = (2, 8) if kind == "count" else (10, 500)
        low = int(schema.get("minimum", low)) if isinstance(schema.get("minimum"), int) else low
        high = int(schema.get("maximum", high)) if isinstance(schema.get("maximum"), int) else high
        n = rng.randint(low, max(low, high))
        return n + 0.5 if kind == "number" and rng.random() < 0.3 else n
    if kind == "list":
        items = schema.get("items")
        item_schema = items if isinstance(items, dict) else {"type": "string"}
        k = kind_of(name.rstrip("s") or name, item_schema)
        return [_fresh(k, name, item_schema, rng)]
    if kind == "object":
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        req = schema.get("required")
        keys = [str(k) for k in req] if isinstance(req, list) else list(props)
        out: dict[str, JsonValue] = {}
        for k in keys:
            found = props.get(k)
            sub: Mapping[str, Any] = found if isinstance(found, dict) else {"type": "string"}
            out[k] = _fresh(kind_of(k, sub), k, sub, rng)
        return out
    if kind == "date":
        return (date(2026, 4, 1) + timedelta(days=rng.randint(0, 120))).isoformat()
    if kind == "time":
        return f"{rng.randint(8, 20):02d}:{rng.choice(['00', '15', '30', '45'])}"
    if kind == "zip":
        return f"{rng.randint(10000, 99999)}"
    if kind == "region":
        return rng.choice(("OR", "WA", "TX", "NY", "CA", "MA"))
    if kind == "id":
        stem = "".join(w[0] for w in _words(name)[:-1]).upper() or name[:1].upper() or "X"
        return f"{stem}{rng.randint(1000, 9999)}"
    table = {
        "email": _EMAILS,
        "airport": _AIRPORTS,
        "currency": _CURRENCIES,
        "city": _CITIES,
        "text": _TEXTS,
        "title": _TITLES,
        "street": _STREETS,
    }
    return rng.choice(table.get(kind, _NAMES))


def _near(value: JsonValue, kind: str, rng: random.Random) -> JsonValue | None:
    """A value a user gets wrong by a slip: a day off, a digit off, two letters swapped."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and kind != "enum":
        return value + rng.choice([1, -1]) if value > 1 else value + 1
    if isinstance(value, str) and kind == "date":
        try:
            return (date.fromisoformat(value) + timedelta(days=1)).isoformat()
        except ValueError:
            return None
    if isinstance(value, str) and kind == "id":
        digits = [i for i, ch in enumerate(value) if ch.isdigit()]
        if digits:
            i = digits[-1]
            return value[:i] + str((int(value[i]) + 1) % 10) + value[i + 1 :]
    return None


@dataclass(frozen=True, kw_only=True)
class Slot:
    """One argument of a generated call: the parameter, what it holds and its value."""

    name: str
    kind: str
    value: JsonValue

    @property
    def label(self) -> str:
        if self.name.lower() in _LABELS:
            return _LABELS[self.name.lower()]
        return " ".join(w.lower() for w in _words(self.name)) or self.name

    @property
    def guessable(self) -> bool:
        """An agent could hit the value without being told (a yes/no, a short enum)."""
        return self.kind == "bool" or (self.kind == "enum" and isinstance(self.value, str))


def said(value: JsonValue) -> str:
    """How the user says ``value``: the text itself, a number as written, a list with commas."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        parts = [said(v) for v in value]
        return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    if isinstance(value, dict):
        return ", ".join(f"{k.replace('_', ' ')} {said(v)}" for k, v in value.items())
    if isinstance(value, str) and (" " in value.strip() or value.endswith((".", "?", "!"))):
        return f'"{value}"'
    return str(value)


def value_texts(value: JsonValue) -> list[str]:
    """The texts a message must hold for ``value`` to have been said (every leaf)."""
    if isinstance(value, bool):
        return []
    if isinstance(value, list):
        return [t for v in value for t in value_texts(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in value_texts(v)]
    if isinstance(value, float) and value.is_integer():
        return [str(int(value))]
    return [] if value is None else [str(value)]


def matcher(slot: Slot, *, exact: bool) -> JsonValue:
    """The expected argument (as written in a suite file). ``exact``: the value itself (a
    world writes it, so the state must hold exactly this); else lenient where people are."""
    v = slot.value
    if exact or not isinstance(v, str):
        return {"value": v} if isinstance(v, dict | list) else v
    if slot.kind == "date":
        return {"value": v, "date": True}
    if slot.kind in ("name", "title", "street", "city", "email", "airport", "currency"):
        return {"value": v, "ignore_case": True}
    if slot.kind == "text":
        return {"value": v, "ignore_case": True, "ignore_space": True}
    return v


class ValuePool:
    """Values per (tool, parameter): the world's keys first, then the suite's own expected
    values, then made-up ones of the parameter's kind."""

    def __init__(self, suite: Suite, keys: Mapping[tuple[str, str], Sequence[str]]) -> None:
        self._keys = keys
        self._seen: dict[tuple[str, str], list[JsonValue]] = {}
        for case in suite.cases:
            _collect(case, self._seen)

    def candidates(self, tool: str, param: str) -> list[JsonValue]:
        """The values known for this parameter (world keys, then the suite's), in file order."""
        keys: list[JsonValue] = list(self._keys.get((tool, param), ()))
        return keys + [v for v in self._seen.get((tool, param), []) if v not in keys]

    def draw(
        self,
        tool: str,
        param: str,
        schema: Mapping[str, Any],
        rng: random.Random,
        avoid: Sequence[JsonValue] = (),
    ) -> Slot:
        kind = kind_of(param, schema)
        known = [v for v in self.candidates(tool, param) if v not in avoid]
        if (tool, param) in self._keys and known:
            return Slot(name=param, kind="id", value=rng.choice(known))
        if known and rng.random() < 0.5:
            return Slot(name=param, kind=kind, value=rng.choice(known))
        for _ in range(8):
            value = _fresh(kind, param, schema, rng)
            if value not in avoid:
                return Slot(name=param, kind=kind, value=value)
        return Slot(name=param, kind=kind, value=_fresh(kind, param, schema, rng))

    def other(
        self,
        tool: str,
        slot: Slot,
        schema: Mapping[str, Any],
        rng: random.Random,
        *,
        near: bool,
        avoid: Sequence[JsonValue] = (),
    ) -> Slot | None:
        """Another value for ``slot``, none of ``avoid``: a slip of it (``near``), else a
        different one of its kind (None: the parameter has no other value, e.g. a one-value
        enum)."""
        taken = [slot.value, *avoid]
        slip = _near(slot.value, slot.kind, rng) if near else None
        if slip is not None and (tool, slot.name) not in self._keys and slip not in taken:
            return Slot(name=slot.name, kind=slot.kind, value=slip)
        if slot.kind == "bool":
            return None
        other = self.draw(tool, slot.name, schema, rng, avoid=taken)
        return other if other.value not in taken else None


def _collect(case: Case, seen: dict[tuple[str, str], list[JsonValue]]) -> None:
    for exp in [case.expect, *(t.expect for t in case.turns if t.expect is not None)]:
        for call in exp.tool_calls:
            for name, m in call.arguments.items():
                value = _concrete(m)
                if value is not None:
                    bucket = seen.setdefault((call.name, name), [])
                    if value not in bucket:
                        bucket.append(value)


def _concrete(m: ArgMatcher) -> JsonValue:
    if m.any or m.regex is not None or m.ref is not None or m.not_ is not None:
        return None
    if m.one_of:
        return m.one_of[0]
    if isinstance(m.value, str | int | float) and not isinstance(m.value, bool):
        return m.value
    return None
