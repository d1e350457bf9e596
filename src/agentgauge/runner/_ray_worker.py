"""The worker side of the Ray executor: what crosses to a worker, the worker actor that runs
case trials, and the cluster-wide limits of model calls (in flight, starts per second).

Nothing here imports Ray: :mod:`._ray` turns :class:`CaseWorker` and :class:`SharedLimiter` into
Ray actors when a run asks for them. A worker builds its own run context from a
:class:`WorkerSetup` (it resolves the agent spec itself, opens the response cache, wires the
suite's scorers) and answers one (case, trial) at a time with the case's :class:`WorkerReply`;
the driver writes it to the journal.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
import uuid
from contextvars import ContextVar
from dataclasses import dataclass, replace
from types import TracebackType
from typing import TYPE_CHECKING, Any

import anyio

from .._suite_code import SuiteCodePolicy
from ..providers import Provider, close_provider, resolve_provider
from ..rundir import encode_result
from ..schema import Case, Suite
from ._config import RunConfig
from ._context import build_context, open_cache
from ._loop import RunStats
from ._rate import spacing_wait
from ._suite_setup import with_suite_scorers
from ._tools import current_code_policy
from ._workers import EncodedResult, enter_suite_folder, run_guarded

if TYPE_CHECKING:
    from ..providers import ResponseCache
    from ._case import CaseContext

__all__ = ["CaseWorker", "RemoteSlot", "SharedLimiter", "WorkerReply", "WorkerSetup"]


@dataclass(frozen=True, kw_only=True)
class WorkerSetup:
    """Everything a worker needs to run cases of one run (it must pickle).

    ``config`` is the run's configuration before the suite's scorers were added (each worker
    adds them itself), with the cache folder and the suite-code decision of the driver filled
    in. Exactly one of ``spec`` (resolved on the worker) and ``provider`` (an object the
    caller passed, sent pickled) is set. ``suite`` holds the tools and defaults, not the cases.
    """

    suite: Suite
    config: RunConfig
    policy: SuiteCodePolicy
    spec: str | None = None
    provider: Provider | None = None
    #: the public agent name (for messages; never a secret)
    agent: str
    #: the driver's working folder: a relative ``python:`` path resolves the same way on a
    #: worker of this machine
    cwd: str
    #: the named limiter actor of the run (None: no provider limit tighter than the overall one)
    limiter: str | None = None
    #: which limits that actor holds: slots (model calls in flight), starts per second
    limiter_slots: bool = True
    limiter_rate: bool = False
    namespace: str = "agentgauge"

    def __repr__(self) -> str:  # a spec or options may hold keys: never shown
        return f"WorkerSetup(agent={self.agent!r})"


@dataclass(frozen=True, kw_only=True)
class WorkerReply:
    """One finished (case, trial): its result, encoded as its journal line (bytes pickle far
    cheaper than the model), and the model calls it made or took from the cache."""

    result: EncodedResult
    provider_calls: int
    cache_hits: int


#: the slot the current case holds (one object serves every case of a worker at once: the
#: token of each lives in its own task's context)
_held_token: ContextVar[str | None] = ContextVar("agentgauge_ray_slot", default=None)


class RemoteSlot:
    """A worker's side of the run's :class:`SharedLimiter`: ``async with`` holds one slot
    (``slots``; the cases a worker runs at once share one RemoteSlot, each holding its own
    slot), then waits for the start time the actor gives (``rate``)."""

    def __init__(self, actor: Any, *, slots: bool = True, rate: bool = False) -> None:
        self._actor = actor
        self._slots = slots
        self._rate = rate

    async def __aenter__(self) -> str | None:
        token = uuid.uuid4().hex if self._slots else None
        try:
            if token is not None:
                await self._actor.acquire.remote(token)
            if self._rate:
                # the actor's clock decides; the wait runs here (monotonic on this machine)
                wait: float = await self._actor.start_wait.remote()
                until = time.monotonic() + wait
                while (left := until - time.monotonic()) > 0:
                    await anyio.sleep(left)
        except BaseException:  # cancelled while waiting: a slot granted meanwhile goes back
            if token is not None:
                with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                    await self._actor.release.remote(token)
            raise
        _held_token.set(token)
        return token

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # released even when the case was cancelled (its timeout): a shielded await
        token = _held_token.get()
        _held_token.set(None)
        if token is None:
            return
        with anyio.CancelScope(shield=True):
            await self._actor.release.remote(token)


class SharedLimiter:
    """At most ``limit`` model calls in flight across every worker of a run (a Ray actor), and
    model call starts at least ``1 / per_s`` seconds apart across them (``per_s``).

    A slot is a lease: one held by a worker that died is taken back after ``lease_s`` (the
    case timeout and a margin), so a killed worker cannot shrink the limit for good.
    """

    def __init__(self, limit: int, lease_s: float, per_s: float | None = None) -> None:
        self._limit = max(1, limit)
        self._lease_s = lease_s
        self._held: dict[str, float] = {}
        self._cond: asyncio.Condition | None = None
        self._peak = 0
        self._interval = 1.0 / per_s if per_s else 0.0
        self._next_start = 0.0

    async def start_wait(self) -> float:
        """Seconds the caller waits before its model call starts (its start is reserved now:
        every worker's starts are spaced by the one clock of this actor)."""
        wait, self._next_start = spacing_wait(self._next_start, time.monotonic(), self._interval)
        return wait

    def _free(self) -> bool:
        now = time.monotonic()
        for token in [t for t, until in self._held.items() if until <= now]:
            del self._held[token]
        return len(self._held) < self._limit

    async def acquire(self, token: str) -> None:
        if self._cond is None:
            self._cond = asyncio.Condition()
        async with self._cond:
            while not self._free():
                wait = max(0.01, min(self._held.values()) - time.monotonic())
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._cond.wait(), wait)
            self._held[token] = time.monotonic() + self._lease_s
            self._peak = max(self._peak, len(self._held))

    async def release(self, token: str) -> None:
        if self._cond is None:
            self._cond = asyncio.Condition()
        async with self._cond:
            self._held.pop(token, None)
            self._cond.notify()

    def peak(self) -> int:
        """The most slots ever held at once."""
        return self._peak


class CaseWorker:
    """Runs case trials of one run on a Ray worker (an async actor: several at once)."""

    def __init__(self, setup: WorkerSetup) -> None:
        self._setup = setup
        enter_suite_folder(setup.cwd)
        self._ctx: CaseContext | None = None
        self._provider: Provider | None = None
        self._cache: ResponseCache | None = None
        self._config: RunConfig | None = None

    def __repr__(self) -> str:
        return f"CaseWorker({self._setup.agent})"

    def _context(self) -> CaseContext:
        """The worker's run context, built on first use (also after the actor restarted)."""
        if self._ctx is not None:
            return self._ctx
        setup = self._setup
        if setup.provider is not None:
            provider = setup.provider
        else:
            assert setup.spec is not None
            provider = resolve_provider(setup.spec, **dict(setup.config.agent_options))
        self._provider = provider
        config = with_suite_scorers(setup.config, setup.suite)
        self._config = config
        self._cache = open_cache(config)
        ctx = build_context(setup.suite, config, provider, self._cache, None)
        limiter: RemoteSlot | None = None
        if setup.limiter is not None:
            import ray

            limiter = RemoteSlot(
                ray.get_actor(setup.limiter, namespace=setup.namespace),
                slots=setup.limiter_slots,
                rate=setup.limiter_rate,
            )
        self._ctx = replace(ctx, limiter=limiter)
        return self._ctx

    async def ready(self) -> str:
        """Build the context now (a setup error surfaces before any case is sent)."""
        token = current_code_policy.set(self._setup.policy)
        try:
            self._context()
        finally:
            current_code_policy.reset(token)
        return f"{os.getpid()}"

    async def run(self, case: Case, trial: int) -> WorkerReply:
        token = current_code_policy.set(self._setup.policy)
        try:
            stats = RunStats()  # this case's own counters (other cases run at the same time)
            ctx = replace(self._context(), stats=stats)
            result = await run_guarded(case, trial, ctx)
        finally:
            current_code_policy.reset(token)
        encoded = EncodedResult(
            status=result.status, model_calls=result.model_calls, line=encode_result(result)
        )
        return WorkerReply(
            result=encoded, provider_calls=stats.provider_calls, cache_hits=stats.cache_hits
        )

    async def close(self) -> None:
        """Commit the cache and release the provider's and judges' sessions."""
        if self._cache is not None:
            self._cache.close()
            self._cache = None
        if self._provider is not None:
            await close_provider(self._provider)
            self._provider = None
        for scorer in self._config.extra_scorers if self._config is not None else ():
            aclose = getattr(scorer, "aclose", None)
            if aclose is not None:
                await aclose()
        self._ctx = None
