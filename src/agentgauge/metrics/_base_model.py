"""The two value shapes every metric is written in: a rate and a mean, with their intervals."""

from __future__ import annotations

from ..schema import Model

__all__ = ["Mean", "Rate"]


class Rate(Model):
    """``passed`` out of ``n``, with a Wilson interval. ``skipped`` were excluded from ``n``."""

    passed: int = 0
    n: int = 0
    value: float | None = None
    low: float | None = None
    high: float | None = None
    skipped: int = 0


class Mean(Model):
    """A per-case mean with a bootstrap (or, for large slices, normal) interval, and the total."""

    n: int = 0
    mean: float | None = None
    low: float | None = None
    high: float | None = None
    total: float = 0.0
