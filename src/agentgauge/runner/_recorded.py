"""Scoring recorded responses: a run whose agent already answered ("bring your own responses").

What ``agentgauge score SUITE --responses FILE -o RUN_DIR`` runs. No model is called; every
response becomes the case's transcript and is scored exactly as ``agentgauge run`` scores a
driven case: the same result building, the same deterministic verdict and the suite's
``scorers:`` section (similarity, numeric grounding, judges ...). The run directory is written
through :mod:`agentgauge.io` (results, ``run.json``); the summary is the caller's (metrics).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import anyio

from .._version import __version__
from ..exchange import RecordedResponse, ResponseSet
from ..rundir import ResultsWriter, run_dir_lock, suite_hash, write_record
from ..schema import Case, JsonValue, RunRecord, Suite
from ..scoring import ScoringConfig
from ._config import RunConfig
from ._executor import idle_cores
from ._file import located
from ._plan import git_fields
from ._recorded_case import BATCH, Item, RecordedScoring, suite_world
from ._suite_setup import with_suite_scorers

__all__ = ["AUTO_MIN_CORES", "AUTO_MIN_PAIRS", "ScoreOutcome", "score_responses", "score_workers"]

_V3_SIMPLE: Final = re.compile(r"^simple_(\d+)$")
#: auto mode: worker processes only with at least this many idle cores, and one per this
#: many (case, trial) pairs. Measured on 2 cores (benchmarks/README.md, "Scoring with worker
#: processes"): two workers were level with one process at 20,000 and 60,000 scoring-heavy
#: responses (the suite's and the responses' reading and the summary stay in this process,
#: ≈ 40 % of it; each worker's start costs ≈ 1 s of CPU, every line crosses a pipe), so on
#: fewer cores one process is the default
AUTO_MIN_CORES: Final = 4
AUTO_MIN_PAIRS: Final = 40_000


@dataclass(frozen=True, kw_only=True)
class ScoreOutcome:
    """What ``score_responses`` did: counts per status and category, and unmatched responses."""

    run_dir: Path
    total: int
    statuses: Mapping[str, int]
    #: category -> (passed, scored)
    categories: Mapping[str, tuple[int, int]]
    #: case ids of responses that match no case in the suite
    unknown_case_ids: Sequence[str] = field(default_factory=list)
    #: responses that could not be decoded into calls (BFCL results), counted as "no call"
    undecodable: int = 0
    #: cases left out because they had no response (``skip_missing``)
    skipped: int = 0


def _matched(suite: Suite, source: ResponseSet) -> tuple[dict[str, str], list[str]]:
    """(suite case id -> the file's case id, where they differ: BFCL v3's ``simple_N`` is v4's
    ``simple_python_N``; the sorted case ids of the file that match no case of the suite)."""
    case_ids = {c.id for c in suite.cases}
    moved: dict[str, str] = {}
    unknown: list[str] = []
    for cid in source.case_ids():
        if cid in case_ids:
            continue
        alias = _V3_SIMPLE.sub(r"simple_python_\1", cid)
        if alias != cid and alias in case_ids and not source.count_of(alias):
            moved[alias] = cid
        else:
            unknown.append(cid)
    return moved, sorted(unknown)


def _options(
    config: ScoringConfig, trials: int, responses_path: Path | None, skipped: int,
    unknown: list[str],
) -> dict[str, JsonValue]:  # fmt: skip
    options: dict[str, JsonValue] = {"mode": config.mode, "trials": trials}
    if responses_path is not None:
        options["responses"] = str(responses_path)
    if skipped:
        options["skipped_without_response"] = skipped
    if unknown:
        options["unknown_case_ids"] = list(unknown[:100])
        options["unknown_case_count"] = len(unknown)
    return options


def score_responses(
    suite: Suite,
    responses: Sequence[RecordedResponse] | ResponseSet,
    run_dir: Path,
    config: ScoringConfig,
    *,
    suite_path: Path | None = None,
    responses_path: Path | None = None,
    skip_missing: bool = False,
    run_config: RunConfig | None = None,
) -> ScoreOutcome:
    """Score recorded responses against ``suite`` and write ``run_dir`` (results, run.json).

    Every case gets one result per trial it has a response for; a case with no response at all
    is recorded with status ``error`` ("no response"), or left out with ``skip_missing``.
    Responses for unknown case ids are reported in the outcome (and in ``run.json``). The
    suite's ``scorers:`` are wired as for a run (``run_config``: their judge cache, suite-code
    opt-in). The run directory is locked as ``agentgauge run`` locks it.

    ``responses``: a list, or a :class:`~agentgauge.exchange.ResponseSet` (what
    :func:`~agentgauge.exchange.open_responses` makes of a file: each case's responses are
    read from it when the case is scored, so memory does not grow with the file).
    """
    run_dir = Path(run_dir)
    if not isinstance(responses, ResponseSet):
        responses = ResponseSet.of(responses)
    with run_dir_lock(run_dir):
        return anyio.run(
            lambda: _score_locked(
                suite, responses, run_dir, config, suite_path, responses_path, skip_missing,
                run_config,
            )
        )  # fmt: skip


async def _score_locked(
    suite: Suite, responses: ResponseSet, run_dir: Path, config: ScoringConfig,
    suite_path: Path | None, responses_path: Path | None, skip_missing: bool,
    run_config: RunConfig | None,
) -> ScoreOutcome:  # fmt: skip
    started = datetime.now(UTC).isoformat(timespec="seconds")
    path = str(suite_path.resolve()) if suite_path is not None else None
    base = run_config or RunConfig(suite_path=path)
    wired = (  # the suite's judges and scorers pass the policy (refusals with file:line)
        located(suite_path, base, lambda: with_suite_scorers(base, suite))
        if suite_path is not None
        else with_suite_scorers(base, suite)
    )
    scoring = config.for_suite(suite)
    moved, unknown = _matched(suite, responses)
    counts = [responses.count_of(moved.get(c.id, c.id)) for c in suite.cases]
    tally = _Tally()
    skipped = sum(not n for n in counts) if skip_missing else 0
    items = _Items(suite, responses, moved, skip_missing)
    todo = sum(n or (not skip_missing) for n in counts)
    count = score_workers(base, todo)
    # built here in either case: a world's class refused is the same one-line error
    one = RecordedScoring(
        suite=suite, scoring=scoring, extra=wired.extra_scorers, world=suite_world(suite, base)
    )
    try:
        with ResultsWriter(run_dir, fresh=True) as writer:
            if count > 1:
                await _in_processes(suite, scoring, base, items, count, writer, tally)
            else:
                for _, case, trial, response in items.each():
                    result = await one.result(case, trial, response)
                    writer.write(result)
                    tally.add(case, result.status)
    finally:
        for scorer in wired.extra_scorers:  # judges hold provider sessions
            aclose = getattr(scorer, "aclose", None)
            if aclose is not None:
                await aclose()
    trials = max(responses.max_trial, 0) + 1
    options = _options(config, trials, responses_path, skipped, unknown)
    if base.judge_samples is not None:
        options["judge_samples"] = base.judge_samples
    commit, dirty = git_fields(path)
    record = RunRecord(
        run_id=run_dir.name,
        suite=suite.name,
        # absolute, as `run` records it: `gate` may run from another folder
        suite_path=path,
        suite_hash=suite_hash(suite),
        agent=f"responses:{responses_path or '-'}",
        judge=wired.judge,
        started_at=started,
        finished_at=datetime.now(UTC).isoformat(timespec="seconds"),
        git_commit=commit,
        git_dirty=dirty,
        agentgauge_version=__version__,
        trials=trials,
        scoring_mode=config.mode,
        case_count=len(suite.cases),
        options=options,
    )
    write_record(run_dir, record)
    return ScoreOutcome(
        run_dir=run_dir,
        total=sum(tally.statuses.values()),
        statuses=dict(tally.statuses),
        categories={k: (v[0], v[1]) for k, v in tally.categories.items()},
        unknown_case_ids=unknown,
        undecodable=items.undecodable,
        skipped=skipped,
    )


def score_workers(config: RunConfig, todo: int) -> int:
    """How many processes score ``todo`` (case, trial) pairs: ``config.workers`` when given
    (never more than the batches), else the cores other programs leave idle when there are at
    least :data:`AUTO_MIN_CORES` of them, one per :data:`AUTO_MIN_PAIRS` pairs."""
    batches = max(1, -(-todo // BATCH))
    if config.workers is not None:
        return max(1, min(config.workers, batches))
    cores = idle_cores()
    if cores < AUTO_MIN_CORES:
        return 1
    return max(1, min(cores, todo // AUTO_MIN_PAIRS, batches))


class _Tally:
    """Results per status, and (passed, scored) per category."""

    def __init__(self) -> None:
        self.statuses: Counter[str] = Counter()
        self.categories: dict[str, list[int]] = {}

    def add(self, case: Case, status: str) -> None:
        self.statuses[status] += 1
        cat = self.categories.setdefault(case.category, [0, 0])
        cat[1] += 1
        cat[0] += status == "passed"


class _Items:
    """Every (case, trial) to score, in suite order and trial order: a case's responses (read
    from the file as the case comes), or the case alone (no response) unless ``skip_missing``;
    ``undecodable`` counts the responses with no decodable call on the way."""

    def __init__(
        self, suite: Suite, source: ResponseSet, moved: Mapping[str, str], skip_missing: bool
    ) -> None:
        self._suite, self._source, self._moved = suite, source, moved
        self._skip_missing = skip_missing
        self.undecodable = 0

    def each(self) -> Iterator[Item]:
        for index, case in enumerate(self._suite.cases):
            recorded = self._source.responses(self._moved.get(case.id, case.id))
            if not recorded:
                if not self._skip_missing:
                    yield index, case, 0, None
                continue
            for response in recorded:
                self.undecodable += bool(response.decode_error)
                yield index, case, response.trial, response


async def _in_processes(
    suite: Suite, scoring: ScoringConfig, base: RunConfig, items: _Items, count: int,
    writer: ResultsWriter, tally: _Tally,
) -> None:  # fmt: skip
    """The items scored in ``count`` worker processes, written here in their order."""
    from ._recorded_procs import ScoreSetup, score_in_processes

    policy = base.code_policy()  # decided once, here, and sent
    setup = ScoreSetup(
        suite=suite,
        scoring=scoring,
        config=replace(base, allow_suite_code=policy.allowed, progress=False),
        cwd=os.getcwd(),
    )

    def written(case: Case, status: str, line: bytes) -> None:
        writer.write_line(line, flush=False)
        tally.add(case, status)

    each = items.each()
    await score_in_processes(setup, each, count=count, written=written, flush=writer.flush)
