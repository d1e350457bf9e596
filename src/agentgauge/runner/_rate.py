"""Provider limits around each model call: model calls in flight (a capacity limiter) and model
call starts per second (evenly spaced starts).

``--rate-limit 500/min`` means one start every 0.12 s at the most: each start waits until
``1 / rate`` seconds after the one before it. There is no burst allowance (a token bucket would
let the first N calls of a window go at once; a provider that counts requests per window is
never exceeded by evenly spaced starts, whatever window it counts over).
"""

from __future__ import annotations

import re
import time
from contextlib import AbstractAsyncContextManager
from types import TracebackType

import anyio

from ..errors import UserError

__all__ = ["ModelLimits", "StartSpacer", "parse_rate", "spacing_wait"]

_RATE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*/\s*(s|sec|second|m|min|minute)\s*", re.I)
_WINDOW_S = {"s": 1.0, "sec": 1.0, "second": 1.0, "m": 60.0, "min": 60.0, "minute": 60.0}


def parse_rate(text: str, *, option: str = "--rate-limit") -> float:
    """Model call starts per second of ``N/s`` or ``N/min`` (``500/min``, ``2.5/s``); a
    UserError for anything else, or for a rate that is not positive."""
    match = _RATE.fullmatch(text)
    if match is None:
        raise UserError(f"{option} {text!r}: give a rate as N/s or N/min (e.g. 10/s, 500/min)")
    count = float(match.group(1))
    if count <= 0:
        raise UserError(f"{option} {text!r}: the rate must be more than 0")
    return count / _WINDOW_S[match.group(2).lower()]


def spacing_wait(next_start: float, now: float, interval: float) -> tuple[float, float]:
    """``(wait, next)``: how long a start asked for at ``now`` waits, when the earliest free
    start is ``next_start``, and the earliest start of the one after it."""
    start = max(now, next_start)
    return start - now, start + interval


class StartSpacer:
    """Model call starts at least ``1 / per_s`` seconds apart, first come first served (shared
    by every case of a run in one process)."""

    def __init__(self, per_s: float) -> None:
        self.interval = 1.0 / per_s
        self._next = 0.0

    async def wait(self) -> None:
        """Return at this call's start time (the slot is reserved at once, so a call cancelled
        while waiting leaves its slot empty: the rate is never exceeded)."""
        now = time.monotonic()
        wait, self._next = spacing_wait(self._next, now, self.interval)
        until = now + wait
        while (left := until - time.monotonic()) > 0:
            await anyio.sleep(left)


class ModelLimits:
    """The limits of one model call attempt: a slot of ``slots`` (calls in flight), then the
    start time ``spacer`` gives (inside the slot: a call that waits for a slot cannot start
    together with the one after it)."""

    def __init__(
        self,
        slots: AbstractAsyncContextManager[object] | None,
        spacer: StartSpacer | None,
    ) -> None:
        self._slots = slots
        self._spacer = spacer

    async def __aenter__(self) -> None:
        if self._slots is not None:
            await self._slots.__aenter__()
        try:
            if self._spacer is not None:
                await self._spacer.wait()
        except BaseException as exc:
            if self._slots is not None:
                await self._slots.__aexit__(type(exc), exc, exc.__traceback__)
            raise

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._slots is not None:
            await self._slots.__aexit__(exc_type, exc, tb)
