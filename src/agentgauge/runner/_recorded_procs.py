"""``agentgauge score --workers N``: recorded responses scored in N child processes of this
machine, with the process executor of ``run --workers`` (``_procs.py``: the same children,
frames, start on the first request, and a dead child's work sent to another).

This process reads the responses, keeps the tally and is the only writer of the run
directory. Each child gets the whole suite once (:class:`ScoreSetup`) and then batches of
(case index, trial, response); it scores each with :class:`._recorded_case.RecordedScoring`
exactly as one process does and answers with the journal lines. The lines are written in the
order of the one-process run (suite order, trials in order), so ``results.jsonl`` is the same
file either way.

- A batch whose child died is sent again item by item, each to another child and up to
  :data:`._procs.TASK_RETRIES` more times; an item that kills every child it meets is
  recorded as an error on its case, the others are scored.
- Ctrl-C stops the run as it stops a one-process one: the lines written stay, the children
  are told to go (they ignore the terminal's SIGINT: this process decides).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Final

import anyio
import anyio.abc

from ..exchange import RecordedResponse
from ..rundir import encode_result
from ..schema import Case, Suite
from ..scoring import ScoringConfig
from ._config import RunConfig
from ._procs import TASK_RETRIES, _ProcessDrive, died_reason, process_pool
from ._recorded_case import BATCH, Item, RecordedScoring, suite_world
from ._suite_setup import with_suite_scorers
from ._tools import current_code_policy
from ._workers import enter_suite_folder, error_result

__all__ = ["ScoreSetup", "ScoreWorker", "score_in_processes"]

#: what is written for one item: (the case, its status, its journal line)
Written = Callable[[Case, str, bytes], None]

#: batches in flight per child: it scores one while the next is on its way
_WINDOW_PER_CHILD: Final = 2


@dataclass(frozen=True, kw_only=True)
class ScoreSetup:
    """What a child scores with (it must pickle): the whole suite, the scoring rules decided
    for it, the caller's configuration (before the suite's scorers: the child wires them) with
    the suite-code decision of this process, and this process's working folder."""

    suite: Suite
    scoring: ScoringConfig
    config: RunConfig
    cwd: str

    def make_worker(self) -> ScoreWorker:
        return ScoreWorker(self)

    def __repr__(self) -> str:  # options may hold keys: never shown
        return f"ScoreSetup(suite={self.suite.name!r})"


class ScoreWorker:
    """The child's side: scores the batches it is sent (``_proc_worker.py`` serves it)."""

    def __init__(self, setup: ScoreSetup) -> None:
        self._setup = setup
        enter_suite_folder(setup.cwd)
        self._config: RunConfig | None = None
        self._scoring: RecordedScoring | None = None

    async def ready(self) -> str:
        """The suite's scorers and world built now: a setup error surfaces before any work."""
        setup = self._setup
        policy = setup.config.code_policy()
        token = current_code_policy.set(policy)
        try:
            self._config = config = with_suite_scorers(setup.config, setup.suite)
            self._scoring = RecordedScoring(
                suite=setup.suite,
                scoring=setup.scoring,
                extra=config.extra_scorers,
                world=suite_world(setup.suite, config),
            )
        finally:
            current_code_policy.reset(token)
        return f"{os.getpid()}"

    async def run(
        self, batch: Sequence[tuple[int, int, RecordedResponse | None]], _trial: int = 0
    ) -> list[tuple[str, bytes]]:
        """Each item's (status, journal line), in the batch's order."""
        scoring = self._scoring
        assert scoring is not None
        token = current_code_policy.set(self._setup.config.code_policy())
        try:
            out: list[tuple[str, bytes]] = []
            cases = self._setup.suite.cases
            for index, trial, response in batch:
                result = await scoring.result(cases[index], trial, response)
                out.append((result.status, encode_result(result)))
            return out
        finally:
            current_code_policy.reset(token)

    async def close(self) -> None:
        """Release the judges' sessions."""
        for scorer in self._config.extra_scorers if self._config is not None else ():
            aclose = getattr(scorer, "aclose", None)
            if aclose is not None:
                await aclose()
        self._config = None


@dataclass(eq=False)
class _Batch:
    items: list[Item]
    slot: int
    done: anyio.Event = field(default_factory=anyio.Event)
    lines: list[tuple[str, bytes]] = field(default_factory=list)

    def wire(self, items: Iterable[Item]) -> list[tuple[int, int, RecordedResponse | None]]:
        return [(index, trial, response) for index, _, trial, response in items]

    async def score(self, pool: _ProcessDrive, retries: anyio.Lock) -> None:
        reply, _ = await pool.ask(self.wire(self.items), self.slot, attempts=1)
        if reply is None:  # its child died: each item again, alone, in another child
            reply = []
            for n, item in enumerate(self.items):
                # one item sent again at a time: the one that kills its process (waiting
                # here) never takes an innocent one's next attempt down with it
                async with retries:
                    one, reason = await pool.ask(
                        self.wire([item]), self.slot + 1 + n, attempts=TASK_RETRIES
                    )
                reply.extend(one or [_died(item, reason)])
        elif isinstance(reply, str):  # the child could not score the batch at all
            reply = [_failed(item, reply) for item in self.items]
        self.lines = reply
        self.done.set()


def _died(item: Item, reason: str) -> tuple[str, bytes]:
    return _failed(item, died_reason(reason, TASK_RETRIES + 1))


def _failed(item: Item, reason: str) -> tuple[str, bytes]:
    _, case, trial, _ = item
    return "error", encode_result(error_result(case, trial, reason))


async def score_in_processes(
    setup: ScoreSetup,
    items: Iterator[Item],
    *,
    count: int,
    written: Written,
    flush: Callable[[], None] = lambda: None,
) -> None:
    """Score ``items`` in ``count`` child processes; ``written(case, status, line)`` for each,
    in the order of ``items``, as its batch comes back (then ``flush()``)."""
    window: deque[_Batch] = deque()
    retries = anyio.Lock()

    async def write_oldest() -> None:
        oldest = window.popleft()
        await oldest.done.wait()
        for (_, case, _, _), (status, line) in zip(oldest.items, oldest.lines, strict=True):
            written(case, status, line)
        flush()

    async with (
        process_pool([setup] * count) as pool,
        anyio.create_task_group() as tg,
    ):
        number = 0
        while batch := list(islice(items, BATCH)):
            job = _Batch(batch, number % count)
            number += 1
            window.append(job)
            tg.start_soon(job.score, pool, retries)
            if len(window) >= _WINDOW_PER_CHILD * count:
                await write_oldest()
        while window:
            await write_oldest()
