"""Running a whole suite: bounded concurrency, journal, resume, cache and progress."""

from __future__ import annotations

import fnmatch
import hashlib
import time
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import anyio
import anyio.lowlevel

from .._suite_code import SuiteCodePolicy
from .._version import __version__
from ..errors import UserError
from ..io import ResultsWriter
from ..providers import (
    Provider,
    RequestKeys,
    ResponseCache,
    RetryPolicy,
    close_provider,
    default_cache_dir,
    resolve_provider,
)
from ..schema import Case, CaseResult, JsonValue, RunRecord, Suite, ToolSim
from ._case import CaseContext, run_case
from ._config import DEFAULT_AGENT, RunConfig, RunOutcome
from ._journal import (
    Finished,
    journal_has_results,
    read_record,
    run_dir_lock,
    scan_finished,
    write_record,
)
from ._loop import RunStats
from ._mcp import RunTools, case_tool_mode, check_mcp_command, open_run_tools
from ._progress import ProgressReporter
from ._replay import ResultReplay
from ._tools import case_simulations, current_code_policy, load_function


def select_cases(cases: Iterable[Case], config: RunConfig) -> Iterator[Case]:
    """Cases whose id, category or a tag matches a ``case_filter`` glob; at most ``limit``."""
    globs = config.case_filter
    n = 0
    for case in cases:
        if config.limit is not None and n >= config.limit:
            return
        if globs and not _matches(case, globs):
            continue
        n += 1
        yield case


def _matches(case: Case, globs: Iterable[str]) -> bool:
    return any(
        fnmatch.fnmatchcase(case.id, g)
        or fnmatch.fnmatchcase(case.category, g)
        or any(fnmatch.fnmatchcase(t, g) for t in case.tags)
        for g in globs
    )


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _options(config: RunConfig, trials: int, agent_source: str) -> dict[str, JsonValue]:
    """The options recorded in run.json (what ``--resume`` needs; never a secret).

    ``agent_source``: ``suite`` when the agent is the suite's ``defaults.agent`` (a resume takes
    it from the suite again, as suite code), else ``caller``."""
    from ..providers import redact

    base_url = config.agent_options.get("base_url")
    return {
        "trials": trials,
        "max_concurrency": config.max_concurrency,
        "provider_concurrency": config.provider_concurrency,
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
        "agent_source": agent_source,
        "base_url": redact(str(base_url)) if base_url is not None else None,
    }


def effective_concurrency(config: RunConfig, provider: Provider) -> int:
    """Cases run at once: ``max_concurrency``, capped by the provider's own ``max_concurrency``.

    A provider that can only serve one request at a time (an in-process local model) says so
    with ``max_concurrency = 1``; running more cases than that would only make them queue for
    the model and spend their timeout waiting.
    """
    own = getattr(provider, "max_concurrency", None)
    if isinstance(own, int) and own >= 1:
        return min(config.max_concurrency, own)
    return config.max_concurrency


def check_tool_functions(
    suite: Suite, cases: Iterable[Case], policy: SuiteCodePolicy | None = None
) -> None:
    """Check every ``function:`` fake against the suite code policy (``policy`` None: the
    default one of the current folder), then import them: a bad or refused reference is a
    UserError before the run, not the same error on every case. Nothing is imported unless
    every reference passed."""
    refs: dict[str, None] = {}
    sims: list[ToolSim] = [t.simulation for t in suite.tools if t.simulation is not None]
    for case in cases:
        sims.extend(case_simulations(case))
    for sim in sims:
        if sim.function is not None:
            refs[sim.function] = None
    _load_functions(refs, policy or SuiteCodePolicy.for_suite(None))


def _load_functions(refs: Iterable[str], policy: SuiteCodePolicy) -> None:
    refs = list(refs)
    for ref in refs:  # every check first: a refused reference stops the run before any import
        policy.check_function(ref)
    for ref in refs:
        load_function(ref, policy)


def _header_hash(suite: Suite) -> hashlib.blake2b:
    return hashlib.blake2b(suite.model_dump_json(exclude={"cases"}).encode(), digest_size=12)


def _suite_hash(suite: Suite, case_json: dict[int, bytes] | None = None) -> str:
    """A hash of the suite, case by case (never one string of the whole suite).

    ``case_json``, when given, keeps each case's JSON by ``id(case)`` for the replay keys.
    """
    h = _header_hash(suite)
    for case in suite.cases:
        data = case.model_dump_json().encode()
        h.update(data)
        if case_json is not None:
            case_json[id(case)] = data
    return h.hexdigest()


class SuiteSurvey:
    """What a run needs to know about all the cases of a suite it streams (``cases=``),
    gathered one case at a time: the suite hash for ``run.json`` (the same as for the suite held
    in memory), how many cases the run selects, and the ``function:`` fakes to import.

    Feed it the header (``suite``, its ``cases`` may be empty) and then every case with
    :meth:`add` — e.g. as the visitor of :func:`agentgauge.io.open_suite`.
    """

    def __init__(self, suite: Suite, config: RunConfig) -> None:
        self._policy = config.code_policy()
        self._hash = _header_hash(suite)
        self._globs = config.case_filter
        self._limit = config.limit
        self._matched = 0
        self._refs: dict[str, None] = {
            t.simulation.function: None
            for t in suite.tools
            if t.simulation is not None and t.simulation.function is not None
        }

    def add(self, case: Case) -> None:
        self._hash.update(case.model_dump_json().encode())
        if not self._globs or _matches(case, self._globs):
            self._matched += 1
        for sim in case_simulations(case):
            if sim.function is not None:
                self._refs[sim.function] = None

    @property
    def suite_hash(self) -> str:
        return self._hash.hexdigest()

    @property
    def selected(self) -> int:
        """How many cases the run takes (``case_filter`` and ``limit`` applied)."""
        return self._matched if self._limit is None else min(self._matched, self._limit)

    def check_tool_functions(self) -> None:
        """Check every ``function:`` fake seen against the suite code policy, then import them
        (a bad or refused reference is a UserError, raised before anything is imported)."""
        _load_functions(self._refs, self._policy)


_SECRET_PARAMS = frozenset(
    {"api_key", "apikey", "key", "token", "access_token", "secret", "password"}
)


def public_spec(spec: str) -> str:
    """The agent spec as recorded in run.json: secret query parameters dropped, keys redacted.

    ``openai:gpt-4o?api_key=sk-...&api=responses`` is recorded as ``openai:gpt-4o?api=responses``
    (a resumed run reads the key from the environment again).
    """
    from urllib.parse import parse_qsl, urlencode

    from ..providers import redact

    head, sep, query = spec.partition("?")
    if sep:
        kept = [
            (k, v)
            for k, v in parse_qsl(query, keep_blank_values=True)
            if k.replace("-", "_").lower() not in _SECRET_PARAMS
        ]
        spec = head + ("?" + urlencode(kept) if kept else "")
    return redact(spec)


def _agent_spec(suite: Suite, config: RunConfig, provider: Provider | None) -> str:
    if provider is not None:
        return provider.name
    return config.agent or suite.defaults.agent or DEFAULT_AGENT


def _agent_source(suite: Suite, config: RunConfig, agent: str) -> str:
    from_suite = not config.agent and suite.defaults.agent and agent == suite.defaults.agent
    return "suite" if from_suite else "caller"


def _resolvable_agent(suite: Suite, config: RunConfig, policy: SuiteCodePolicy) -> str:
    """The spec to resolve: the caller's own ``agent`` as given; the suite's ``defaults.agent``
    checked as suite code (a ``python:`` file of the suite's folder, with the opt-in)."""
    if config.agent:
        return config.agent
    if suite.defaults.agent:
        return policy.check_spec(suite.defaults.agent, "agent")
    return DEFAULT_AGENT


async def arun_suite(
    suite: Suite,
    config: RunConfig,
    run_dir: Path | str,
    *,
    provider: Provider | None = None,
    cases: Iterable[Case] | None = None,
    case_count: int | None = None,
    suite_hash: str | None = None,
) -> RunOutcome:
    """Run every case of ``suite`` (× trials) and append each result to ``run_dir/results.jsonl``.

    ``provider`` overrides ``config.agent``. ``cases`` (an iterable, consumed lazily) replaces
    ``suite.cases`` for very large runs that should not hold every case in memory; with it,
    ``case_count`` (how many cases the run selects from it, for the progress bar and
    ``run.json``) and ``suite_hash`` may be given (see :class:`SuiteSurvey`).
    A failing case is recorded with status ``error``; it never stops the run.
    """
    run_dir = Path(run_dir)
    t0 = time.perf_counter()
    agent = _agent_spec(suite, config, provider)
    policy = config.code_policy()
    # the suite's code is checked (agent first, then every fake) before any of it is imported
    spec = _resolvable_agent(suite, config, policy) if provider is None else agent
    check_tool_functions(suite, select_cases(suite.cases, config) if cases is None else (), policy)
    if suite.tools_from is not None:  # a suite's MCP command is a program it makes you run
        check_mcp_command(suite.tools_from.mcp, policy)
    owns_provider = provider is None
    if provider is None:
        provider = resolve_provider(spec, **dict(config.agent_options))
    token = current_code_policy.set(policy)
    try:
        async with open_run_tools(suite, policy) as run_tools:
            with run_dir_lock(run_dir):
                return await _run(
                    run_tools.suite,
                    config,
                    run_dir,
                    provider,
                    agent,
                    cases,
                    t0,
                    case_count,
                    suite_hash,
                    run_tools=run_tools,
                )
    finally:
        current_code_policy.reset(token)
        if owns_provider:
            await close_provider(provider)
        for scorer in config.extra_scorers:  # judges hold provider sessions too
            aclose = getattr(scorer, "aclose", None)
            if aclose is not None:
                await aclose()


async def _run(
    suite: Suite,
    config: RunConfig,
    run_dir: Path,
    provider: Provider,
    agent: str,
    cases: Iterable[Case] | None,
    t0: float,
    streamed_count: int | None = None,
    streamed_hash: str | None = None,
    *,
    run_tools: RunTools | None = None,
) -> RunOutcome:
    trials = config.trials or suite.defaults.trials
    if trials < 1:
        raise UserError(f"--trials must be at least 1, got {trials}")
    if config.max_concurrency < 1:
        raise UserError(f"--max-concurrency must be at least 1, got {config.max_concurrency}")
    if config.timeout_s is not None and not config.timeout_s > 0:  # also NaN
        raise UserError(f"--timeout must be a positive number of seconds, got {config.timeout_s}")

    finished = Finished()
    previous: RunRecord | None = None
    if config.resume:
        finished = scan_finished(run_dir)
        if (run_dir / "run.json").exists():
            previous = read_record(run_dir)
    elif journal_has_results(run_dir):
        raise UserError(
            f"{run_dir} already holds results: use --resume {run_dir} to continue it, "
            "or choose another output directory"
        )

    workers = effective_concurrency(config, provider)
    selected: Iterable[Case]
    if cases is None:
        selected = list(select_cases(suite.cases, config))
        case_count: int | None = len(selected)
    else:
        selected = select_cases(cases, config)
        case_count = streamed_count
    # the JSON of every case, kept while the suite hash makes it, is what replay keys hash
    case_json: dict[int, bytes] | None = (
        {} if config.cache and config.replay and cases is None else None
    )
    suite_hash = _suite_hash(suite, case_json) if cases is None else streamed_hash
    if (
        previous is not None
        and finished.pairs
        and previous.suite_hash
        and suite_hash
        and suite_hash != previous.suite_hash
    ):
        raise UserError(
            f"{run_dir}: the suite has changed since this run started (suite "
            f"'{previous.suite}', hash {previous.suite_hash}; now '{suite.name}', {suite_hash}); "
            "resuming would mix results of two suites: start a new run"
        )
    record = RunRecord(
        run_id=previous.run_id if previous else uuid.uuid4().hex[:12],
        suite=suite.name,
        suite_path=config.suite_path or (previous.suite_path if previous else None),
        suite_hash=suite_hash,
        agent=public_spec(agent),
        judge=config.judge or (previous.judge if previous else None),
        started_at=previous.started_at if previous else _now(),
        agentgauge_version=__version__,
        trials=trials,
        max_concurrency=workers,
        scoring_mode=config.scoring.mode,
        case_count=case_count or 0,
        options=_options(config, trials, _agent_source(suite, config, agent)),
    )
    # the mode of every case without its own tool_mode, and --tool-mode (for --resume)
    record.options["tool_mode"] = config.tool_mode or suite.defaults.tool_mode
    record.options["tool_mode_override"] = config.tool_mode
    if run_tools is not None and run_tools.load is not None:
        record.options["tool_source"] = run_tools.load
    write_record(run_dir, record)

    cache: ResponseCache | None = None
    if config.cache:
        cache = ResponseCache(config.cache_dir or default_cache_dir())
    stats = RunStats()
    # RunConfig.stream and RunConfig.seed win over the same fields of ``generation``
    # (a generation seed of None stays None: the model is not seeded)
    generation = replace(
        config.generation,
        stream=config.stream,
        seed=None if config.generation.seed is None else config.seed,
    )
    ctx = CaseContext(
        suite=suite,
        provider=provider,
        generation=generation,
        cache=cache,
        keys=(
            RequestKeys(
                provider.name,
                str(getattr(provider, "base_url", "") or ""),
                generation,
                # a provider whose answers depend on more than the request (its own prompt
                # template, grammar, weights) names that in ``cache_tag``
                str(getattr(provider, "cache_tag", "") or ""),
            )
            if cache is not None
            else None
        ),
        limiter=(
            anyio.CapacityLimiter(config.provider_concurrency)
            if config.provider_concurrency and config.provider_concurrency < config.max_concurrency
            else None
        ),
        policy=RetryPolicy(
            retries=config.retries, base_s=config.backoff_base_s, max_s=config.backoff_max_s
        ),
        stats=stats,
        seed=config.seed,
        timeout_s=config.timeout_s or suite.defaults.timeout_s,
        tool_timeout_s=config.tool_timeout_s,
        max_steps=config.max_steps,
        scoring=config.scoring.for_suite(suite),
        extra_scorers=config.extra_scorers,
        tool_map=suite.tool_map(),
        tool_defaults={t.name: t.simulation for t in suite.tools},
        tool_connection=run_tools.connection if run_tools is not None else None,
        tool_mode=config.tool_mode,
    )
    replay: ResultReplay | None = None
    if (
        cache is not None
        and config.replay
        and ctx.keys is not None
        and ResultReplay.applies(ctx.scoring, config.extra_scorers)
    ):
        replay = ResultReplay(
            cache,
            suite=suite,
            keys=ctx.keys,
            generation=generation,
            scoring=ctx.scoring,
            seed=config.seed,
            max_steps=config.max_steps,
            timeout_s=ctx.timeout_s,
            tool_timeout_s=config.tool_timeout_s,
        )
    total = case_count * trials - len(finished.pairs) if case_count is not None else None
    progress = ProgressReporter(total, enabled=config.progress)
    counts = {"passed": 0, "failed": 0, "error": 0}
    ran = 0
    replayed = 0
    writer = ResultsWriter(run_dir, fsync=config.fsync)
    # The workers share one lazy iterator of (case, trial) pairs: taking the next pair never
    # awaits, so in a single event loop this needs no lock, and at most one pair per worker
    # is ever in flight (a 100,000-case run never makes 100,000 tasks).
    pairs = _pairs(selected, trials, finished.pairs)

    async def work(delay: float) -> None:
        nonlocal ran, replayed
        for case, trial in pairs:
            key = None
            # a real tool call's answer is not fingerprinted: such a case is always driven
            if replay is not None and case_tool_mode(case, suite, config.tool_mode) == "mock":
                key = replay.key(case, trial, case_json.get(id(case)) if case_json else None)
            if key is not None and replay is not None:
                hit = replay.get(key)
                if hit is not None:  # no await: a worker replays until it meets a case to run
                    # buffered: a kill may lose replayed lines, which a resume replays again
                    writer.write_line(hit.line, flush=False)
                    ran += 1
                    replayed += 1
                    stats.cache_hits += hit.model_calls
                    counts[hit.status] = counts.get(hit.status, 0) + 1
                    progress.advance(hit.status)
                    if replayed % 256 == 0:  # let Ctrl-C and the progress bar in
                        writer.flush()
                        await anyio.lowlevel.checkpoint()
                    continue
            if delay > 0:  # stagger only a worker that has a case to run: others end at once
                await anyio.sleep(delay)
                delay = 0.0
            result = await _run_guarded(case, trial, ctx)
            line = writer.write(result)
            if key is not None and replay is not None and result.status != "error":
                replay.put(key, result.status, result.model_calls, line)
            ran += 1
            counts[result.status] = counts.get(result.status, 0) + 1
            progress.advance(result.status)

    try:
        async with anyio.create_task_group() as tg:
            # workers start config.stagger_s apart: started together, N requests would go out
            # and come back together, and every round trip would wait for the whole batch
            # no more workers than (case, trial) pairs to run: --max-concurrency 10**9 on a
            # small suite must not start 10**9 tasks
            todo = None if case_count is None else case_count * trials - len(finished.pairs)
            for i in range(workers if todo is None else max(1, min(workers, todo))):
                tg.start_soon(work, i * config.stagger_s)
    finally:
        writer.close()
        progress.close()
        if cache is not None:
            cache.close()
    record.finished_at = _now()
    if case_count is None:
        record.case_count = ran + len(finished.pairs)
    write_record(run_dir, record)
    return RunOutcome(
        run_dir=run_dir,
        record=record,
        ran=ran,
        resumed=len(finished.pairs),
        passed=counts["passed"] + finished.passed,
        failed=counts["failed"] + finished.failed,
        errors=counts["error"] + finished.errors,
        provider_calls=stats.provider_calls,
        cache_hits=stats.cache_hits,
        wall_s=time.perf_counter() - t0,
        replayed=replayed,
    )


def _pairs(
    cases: Iterable[Case], trials: int, done: set[tuple[str, int]]
) -> Iterator[tuple[Case, int]]:
    for case in cases:
        for trial in range(trials):
            if (case.id, trial) not in done:
                yield case, trial


async def _run_guarded(case: Case, trial: int, ctx: CaseContext) -> CaseResult:
    try:
        return await run_case(case, trial, ctx)
    except Exception as exc:  # a bug in a fake or in agentgauge: record it, keep going
        reason = f"internal error: {type(exc).__name__}: {exc}"
        return CaseResult(
            case_id=case.id,
            trial=trial,
            status="error",
            error=reason,
            explanation=reason,
            category=case.category,
            tags=case.tags,
        )


def run_suite(
    suite: Suite,
    config: RunConfig,
    run_dir: Path | str,
    *,
    provider: Provider | None = None,
    cases: Iterable[Case] | None = None,
    case_count: int | None = None,
    suite_hash: str | None = None,
) -> RunOutcome:
    """Run a suite (blocking): ``anyio.run`` of :func:`arun_suite`."""
    return anyio.run(
        lambda: arun_suite(
            suite,
            config,
            run_dir,
            provider=provider,
            cases=cases,
            case_count=case_count,
            suite_hash=suite_hash,
        )
    )
