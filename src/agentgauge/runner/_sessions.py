"""Sessions on demand: the run's machinery (context, limits, executor, journal) handed to a
caller that decides *when* each (case, trial) runs, instead of the workers' fixed pool.

A load test (``agentgauge load``, :mod:`agentgauge.load`) schedules sessions by a profile:
virtual users back to back, or Poisson arrivals. It passes ``schedule=`` to
:func:`agentgauge.runner.run_suite_file` / :func:`arun_suite`; the run then calls
``await schedule(sessions)`` where it would have started its workers. Every session is a whole
case (turns, tools, world, faults, scoring) driven exactly as ``agentgauge run`` drives it, on the
run's executor (``local`` or Ray), under its provider limits, and appended to ``results.jsonl``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import orjson

from ..schema import Case, CaseResult
from ._workers import Drive, EncodedResult, Tally, run_guarded

if TYPE_CHECKING:
    from ..rundir import ResultsWriter
    from ._case import CaseContext

__all__ = ["Schedule", "SessionResult", "Sessions", "run_schedule"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SessionResult:
    """What one driven session did, as a load test counts it (the full result is in the
    journal): its verdict, error, latency, time to first token, tokens, cost and model calls."""

    case_id: str
    trial: int
    status: str
    error: str | None
    latency_ms: float
    ttft_ms: float | None
    input_tokens: int
    output_tokens: int
    cost_usd: float | None
    model_calls: int
    #: model call attempts beyond the first (retries of 429 / 5xx / connection errors)
    retries: int
    #: False when the agent reported no token usage (the tokens above are unknown, not 0)
    usage_recorded: bool = True

    @classmethod
    def of(cls, result: CaseResult) -> SessionResult:
        return cls(
            case_id=result.case_id,
            trial=result.trial,
            status=result.status,
            error=result.error,
            latency_ms=result.latency_ms,
            ttft_ms=result.ttft_ms,
            input_tokens=result.usage.input_tokens,
            output_tokens=result.usage.output_tokens,
            cost_usd=result.cost_usd,
            model_calls=result.model_calls,
            retries=sum(max(0, e.attempts - 1) for e in result.trace if e.kind == "model"),
            usage_recorded=result.usage_recorded,
        )

    @classmethod
    def of_line(cls, line: bytes) -> SessionResult:
        """From a journal line a remote worker encoded (the fields read as metrics read them)."""
        data = orjson.loads(line)
        usage = data.get("usage") or {}
        trace = data.get("trace") or []
        return cls(
            case_id=str(data.get("case_id", "")),
            trial=int(data.get("trial", 0)),
            status=str(data.get("status", "error")),
            error=data.get("error"),
            latency_ms=float(data.get("latency_ms") or 0.0),
            ttft_ms=data.get("ttft_ms"),
            input_tokens=int(usage.get("input_tokens") or 0),
            output_tokens=int(usage.get("output_tokens") or 0),
            cost_usd=data.get("cost_usd"),
            model_calls=int(data.get("model_calls") or 0),
            retries=sum(
                max(0, int(e.get("attempts") or 1) - 1) for e in trace if e.get("kind") == "model"
            ),
            usage_recorded=data.get("usage_recorded") is not False,
        )


class Sessions:
    """The run as a source of sessions: :attr:`cases` (the run's selected cases, in order),
    :attr:`slots` (how many may be in flight: the run's concurrency, capped by the provider's)
    and :meth:`run`, which drives one (case, trial) and journals it."""

    def __init__(
        self,
        cases: list[Case],
        slots: int,
        ctx: CaseContext,
        writer: ResultsWriter,
        drive: Drive | None,
        tally: Tally,
    ) -> None:
        self.cases = cases
        self.slots = slots
        self.agent = ctx.provider.name
        self._ctx = ctx
        self._writer = writer
        self._drive = drive
        self._tally = tally

    async def run(self, case: Case, trial: int, slot: int = 0) -> SessionResult:
        """Drive ``case`` as trial ``trial`` (``slot``: which of :attr:`slots` asks; a remote
        executor picks its worker by it), append the result to the journal and return what
        it did. A failure of the session is its result (status ``error``), never raised."""
        if self._drive is None:
            result: CaseResult | EncodedResult = await run_guarded(case, trial, self._ctx)
        else:
            result = await self._drive(case, trial, slot)
        if isinstance(result, EncodedResult):
            self._writer.write_line(result.line)
            out = SessionResult.of_line(result.line)
        else:
            self._writer.write(result)
            out = SessionResult.of(result)
        self._tally.add(out.status)
        return out


#: decides when each session runs; the run ends when it returns
Schedule = Callable[[Sessions], Awaitable[None]]


async def run_schedule(
    schedule: Schedule,
    cases: list[Case],
    slots: int,
    ctx: CaseContext,
    writer: ResultsWriter,
    drive: Drive | None,
) -> Tally:
    """Run ``schedule`` over the run's sessions; returns the tally of what it drove."""
    tally = Tally()
    await schedule(Sessions(cases, slots, ctx, writer, drive, tally))
    return tally
