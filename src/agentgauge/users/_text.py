"""How a user's words are matched: keywords in the agent's message, values in the user's."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = ["holds_value", "mentions", "short"]


def mentions(text: str, words: Iterable[str]) -> bool:
    """``text`` holds one of ``words`` (case-insensitive substrings)."""
    low = text.casefold()
    return any(w.casefold() in low for w in words)


@lru_cache(maxsize=1024)
def _value_re(value: str) -> re.Pattern[str]:
    # a value stands alone: "A7" is in "order A7." but not in "A77" or "BA7"
    return re.compile(r"(?<![0-9A-Za-z])" + re.escape(value) + r"(?![0-9A-Za-z])", re.IGNORECASE)


def holds_value(text: str, value: str) -> bool:
    """``text`` holds ``value`` as a word of its own (case-insensitive)."""
    return bool(value) and _value_re(value).search(text) is not None


def short(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
