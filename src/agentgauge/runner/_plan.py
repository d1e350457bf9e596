"""The plan of a run, made before any case runs: the case source (a list held in memory or a
stream from disk, one shape for both), the checked options, what a resume keeps, and the
``run.json`` record."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from .._secrets import public_url
from .._version import __version__
from ..errors import UserError
from ..rundir import (
    Finished,
    journal_has_results,
    load_record,
    scan_finished,
    suite_hash,
    write_record,
)
from ..schema import Case, JsonValue, RunRecord, Suite, UserSimulator
from ._config import RunConfig
from ._users import run_users

if TYPE_CHECKING:
    from ..rundir import Shard

__all__ = [
    "CaseSource",
    "RunPlan",
    "config_hash",
    "finish_record",
    "plan_run",
    "select_cases",
]


def select_cases(cases: Iterable[Case], config: RunConfig) -> Iterable[Case]:
    """Cases whose id, category or a tag matches a ``case_filter`` glob; at most ``limit``."""
    from ..schema import matches_case

    globs = config.case_filter
    n = 0
    for case in cases:
        if config.limit is not None and n >= config.limit:
            return
        if globs and not matches_case(case, globs):
            continue
        n += 1
        yield case


@dataclass(frozen=True, kw_only=True)
class CaseSource:
    """The cases a run takes, held in memory (a list) or streamed (consumed once, lazily).

    ``count`` is how many cases are selected (None: not known before the stream ends);
    ``suite_hash`` the hash recorded in run.json; ``case_json`` each case's JSON by ``id(case)``,
    kept while the hash is made, for the replay keys (in memory only, when replay is on).
    """

    cases: Iterable[Case]
    count: int | None
    suite_hash: str | None
    case_json: dict[int, bytes] | None = None
    #: only the pairs of this shard are run (None: every pair)
    shard: Shard | None = None
    #: the simulated users' identity, for run.json (None: no case has a user)
    users: UserSimulator | None = None

    @classmethod
    def in_memory(cls, suite: Suite, config: RunConfig) -> CaseSource:
        case_json: dict[int, bytes] | None = {} if config.cache and config.replay else None
        hashed = suite_hash(suite, case_json)
        selected = list(select_cases(suite.cases, config))
        return cls(
            cases=selected,
            count=len(selected),
            suite_hash=hashed,
            case_json=case_json,
            shard=config.shard,
            users=run_users(suite, selected, config),
        )

    @classmethod
    def streamed(
        cls,
        cases: Iterable[Case],
        config: RunConfig,
        count: int | None,
        suite_hash: str | None,
        users: UserSimulator | None = None,
    ) -> CaseSource:
        return cls(
            cases=select_cases(cases, config),
            count=count,
            suite_hash=suite_hash,
            shard=config.shard,
            users=users,
        )

    def pairs(self, trials: int, done: set[tuple[str, int]]) -> Iterator[tuple[Case, int]]:
        """The (case, trial) pairs the run takes, lazily: the one place pairs are selected
        (the shard's pairs only, those already finished skipped)."""
        shard = self.shard
        for case in self.cases:
            for trial in range(trials):
                if (case.id, trial) in done:
                    continue
                if shard is None or shard.holds(case.id, trial):
                    yield case, trial

    def pair_count(self, trials: int) -> int | None:
        """How many pairs the run takes (None: a sharded stream, not known before it ends)."""
        if self.count is None:
            return None
        if self.shard is None or self.shard.count == 1:
            return self.count * trials
        if not isinstance(self.cases, list):
            return None
        shard = self.shard
        return sum(shard.holds(c.id, t) for c in self.cases for t in range(trials))


@dataclass(kw_only=True)
class RunPlan:
    """What the workers need to know about the run as a whole."""

    trials: int
    workers: int
    source: CaseSource
    finished: Finished = field(default_factory=Finished)
    record: RunRecord

    @property
    def todo(self) -> int | None:
        """(case, trial) pairs left to run (None: a stream of unknown length)."""
        pairs = self.source.pair_count(self.trials)
        if pairs is None:
            return None
        return pairs - len(self.finished.pairs)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _trials(suite: Suite, config: RunConfig) -> int:
    """The run's trials, after checking the options a caller may give out of range."""
    trials = config.trials or suite.defaults.trials
    if trials < 1:
        raise UserError(f"--trials must be at least 1, got {trials}")
    if config.max_concurrency < 1:
        raise UserError(f"--max-concurrency must be at least 1, got {config.max_concurrency}")
    if config.timeout_s is not None and not config.timeout_s > 0:  # also NaN
        raise UserError(f"--timeout must be a positive number of seconds, got {config.timeout_s}")
    return trials


def _resume_state(config: RunConfig, run_dir: Path) -> tuple[Finished, RunRecord | None]:
    """The pairs a resume keeps and the run's previous record (a new run: nothing)."""
    if config.resume:
        previous = load_record(run_dir)
        return scan_finished(run_dir), previous
    if journal_has_results(run_dir):
        raise UserError(
            f"{run_dir} already holds results: use --resume {run_dir} to continue it, "
            "or choose another output directory"
        )
    return Finished(), None


def _refuse_changed_shard(
    run_dir: Path, config: RunConfig, previous: RunRecord | None, finished: Finished
) -> None:
    if previous is None or not finished.pairs:
        return
    now = str(config.shard) if config.shard else None
    if now != previous.shard:
        raise UserError(
            f"{run_dir}: this run holds shard {previous.shard or 'none (every pair)'}; resuming "
            f"it as shard {now or 'none'} would mix two splits: resume with the same shard"
        )


#: options that change how a run goes, not its results: left out of the configuration hash
_EXECUTION_ONLY = frozenset(
    {"max_concurrency", "provider_concurrency", "rate_limit_per_s", "cache", "replay", "executor"}
)


def config_hash(record: RunRecord) -> str:
    """A hash of what decides a run's results: the suite, the agent, the judge and the options
    (not the shard, concurrency, cache or replay), so every shard of one run shares it."""
    options = {k: v for k, v in record.options.items() if k not in _EXECUTION_ONLY}
    options.pop("agent_source", None)
    data = {
        "suite_hash": record.suite_hash,
        "agent": record.agent,
        "judge": record.judge,
        "trials": record.trials,
        "scoring_mode": record.scoring_mode,
        "options": options,
    }
    if record.user_simulator is not None:  # only then, so other runs' hashes stay as they were
        data["user_simulator"] = record.user_simulator.model_dump(mode="json")
    import orjson

    try:
        blob = orjson.dumps(data, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # an integer beyond 64 bits (e.g. --seed 10**30)
        import json

        blob = json.dumps(data, sort_keys=True).encode()
    return hashlib.blake2b(blob, digest_size=12).hexdigest()


def _refuse_changed_suite(
    run_dir: Path, suite: Suite, previous: RunRecord | None, finished: Finished, now: str | None
) -> None:
    if previous is None or not finished.pairs or not previous.suite_hash or not now:
        return
    if now != previous.suite_hash:
        raise UserError(
            f"{run_dir}: the suite has changed since this run started (suite "
            f"'{previous.suite}', hash {previous.suite_hash}; now '{suite.name}', {now}); "
            "resuming would mix results of two suites: start a new run"
        )


def recorded_options(config: RunConfig, trials: int | None) -> dict[str, JsonValue]:
    """The options of ``config`` as run.json (and a matrix's ``matrix.json``) keeps them: what
    ``--resume`` needs, never a secret (``base_url`` with its password and key-like query values as
    ``***``)."""
    base_url = config.agent_options.get("base_url")
    return {
        "trials": trials,
        "max_concurrency": config.max_concurrency,
        "executor": config.executor,
        "provider_concurrency": config.provider_concurrency,
        "rate_limit_per_s": config.rate_limit_per_s,
        "timeout_s": config.timeout_s,
        "retries": config.retries,
        "max_steps": config.max_steps,
        "cache": config.cache,
        "replay": config.replay,
        "seed": config.seed,
        "stream": config.stream,
        "case_filter": list(config.case_filter),
        "limit": config.limit,
        "mode": config.scoring.mode,
        "base_url": public_url(str(base_url)) if base_url is not None else None,
        # only when given, so the configuration hash of a run without it stays what it was
        **({"judge_samples": config.judge_samples} if config.judge_samples is not None else {}),
        **({"system": config.system} if config.system is not None else {}),
        **({"user_model": config.user_model} if config.user_model is not None else {}),
    }


def _options(config: RunConfig, trials: int, agent_source: str) -> dict[str, JsonValue]:
    """The options recorded in run.json.

    ``agent_source``: ``suite`` when the agent is the suite's ``defaults.agent`` (a resume takes
    it from the suite again, as suite code), else ``caller``."""
    return {**recorded_options(config, trials), "agent_source": agent_source}


def _agent_source(suite: Suite, config: RunConfig, agent: str) -> str:
    from_suite = not config.agent and suite.defaults.agent and agent == suite.defaults.agent
    return "suite" if from_suite else "caller"


def git_fields(suite_path: str | None) -> tuple[str | None, bool | None]:
    """The commit of the suite file's git repository and whether it was dirty (None, None:
    no suite file, or it is in no repository)."""
    from .._git import git_state

    state = git_state(Path(suite_path)) if suite_path else None
    return (state.commit, state.dirty) if state is not None else (None, None)


def _git_fields(
    suite_path: str | None, previous: RunRecord | None
) -> tuple[str | None, bool | None]:
    """A resumed run keeps the commit it started at (as it keeps its start time)."""
    if previous is not None and previous.git_commit:
        return previous.git_commit, previous.git_dirty
    return git_fields(suite_path)


def _record(
    suite: Suite,
    config: RunConfig,
    *,
    agent: str,
    public_agent: str,
    trials: int,
    workers: int,
    source: CaseSource,
    previous: RunRecord | None,
    tool_source: dict[str, JsonValue] | None,
) -> RunRecord:
    commit, dirty = _git_fields(config.suite_path, previous)
    record = RunRecord(
        run_id=previous.run_id if previous else uuid.uuid4().hex[:12],
        suite=suite.name,
        suite_path=config.suite_path or (previous.suite_path if previous else None),
        suite_hash=source.suite_hash,
        agent=public_agent,
        judge=config.judge or (previous.judge if previous else None),
        started_at=previous.started_at if previous else _now(),
        git_commit=commit,
        git_dirty=dirty,
        agentgauge_version=__version__,
        trials=trials,
        max_concurrency=workers,
        scoring_mode=config.scoring.mode,
        case_count=source.count or 0,
        options=_options(config, trials, _agent_source(suite, config, agent)),
    )
    # the mode of every case without its own tool_mode, and --tool-mode (for --resume)
    record.options["tool_mode"] = config.tool_mode or suite.defaults.tool_mode
    record.options["tool_mode_override"] = config.tool_mode
    if tool_source is not None:
        record.options["tool_source"] = tool_source
    record.shard = str(config.shard) if config.shard else None
    record.user_simulator = source.users
    record.config_hash = config_hash(record)
    return record


def plan_run(
    suite: Suite,
    config: RunConfig,
    run_dir: Path,
    source: CaseSource,
    *,
    agent: str,
    public_agent: str,
    workers: int,
    tool_source: dict[str, JsonValue] | None = None,
) -> RunPlan:
    """Check the options, read what a resume keeps, and write the run's ``run.json``."""
    trials = _trials(suite, config)
    finished, previous = _resume_state(config, run_dir)
    _refuse_changed_suite(run_dir, suite, previous, finished, source.suite_hash)
    _refuse_changed_shard(run_dir, config, previous, finished)
    record = _record(
        suite,
        config,
        agent=agent,
        public_agent=public_agent,
        trials=trials,
        workers=workers,
        source=source,
        previous=previous,
        tool_source=tool_source,
    )
    write_record(run_dir, record)
    return RunPlan(trials=trials, workers=workers, source=source, finished=finished, record=record)


def finish_record(run_dir: Path, plan: RunPlan, ran: int) -> RunRecord:
    """Stamp the end of the run (and a stream's case count, now known) into ``run.json``."""
    record = plan.record
    record.finished_at = _now()
    if plan.source.count is None and plan.source.shard is None:
        record.case_count = ran + len(plan.finished.pairs)
    write_record(run_dir, record)
    return record
