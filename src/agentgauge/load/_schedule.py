"""The load scheduler: decides when each session starts, on the run's own machinery.

It is a :data:`agentgauge.runner.Schedule`: the runner calls it with the run's
:class:`~agentgauge.runner.Sessions` (context, provider limits, executor, journal) and it starts
sessions by the plan — virtual users back to back with a think time (closed loop), or Poisson
arrivals at the target rate (open loop) — after an unloaded baseline pass. A monitor task
follows the clock: it moves the number of users to the target, checks each step of a step ramp
against its budget, prints a line per interval, and ends the load phase (duration, session
count, ``--max-cost``, a broken step). Sessions in flight then finish; none is cut off.

An interrupt (Ctrl-C, SIGTERM; or :meth:`LoadSchedule.interrupt`) ends the load phase the same
way: no new session starts, and the sessions in flight get the graceful stop (k6's
``gracefulStop``) to finish; those still running then, or at a second interrupt, are cancelled
and counted. What ran is kept: the journal, and the report with ``stopped_by: interrupted``.
"""

from __future__ import annotations

import math
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import anyio

from ..runner import SessionResult, Sessions
from ..schema import Case
from ._arrivals import poisson_arrivals
from ._cost import estimate_cost
from ._model import CostEstimate, StepStats
from ._plan import LoadPlan
from ._stats import Sample, step_stats, window_stats

__all__ = ["BASELINE_MAX", "GRACEFUL_STOP_S", "LoadSchedule"]

#: cases the unloaded baseline runs at the most (the quality ratio covers those)
BASELINE_MAX = 500
#: seconds the sessions in flight get to finish after an interrupt (k6's gracefulStop default)
GRACEFUL_STOP_S = 30.0


@dataclass
class _User:
    index: int
    retired: bool = False


@dataclass
class LoadState:
    """What the scheduler gathered (read by the report when the run ends)."""

    samples: list[Sample] = field(default_factory=list)
    started: list[float] = field(default_factory=list)
    dropped: list[float] = field(default_factory=list)
    steps: list[StepStats] = field(default_factory=list)
    spent: float = 0.0
    stopped_by: str | None = None
    #: the signal (or reason) of an interrupt, and the sessions it cancelled
    interrupted_by: str | None = None
    cancelled: int = 0
    load_s: float = 0.0
    estimate: CostEstimate | None = None


class LoadSchedule:
    """A load profile's schedule (call it with the run's sessions)."""

    def __init__(
        self,
        plan: LoadPlan,
        *,
        seed: int = 0,
        price: tuple[float, float] | None = None,
        max_cost: float | None = None,
        notify: Callable[[str], None] | None = None,
        model: str = "",
        graceful_stop_s: float = GRACEFUL_STOP_S,
        signals: bool = True,
    ) -> None:
        self.plan = plan
        self.seed = seed
        self.price = price
        self.max_cost = max_cost
        self.notify = notify or (lambda _line: None)
        self.model = model
        self.graceful_stop_s = graceful_stop_s
        #: Ctrl-C and SIGTERM interrupt the schedule (in the main thread, where signals arrive)
        self.signals = signals
        self.state = LoadState()
        self._t0 = 0.0
        self._stopped = anyio.Event()
        #: the scope of the load's sessions (made in the run's loop): an interrupt cancels it
        self._work: anyio.CancelScope | None = None
        self._guard: anyio.abc.TaskGroup | None = None
        self._count = 0
        self._in_flight = 0
        self._trial: dict[str, int] = {}
        self._users: list[_User] = []
        self._recent: list[Sample] = []

    # ------------------------------------------------------------------ the phases

    async def __call__(self, sessions: Sessions) -> None:
        if not sessions.cases:
            self.state.stopped_by = "sessions"
            return
        self._work = anyio.CancelScope()
        async with anyio.create_task_group() as guard:
            self._guard = guard
            if self.signals and threading.current_thread() is threading.main_thread():
                await guard.start(self._watch_signals)
            with self._work:  # cancelled only by an interrupt (a second one, or the grace over)
                if self.state.interrupted_by is None:
                    await self._phases(sessions)
            guard.cancel_scope.cancel()
        self.state.load_s = self._now() if self._t0 else 0.0
        self.state.stopped_by = self.state.stopped_by or "duration"

    async def _phases(self, sessions: Sessions) -> None:
        self._estimate(sessions, before=True)
        if self.plan.baseline:
            await self._baseline(sessions)
            self._baseline_line()
            self._estimate(sessions, before=False)
        if self._over_budget():
            self._stop("max_cost")
        if self._stopped.is_set():  # --max-cost spent, or interrupted, in the baseline
            return
        self._t0 = time.monotonic()
        async with anyio.create_task_group() as tg:
            if self.plan.mode == "open":
                tg.start_soon(self._arrivals, sessions, tg)
            tg.start_soon(self._monitor, sessions, tg)

    # ------------------------------------------------------------------ interrupts

    async def _watch_signals(self, *, task_status: anyio.abc.TaskStatus[None]) -> None:
        """Ctrl-C and SIGTERM call :meth:`interrupt` instead of killing the run."""
        started = False
        try:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as received:
                task_status.started()
                started = True
                async for signum in received:
                    self.interrupt(signal.Signals(signum).name)
        except (NotImplementedError, RuntimeError, ValueError):
            if started:
                raise
            # no signal handlers here (Windows' event loop): Ctrl-C stops the run as it stops
            # agentgauge run (the journal is kept, no report)
            task_status.started()

    def interrupt(self, why: str = "SIGINT") -> None:
        """Stop the load as Ctrl-C does: no new session starts, the sessions in flight get
        :attr:`graceful_stop_s` to finish, then (or at a second call) they are cancelled."""
        if self.state.interrupted_by is not None:
            self.notify(f"interrupted again ({why}): cancelling {self._in_flight} sessions")
            self._cancel()
            return
        self.state.interrupted_by = why
        self.state.stopped_by = "interrupted"
        self._stopped.set()
        self.notify(
            f"interrupted ({why}): no new sessions; waiting up to {self.graceful_stop_s:g} s "
            f"for {self._in_flight} in flight (interrupt again to cancel them)"
        )
        if self._guard is not None:
            self._guard.start_soon(self._grace)

    def _cancel(self) -> None:
        if self._work is not None:
            self._work.cancel()

    async def _grace(self) -> None:
        await anyio.sleep(self.graceful_stop_s)
        self.notify(f"graceful stop over: cancelling {self._in_flight} sessions in flight")
        self._cancel()

    async def _run_one(self, sessions: Sessions, case: Case, slot: int) -> SessionResult:
        """One session, counted in flight while it runs; counted as cancelled when an
        interrupt cuts it off (it then has no result)."""
        self._in_flight += 1
        try:
            return await sessions.run(case, self._next_trial(case), slot)
        except anyio.get_cancelled_exc_class():
            self.state.cancelled += 1
            raise
        finally:
            self._in_flight -= 1

    async def _baseline(self, sessions: Sessions) -> None:
        """Each case once, one at a time: the unloaded pass rate and cost per session."""
        t0 = time.monotonic()
        for case in sessions.cases[:BASELINE_MAX]:
            if self._stopped.is_set():
                return
            start = time.monotonic() - t0
            result = await self._run_one(sessions, case, 0)
            self._record("baseline", start, time.monotonic() - t0, 0.0, None, result)
            if self._over_budget():
                return

    def _baseline_line(self) -> None:
        base = [s for s in self.state.samples if s.phase == "baseline"]
        w = window_stats(base, 0.0, max(1e-9, base[-1].end_s)) if base else None
        if w is None:
            return
        p = w.latency_ms
        latency = f"p50 {p.p50:.0f} ms  p95 {p.p95:.0f} ms" if p is not None else "-"
        rate = f"{w.pass_rate:.1%}" if w.pass_rate is not None else "-"
        self.notify(
            f"baseline (unloaded, one at a time): {w.sessions} sessions  {latency}  "
            f"pass rate {rate}  errors {w.errors}"
        )

    def _estimate(self, sessions: Sessions, *, before: bool) -> None:
        base = [s for s in self.state.samples if s.phase == "baseline"]
        estimate = estimate_cost(
            self.plan, sessions.cases, base, model=self.model, price=self.price
        )
        self.state.estimate = estimate
        cost = f"${estimate.usd:.4f}" if estimate.usd is not None else "unknown (no price)"
        top = f"${estimate.max_usd:.4f}" if estimate.max_usd is not None else "unknown"
        when = "before the run" if before else "after the baseline"
        self.notify(
            f"estimated cost ({when}): {cost} for ~{estimate.expected_sessions:.0f} sessions of "
            f"~{estimate.tokens_per_session:.0f} tokens ({estimate.tokens_from}); at most {top} "
            f"for {estimate.max_sessions} sessions"
        )

    # ------------------------------------------------------------------ bookkeeping

    def _now(self) -> float:
        return time.monotonic() - self._t0

    def _next_trial(self, case: Case) -> int:
        n = self._trial.get(case.id, 0)
        self._trial[case.id] = n + 1
        return n

    def _stop(self, reason: str) -> None:
        if self.state.stopped_by is None:
            self.state.stopped_by = reason
        self._stopped.set()

    def _over_budget(self) -> bool:
        return self.max_cost is not None and self.state.spent >= self.max_cost

    def _claim(self) -> bool:
        """May one more load session start? (No after a stop, the session cap, --max-cost.)"""
        if self._stopped.is_set():
            return False
        if self._count >= self.plan.sessions:
            self._stop("sessions")
            return False
        if self._over_budget():
            self._stop("max_cost")
            return False
        self._count += 1
        return True

    def _record(
        self,
        phase: str,
        start: float,
        end: float,
        target: float,
        step: int | None,
        result: SessionResult,
    ) -> None:
        sample = Sample(phase, start, end, target, step, result, self.price)
        self.state.samples.append(sample)
        if phase == "load":
            self._recent.append(sample)
        cost = sample.cost
        if cost is not None and math.isfinite(cost):
            self.state.spent += cost

    async def _session(self, sessions: Sessions, case: Case, slot: int) -> None:
        start = self._now()
        self.state.started.append(start)
        seg = self.plan.segment_at(start)
        result = await self._run_one(sessions, case, slot % sessions.slots)
        self._record(
            "load",
            start,
            self._now(),
            self.plan.target_at(start),
            seg.step if seg else None,
            result,
        )
        if self._over_budget():
            self._stop("max_cost")

    async def _pause(self, seconds: float) -> None:
        """Sleep ``seconds``, or less when the load phase ends."""
        if seconds > 0:
            with anyio.move_on_after(seconds):
                await self._stopped.wait()

    # ------------------------------------------------------------------ closed loop

    async def _user(self, sessions: Sessions, user: _User) -> None:
        rng = random.Random(f"agentgauge-load/{self.seed}/user/{user.index}")
        cases = sessions.cases
        k = user.index
        low, high = self.plan.think
        while not user.retired and self._claim():
            await self._session(sessions, cases[k % len(cases)], user.index)
            k += 1
            await self._pause(rng.uniform(low, high) if high > 0 else 0.0)

    def _set_users(self, sessions: Sessions, tg: anyio.abc.TaskGroup, want: int) -> None:
        active = [u for u in self._users if not u.retired]
        for user in active[want:]:  # the newest retire first, after their session
            user.retired = True
        for _ in range(want - len(active)):
            user = _User(len(self._users))
            self._users.append(user)
            tg.start_soon(self._user, sessions, user)

    # ------------------------------------------------------------------ open loop

    async def _arrivals(self, sessions: Sessions, tg: anyio.abc.TaskGroup) -> None:
        cases = sessions.cases
        for k, at in enumerate(poisson_arrivals(self.plan.segments, self.seed)):
            await self._pause(at - self._now())
            if self._stopped.is_set():
                return
            if self._in_flight >= self.plan.max_in_flight:
                self.state.dropped.append(at)
                continue
            if not self._claim():
                return
            tg.start_soon(self._session, sessions, cases[k % len(cases)], k)

    # ------------------------------------------------------------------ the clock

    def _tick(self) -> float:
        return max(0.01, min(0.1, self.plan.interval_s / 4))

    async def _monitor(self, sessions: Sessions, tg: anyio.abc.TaskGroup) -> None:
        plan = self.plan
        next_line, next_step = plan.interval_s, 0
        while not self._stopped.is_set():
            t = self._now()
            while plan.is_step and next_step < len(plan.segments):
                if t < plan.segments[next_step].end_s:
                    break
                stats = step_stats(plan, self.state.samples, next_step)
                self.state.steps.append(stats)
                self._step_line(stats)
                next_step += 1
                if not stats.held:
                    self._stop("step_broken")
            if t >= plan.duration_s:
                self._stop("duration")
            if t >= next_line:
                self._interval_line(next_line)
                next_line += plan.interval_s
            if self._stopped.is_set():
                break
            if plan.mode == "closed":
                self._set_users(sessions, tg, round(plan.target_at(t)))
            await self._pause(self._tick())
        for user in self._users:
            user.retired = True

    def _interval_line(self, end: float) -> None:
        recent, self._recent = self._recent, []
        w = window_stats(recent, end - self.plan.interval_s, end) if recent else None
        unit = "users" if self.plan.mode == "closed" else "arrivals/s"
        target = self.plan.target_at(max(0.0, end - self.plan.interval_s / 2))
        if w is None:
            self.notify(f"{end:7.1f}s  {unit} {target:g}  no session ended")
            return
        p95 = f"{w.latency_ms.p95:.0f} ms" if w.latency_ms else "-"
        self.notify(
            f"{end:7.1f}s  {unit} {target:g}  {w.sessions} sessions  p95 {p95}  "
            f"errors {w.errors}  in flight {self._in_flight}"
        )

    def _step_line(self, stats: StepStats) -> None:
        w = stats.window
        p95 = f"{w.latency_ms.p95:.0f} ms" if w.latency_ms else "-"
        rate = f"{w.error_rate:.1%}" if w.error_rate is not None else "-"
        verdict = "held" if stats.held else "broke " + ", ".join(stats.broken_by)
        self.notify(
            f"step {stats.index + 1}: target {stats.target:g}  {w.sessions} sessions  "
            f"p95 {p95}  errors {rate}  {verdict}"
        )
