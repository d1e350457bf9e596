"""A small price table: US dollars per million input / output tokens, by model name.

Prices change; these are list prices of common models at the time of writing, good enough to
compare runs. An unknown model has no cost (``None``), never a made-up one. Local models
(``local:``, ``mock:``, ``python:``) cost nothing.
"""

from __future__ import annotations

from typing import Final

from ..schema import Usage

#: model name (or dated-name prefix) -> (input, output) USD per 1M tokens
PRICES: Final[dict[str, tuple[float, float]]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o3-mini": (1.10, 4.40),
    "o4-mini": (1.10, 4.40),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-3-5-sonnet": (3.00, 15.00),
    "claude-3-7-sonnet": (3.00, 15.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-opus-4": (15.00, 75.00),
    "gemini-1.5-flash": (0.075, 0.30),
    "gemini-2.0-flash": (0.10, 0.40),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-pro": (1.25, 10.00),
}

#: agents that run on this machine (or are scripted) and cost nothing
FREE_PREFIXES: Final = ("local:", "mock:", "python:")
_by_length = sorted(PRICES, key=len, reverse=True)
_memo: dict[str, tuple[float, float] | None] = {}


def price_for(model: str) -> tuple[float, float] | None:
    """The (input, output) price of ``model``: exact name, else the longest known prefix."""
    if model in _memo:
        return _memo[model]
    if model.startswith(FREE_PREFIXES):
        found: tuple[float, float] | None = (0.0, 0.0)
    else:
        name = model.rpartition(":")[2].rpartition("/")[2]
        found = PRICES.get(name)
        if found is None:
            found = next((PRICES[p] for p in _by_length if name.startswith(p + "-")), None)
    _memo[model] = found
    return found


def cost_usd(model: str, usage: Usage) -> float | None:
    """The cost of one call, or None when the model's price is unknown."""
    price = price_for(model)
    if price is None:
        return None
    return (usage.input_tokens * price[0] + usage.output_tokens * price[1]) / 1_000_000
