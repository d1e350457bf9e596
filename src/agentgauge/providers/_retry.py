"""Retrying transient provider errors with exponential backoff and full jitter."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

import anyio

from ..errors import ProviderError

T = TypeVar("T")

#: the longest Retry-After we honour; a server asking for more gets this much
MAX_RETRY_AFTER_S = 120.0


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """How a transient provider error is retried: how many times, the base and the longest wait."""

    retries: int = 2
    base_s: float = 0.5
    max_s: float = 30.0


def is_transient(exc: BaseException) -> bool:
    """Whether retrying may help: 429, 5xx, 408, connection errors and timeouts."""
    if isinstance(exc, ProviderError):
        return exc.transient
    return isinstance(exc, (TimeoutError, ConnectionError))


def backoff_s(attempt: int, policy: RetryPolicy, rng: random.Random, exc: BaseException) -> float:
    """The wait before retry number ``attempt`` (0-based).

    A server's Retry-After wins (capped at :data:`MAX_RETRY_AFTER_S`); otherwise full jitter:
    uniform(0, min(max_s, base_s * 2**attempt)).
    """
    retry_after = exc.retry_after if isinstance(exc, ProviderError) else None
    if retry_after is not None and retry_after >= 0:
        return min(float(retry_after), MAX_RETRY_AFTER_S)
    return rng.uniform(0.0, min(policy.max_s, policy.base_s * (2.0**attempt)))


async def with_retries(
    fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    *,
    rng: random.Random | Callable[[], random.Random],
    sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
) -> tuple[T, int]:
    """Call ``fn`` until it succeeds or fails for good; returns (result, attempts).

    Non-transient errors are raised at once; a transient one is raised after ``retries`` retries.
    The exception raised carries the attempt count in ``attempts``. ``rng`` (or a function
    making it, called only when a retry needs jitter) draws the backoff.
    """
    attempt = 0
    while True:
        try:
            return await fn(), attempt + 1
        except Exception as exc:
            if attempt >= policy.retries or not is_transient(exc):
                exc.attempts = attempt + 1  # type: ignore[attr-defined]
                raise
            source = rng if isinstance(rng, random.Random) else rng()
            await sleep(backoff_s(attempt, policy, source, exc))
            attempt += 1
