"""How a user's words are shown: one line, cut short (matching lives in ``scoring``)."""

from __future__ import annotations

from ..scoring import holds_value, mentions

__all__ = ["holds_value", "mentions", "short"]


def short(text: str, limit: int = 80) -> str:
    """``text`` on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
