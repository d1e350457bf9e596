"""Running a whole suite: bounded concurrency, journal, resume, cache and progress."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio

from .._suite_code import SuiteCodePolicy
from ..errors import MissingExtraError
from ..providers import Provider, close_provider, resolve_provider
from ..rundir import (
    LOCK_FILE,
    RESULTS_FILE,
    RUN_FILE,
    JournalObserver,
    ResultsWriter,
    header_hash,
    journal_has_results,
    run_dir_lock,
)
from ..schema import Case, Suite, ToolSim, UserSimulator, UserSpec, matches_case
from ..worlds import WorldBuilder
from ._config import DEFAULT_AGENT, RunConfig, RunOutcome, public_spec
from ._connectors import refuse_unattachable
from ._context import build_context, build_replay, open_cache
from ._executor import RemoteAgent, open_drive, parse_executor
from ._executor_spec import ExecutorStartError
from ._mcp import RunTools, check_mcp_command, open_run_tools
from ._plan import CaseSource, finish_record, plan_run, select_cases
from ._progress import ProgressReporter
from ._suite_setup import resolvable_agent, with_suite_scorers
from ._tools import case_simulations, current_code_policy, load_function
from ._users import check_user_models, user_simulator
from ._workers import run_workers

if TYPE_CHECKING:
    from ._sessions import Schedule


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


class SuiteSurvey:
    """What a run needs to know about all the cases of a suite it streams (``cases=``),
    gathered one case at a time: the suite hash for ``run.json`` (the same as for the suite held
    in memory), how many cases the run selects, and the ``function:`` fakes to import.

    Feed it the header (``suite``, its ``cases`` may be empty) and then every case with
    :meth:`add` — e.g. as the visitor of :func:`agentgauge.io.open_suite`.
    """

    def __init__(self, suite: Suite, config: RunConfig) -> None:
        self._policy = config.code_policy()
        self._hash = header_hash(suite)
        self._globs = config.case_filter
        self._limit = config.limit
        self._matched = 0
        self._world = suite.world.class_ if suite.world is not None else None
        self._suite = suite
        self._user_model = config.user_model
        self._seed = config.seed
        self._users: dict[tuple[str | None, str | None, int | None], UserSpec] = {}
        self._refs: dict[str, None] = {
            t.simulation.function: None
            for t in suite.tools
            if t.simulation is not None and t.simulation.function is not None
        }

    def add(self, case: Case) -> None:
        self._hash.update(case.model_dump_json().encode())
        if not self._globs or matches_case(case, self._globs):
            self._matched += 1
            user = self._suite.user_for(case)
            if user is not None:  # one of each (kind, model, seed), for run.json
                self._users.setdefault((user.kind, user.model, user.seed), user)
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
        """Check every ``function:`` fake seen (and a Python world's class) against the suite
        code policy, then import them (a bad or refused reference is a UserError, raised before
        anything is imported)."""
        if self._world is not None:
            self._policy.check_function(self._world, "world class")
        check_user_models(self._users.values(), self._user_model, self._policy)
        _load_functions(self._refs, self._policy)

    @property
    def users(self) -> UserSimulator | None:
        """run.json's ``user_simulator`` of the selected cases (None: none has a user)."""
        if not self._users:
            return None
        return user_simulator(list(self._users.values()), self._user_model, self._seed)


def with_system(suite: Suite, system: str | None) -> Suite:
    """``suite`` with ``system`` as its ``defaults.system`` (None: ``suite`` as it is)."""
    if system is None or system == suite.defaults.system:
        return suite
    return suite.model_copy(
        update={"defaults": suite.defaults.model_copy(update={"system": system})}
    )


def _agent_spec(suite: Suite, config: RunConfig, provider: Provider | None) -> str:
    if provider is not None:
        return provider.name
    return config.agent or suite.defaults.agent or DEFAULT_AGENT


def _remove_stub(run_dir: Path) -> None:
    """Take away the run folder a run made before its executor failed to start, when it holds
    no result (only the files a run writes; anything else keeps the folder)."""
    import contextlib

    if journal_has_results(run_dir):
        return
    for name in (RUN_FILE, RESULTS_FILE, LOCK_FILE):
        with contextlib.suppress(OSError):
            (run_dir / name).unlink()
    with contextlib.suppress(OSError):
        run_dir.rmdir()  # only when empty


def _check_suite_code(
    suite: Suite, config: RunConfig, policy: SuiteCodePolicy, *, streamed: bool
) -> None:
    """Every fake, user model, world class and MCP command of the suite, against the policy."""
    check_tool_functions(suite, () if streamed else select_cases(suite.cases, config), policy)
    if not streamed:  # a streamed suite's users were checked by its SuiteSurvey
        specs = [u for c in select_cases(suite.cases, config) if (u := suite.user_for(c))]
        check_user_models(specs, config.user_model, policy)
    if suite.world is not None:  # a Python world's class is suite code: checked, then imported
        WorldBuilder(suite.world).load(policy)
    if suite.tools_from is not None:  # a suite's MCP command is a program it makes you run
        check_mcp_command(suite.tools_from.mcp, policy)


async def arun_suite(
    suite: Suite,
    config: RunConfig,
    run_dir: Path | str,
    *,
    provider: Provider | None = None,
    cases: Iterable[Case] | None = None,
    case_count: int | None = None,
    suite_hash: str | None = None,
    users: UserSimulator | None = None,
    schedule: Schedule | None = None,
    observer: JournalObserver | None = None,
) -> RunOutcome:
    """Run every case of ``suite`` (× trials) and append each result to ``run_dir/results.jsonl``.

    ``provider`` overrides ``config.agent``. ``cases`` (an iterable, consumed lazily) replaces
    ``suite.cases`` for very large runs that should not hold every case in memory; with it,
    ``case_count`` (how many cases the run selects from it, for the progress bar and
    ``run.json``), ``suite_hash`` and ``users`` (run.json's ``user_simulator``) may be given
    (see :class:`SuiteSurvey`).
    A failing case is recorded with status ``error``; it never stops the run.
    ``schedule``: a load test's, deciding when each session runs (runner/_sessions.py).
    ``observer`` sees every journal line as it is written (``metrics.LiveSummary``).
    """
    run_dir = Path(run_dir)
    t0 = time.perf_counter()
    parse_executor(config.executor)  # a bad --executor stops the run before anything loads
    agent = _agent_spec(suite, config, provider)
    policy = config.code_policy()
    # the suite's code is checked (agent first, then every fake) before any of it is imported
    spec = resolvable_agent(suite, config, policy) if provider is None else agent
    _check_suite_code(suite, config, policy, streamed=cases is not None)
    # the suite's scorers: section, wired here so every caller gets it (suite code checked);
    # remote workers (--executor ray) wire it themselves from the caller's config
    given = config
    config = with_suite_scorers(config, suite)
    owns_provider = provider is None
    remote = RemoteAgent(
        config=given,
        policy=policy,
        spec=spec if owns_provider else None,
        provider=None if owns_provider else provider,
    )
    if provider is None:
        provider = resolve_provider(spec, **dict(config.agent_options))
    token = current_code_policy.set(policy)
    fresh = not run_dir.exists()
    try:
        # before the run folder: servers the agent cannot attach refuse the run
        refuse_unattachable(suite, provider, config.suite_path)
        async with open_run_tools(suite, policy) as run_tools:
            with run_dir_lock(run_dir):
                merged = run_tools.suite
                source = (
                    CaseSource.in_memory(merged, config)
                    if cases is None
                    else CaseSource.streamed(cases, config, case_count, suite_hash, users)
                )
                # the run's own system prompt (a matrix member's) after the suite hash is made:
                # run.json keeps the hash of the suite file; the replay keys see the override
                merged = with_system(merged, config.system)
                args = (run_dir, provider, agent, source, t0, run_tools, remote, schedule)
                return await _run(merged, config, *args, observer=observer)
    except (ExecutorStartError, MissingExtraError):
        if fresh:  # the executor never started: no stub run folder left behind
            _remove_stub(run_dir)
        raise
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
    source: CaseSource,
    t0: float,
    run_tools: RunTools | None = None,
    remote: RemoteAgent | None = None,
    schedule: Schedule | None = None,
    *,
    observer: JournalObserver | None = None,
) -> RunOutcome:
    executor = parse_executor(config.executor)
    plan = plan_run(
        suite,
        config,
        run_dir,
        source,
        agent=agent,
        public_agent=public_spec(agent),
        workers=effective_concurrency(config, provider),
        tool_source=run_tools.load if run_tools is not None else None,
    )
    cache = open_cache(config)
    ctx = build_context(suite, config, provider, cache, run_tools)
    progress = ProgressReporter(plan.todo, enabled=config.progress)
    writer = ResultsWriter(run_dir, fsync=config.fsync, observer=observer)
    remote = remote or RemoteAgent(config=config, policy=config.code_policy(), provider=provider)
    try:
        async with open_drive(
            executor,
            remote,
            suite,
            ctx,
            agent=public_spec(agent),
            slots=plan.workers,
            todo=plan.todo,
        ) as drive:
            if schedule is None:
                tally = await run_workers(
                    plan, ctx, config, build_replay(ctx, config), writer, progress, drive
                )
            else:  # a load test decides when each session runs (runner/_sessions.py)
                from ._sessions import run_schedule

                cases = list(plan.source.cases)
                tally = await run_schedule(schedule, cases, plan.workers, ctx, writer, drive)
    finally:
        writer.close()
        progress.close()
        if cache is not None:
            cache.close()
    finished = plan.finished
    return RunOutcome(
        run_dir=run_dir,
        record=finish_record(run_dir, plan, tally.ran),
        ran=tally.ran,
        resumed=len(finished.pairs),
        passed=tally.counts["passed"] + finished.passed,
        failed=tally.counts["failed"] + finished.failed,
        errors=tally.counts["error"] + finished.errors,
        provider_calls=ctx.stats.provider_calls,
        cache_hits=ctx.stats.cache_hits,
        wall_s=time.perf_counter() - t0,
        replayed=tally.replayed,
        user_errors=tally.counts.get("user_error", 0),
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
    users: UserSimulator | None = None,
    schedule: Schedule | None = None,
    observer: JournalObserver | None = None,
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
            users=users,
            schedule=schedule,
            observer=observer,
        )
    )
