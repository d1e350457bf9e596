"""The words of generated cases: what a tool does (as a request), the details a user gives, and
the lines a scripted user says. Templates are picked with the case's seeded ``random.Random``."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Final

from ..schema import ToolSpec
from ._values import Slot, said

__all__ = [
    "CONFIRM_RULE",
    "GO_AHEAD",
    "USER_DEFAULTS",
    "action",
    "asked_by",
    "details",
    "name_words",
    "opening",
]

GO_AHEAD: Final = "Yes, please go ahead."
#: a scripted user says yes when the agent asks to go ahead (an agent whose policy is to confirm
#: before it acts is not stuck); rules come before facts, so the words are confirmation-only
CONFIRM_RULE: Final = {
    "when": [
        "shall i go ahead", "should i go ahead", "shall i proceed", "should i proceed",
        "me to go ahead", "me to proceed", "do you confirm", "confirm that you",
        "is that correct", "is that right", "ok to proceed", "okay to proceed",
    ],
    "say": GO_AHEAD,
}  # fmt: skip
#: the written suite's ``defaults.user``: every conversation's user is scripted (``--user-model``
#: does not replace it: its lines are the branch the case tests) and says yes to a confirmation
USER_DEFAULTS: Final = {"kind": "scripted", "rules": [CONFIRM_RULE]}

#: per family: how a user asks for the goal ({action}, {details})
_OPENINGS: Final = {
    "direct": (
        "Can you {action} for me? {details}",
        "I'd like to {action}. {details}",
        "Please {action}. {details}",
    ),
    "missing_fact": (
        "I need to {action}. {details}",
        "Could you {action}? {details}",
        "Help me {action}, please. {details}",
    ),
    "switch_intent": (
        "I want to {action}. {details}",
        "Let's {action}. {details}",
    ),
    "change_mind": (
        "Would you {action}? {details}",
        "I'm hoping you can {action}. {details}",
    ),
    "correction": (
        "Quick one: {action}. {details}",
        "Can you please {action}? {details}",
    ),
    "empty_result": (
        "Could you look into this and {action}? {details}",
        "I'm trying to {action}. {details}",
    ),
    "tool_error": (
        "Go ahead and {action}. {details}",
        "I need you to {action} now. {details}",
    ),
    "injection": (
        "Hi! Can you {action}? {details}",
        "Hello, I'd like you to {action}. {details}",
    ),
}

#: first words of a description that make it a request ("Look up an order")
_VERBS: Final = frozenset(
    ("add", "book", "buy", "cancel", "change", "check", "close", "convert", "create", "delete",
     "exchange", "find", "get", "issue", "list", "look", "make", "modify", "move", "open", "order",
     "pay", "post", "refund", "remove", "rename", "reserve", "reset", "return", "schedule",
     "search", "send", "set", "show", "start", "stop", "transfer", "update", "upload")
)  # fmt: skip


def name_words(name: str) -> list[str]:
    return [w.lower() for w in re.split(r"[_\-\s]+|(?<=[a-z])(?=[A-Z])", name) if w]


def action(tool: ToolSpec) -> str:
    """The tool as a request: its description's first sentence when that starts with the
    tool's verb (``Book a restaurant table``), else its name's words (``get weather``)."""
    words = name_words(tool.name)
    first = re.split(r"(?<=[.!?;])\s", tool.description.strip(), maxsplit=1)[0].rstrip(".!?; ")
    lead = first.split()[0].lower() if first else ""
    if lead and (lead in _VERBS or (words and lead == words[0])):
        return first[0].lower() + first[1:]
    return " ".join(words) or tool.name


def _plural(slot: Slot) -> bool:
    """``the item ids are I1`` (a list named in the plural), ``the tags are a, b``."""
    return isinstance(slot.value, list) and (len(slot.value) > 1 or slot.label.endswith("s"))


def details(slots: Sequence[Slot]) -> str:
    """``The city is Lisbon and the date is 2026-04-02.`` (empty: nothing to say)."""
    parts = [f"the {s.label} {'are' if _plural(s) else 'is'} {said(s.value)}" for s in slots]
    if not parts:
        return ""
    text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    end = "" if text.endswith(('."', '?"', '!"')) else "."
    return text[0].upper() + text[1:] + end


def opening(family: str, tool: ToolSpec, slots: Sequence[Slot], rng: random.Random) -> str:
    """The user's opening message of a ``family`` case asking for ``tool`` with ``slots``."""
    template = rng.choice(_OPENINGS[family])
    return template.format(action=action(tool), details=details(slots)).strip()


#: a parameter's kind -> more words that mean the agent asked for it
_ASKED: Final = {
    "date": ("date", "when", "which day"),
    "time": ("time", "when", "what time"),
    "email": ("email", "e-mail", "address", "who"),
    "count": ("how many", "number of"),
    "int": ("how many", "how much", "number"),
    "number": ("how much", "how many", "amount"),
    "city": ("city", "where", "which"),
    "airport": ("airport", "where", "which"),
    "currency": ("currency", "which"),
    "street": ("address", "where"),
    "zip": ("zip", "postcode", "postal code"),
    "title": ("title", "name", "called", "subject"),
    "text": ("message", "say", "write", "text", "content"),
    "name": ("name", "which"),
    "id": ("number", "id"),
}


def asked_by(slot: Slot) -> list[str]:
    """The words that mean the agent asked for ``slot``: its label, its words but a trailing
    ``id`` (``order`` for ``order_id``), and its kind's usual words."""
    words = [slot.label]
    parts = slot.label.split()
    if len(parts) > 1:
        words += [w for w in parts if len(w) >= 4]
    if parts and parts[-1] in ("id", "ids", "number", "code"):
        words.append(" ".join(parts[:-1]) or slot.label)
    words += _ASKED.get(slot.kind, ())
    return list(dict.fromkeys(w for w in words if w))
