"""The workers of a run: they share one lazy iterator of (case, trial) pairs, replay a result
from the cache when they can, otherwise drive the case, and append each result to the
journal."""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import anyio
import anyio.lowlevel

from ..rundir import ResultsWriter
from ..schema import Case, CaseResult
from ._case import CaseContext, run_case
from ._config import RunConfig
from ._gc import call_phase_gc
from ._mcp import case_tool_mode
from ._plan import RunPlan
from ._progress import ProgressReporter
from ._replay import ResultReplay

__all__ = ["Drive", "EncodedResult", "Tally", "error_result", "run_guarded", "run_workers"]


@dataclass(frozen=True, kw_only=True, slots=True)
class EncodedResult:
    """A result already encoded as its journal line (by a remote worker: see
    :func:`agentgauge.io.encode_result`), with what the tally and the replay need."""

    status: str
    model_calls: int
    line: bytes


#: runs one (case, trial) elsewhere (``slot``: which of the run's workers asks) and returns its
#: result; None runs it in this process (the Ray executor plugs in here, runner/_ray.py)
Drive = Callable[[Case, int, int], Awaitable[CaseResult | EncodedResult]]


@dataclass(kw_only=True)
class Tally:
    """What the workers did: pairs run now, of them replayed from the cache, and statuses."""

    ran: int = 0
    replayed: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"passed": 0, "failed": 0, "error": 0})

    def add(self, status: str) -> None:
        self.ran += 1
        self.counts[status] = self.counts.get(status, 0) + 1


async def run_guarded(case: Case, trial: int, ctx: CaseContext) -> CaseResult:
    try:
        return await run_case(case, trial, ctx)
    except Exception as exc:  # a bug in a fake or in agentgauge: record it, keep going
        return error_result(case, trial, f"internal error: {type(exc).__name__}: {exc}")


def enter_suite_folder(cwd: str | None) -> None:
    """In a worker process: work in the run's folder (``cwd``, the parent's), as the one-process
    run does, so that the suite's relative paths and its own modules resolve the same way."""
    if cwd and os.path.isdir(cwd):
        os.chdir(cwd)
        if cwd not in sys.path:
            sys.path.insert(0, cwd)


def error_result(case: Case, trial: int, reason: str) -> CaseResult:
    """The result of a (case, trial) that could not be driven to its end: an error recorded on
    that case, in its slices (category, difficulty, tags), so the rest of the run goes on."""
    return CaseResult(
        case_id=case.id,
        trial=trial,
        status="error",
        error=reason,
        explanation=reason,
        category=case.category,
        difficulty=case.difficulty,
        tags=case.tags,
        labels=case.labels,
    )


class _Workers:
    def __init__(
        self,
        plan: RunPlan,
        ctx: CaseContext,
        config: RunConfig,
        replay: ResultReplay | None,
        writer: ResultsWriter,
        progress: ProgressReporter,
        drive: Drive | None = None,
    ) -> None:
        self.ctx = ctx
        self.drive = drive
        self.config = config
        self.replay = replay
        self.writer = writer
        self.progress = progress
        self.case_json = plan.source.case_json
        self.tally = Tally()
        # The workers share one lazy iterator of (case, trial) pairs: taking the next pair never
        # awaits, so in a single event loop this needs no lock, and at most one pair per worker
        # is ever in flight (a 100,000-case run never makes 100,000 tasks).
        self.pairs = plan.source.pairs(plan.trials, plan.finished.pairs)

    def _key(self, case: Case, trial: int) -> str | None:
        # a real tool call's answer is not fingerprinted: such a case is always driven
        if self.replay is None:
            return None
        if case_tool_mode(case, self.ctx.suite, self.config.tool_mode) != "mock":
            return None
        data = self.case_json.get(id(case)) if self.case_json else None
        return self.replay.key(case, trial, data)

    async def _replayed(self, key: str | None) -> bool:
        """Write the cached result of ``key`` if there is one (no await unless every 256th)."""
        if key is None or self.replay is None:
            return False
        hit = self.replay.get(key)
        if hit is None:
            return False
        # buffered: a kill may lose replayed lines, which a resume replays again
        self.writer.write_line(hit.line, flush=False)
        self.tally.add(hit.status)
        self.tally.replayed += 1
        self.ctx.stats.cache_hits += hit.model_calls
        self.progress.advance(hit.status)
        if self.tally.replayed % 256 == 0:  # let Ctrl-C and the progress bar in
            self.writer.flush()
            await anyio.lowlevel.checkpoint()
        return True

    async def work(self, delay: float, slot: int = 0) -> None:
        for case, trial in self.pairs:
            key = self._key(case, trial)
            if await self._replayed(key):  # a worker replays until it meets a case to run
                continue
            if delay > 0:  # stagger only a worker that has a case to run: others end at once
                await anyio.sleep(delay)
                delay = 0.0
            if self.drive is None:
                result: CaseResult | EncodedResult = await run_guarded(case, trial, self.ctx)
            else:
                result = await self.drive(case, trial, slot)
            if isinstance(result, EncodedResult):
                line = result.line
                self.writer.write_line(line)
            else:
                line = self.writer.write(result)
            if key is not None and self.replay is not None and result.status != "error":
                self.replay.put(key, result.status, result.model_calls, line)
            self.tally.add(result.status)
            self.progress.advance(result.status)


async def run_workers(
    plan: RunPlan,
    ctx: CaseContext,
    config: RunConfig,
    replay: ResultReplay | None,
    writer: ResultsWriter,
    progress: ProgressReporter,
    drive: Drive | None = None,
) -> Tally:
    """Run every pair of ``plan`` with ``plan.workers`` workers; returns the tally.

    ``drive``: where each pair runs (None: here); the results are written here either way."""
    workers = _Workers(plan, ctx, config, replay, writer, progress, drive)
    with call_phase_gc():
        await _start(workers, plan, config)
    return workers.tally


async def _start(workers: _Workers, plan: RunPlan, config: RunConfig) -> None:
    async with anyio.create_task_group() as tg:
        # workers start config.stagger_s apart: started together, N requests would go out
        # and come back together, and every round trip would wait for the whole batch
        # no more workers than (case, trial) pairs to run: --max-concurrency 10**9 on a
        # small suite must not start 10**9 tasks
        todo = plan.todo
        for i in range(plan.workers if todo is None else max(1, min(plan.workers, todo))):
            tg.start_soon(workers.work, i * config.stagger_s, i)
