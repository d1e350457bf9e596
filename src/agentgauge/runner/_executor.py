"""Where a run's case trials execute: ``local`` (this process) or ``ray`` (a Ray cluster).

``--executor`` takes ``local``, ``ray`` (a Ray instance started for the run on this machine, or
the one this process already joined), ``ray:auto`` (the cluster this machine belongs to, as
``ray.init(address="auto")``), ``ray:HOST:PORT`` (a cluster's GCS address) or
``ray://HOST:PORT`` (the Ray client server of a remote cluster). A ``?workers=N&cpus=X`` query
sets how many worker actors the run starts (default: one per CPU of the cluster, at most the
run's concurrency), the CPUs each reserves (default 1), and ``start_timeout=S`` how long the
run waits for its workers to be placed and ready (default 300 s; then a UserError, not a hang).

Parsing imports nothing: Ray is imported only when a run uses it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..errors import UserError
from ._executor_spec import ExecutorSpec, available_cores, parse_executor

if TYPE_CHECKING:
    from .._suite_code import SuiteCodePolicy
    from ..providers import Provider
    from ..schema import Suite
    from ._case import CaseContext
    from ._config import RunConfig
    from ._ray_worker import WorkerSetup
    from ._workers import Drive

__all__ = [
    "AUTO_MIN_PAIRS",
    "AUTO_MIN_SLOTS",
    "ExecutorSpec",
    "RemoteAgent",
    "local_workers",
    "open_drive",
    "parse_executor",
]


@dataclass(frozen=True, kw_only=True)
class RemoteAgent:
    """What a remote worker needs to build the agent itself: the caller's configuration (before
    the suite's scorers were added), the spec to resolve or else the provider object, and the
    suite-code policy the driver decided."""

    config: RunConfig
    policy: SuiteCodePolicy
    spec: str | None = None
    provider: Provider | None = None


def _refuse_real_tools(
    spec: ExecutorSpec, suite: Suite, ctx: CaseContext, *, flag: str | None = None
) -> None:
    if ctx.tool_connection is None:
        return
    if (ctx.tool_mode or suite.defaults.tool_mode) != "real":
        return
    if flag is not None:
        raise UserError(
            f"{flag}: real tool calls to the suite's MCP server (tools_from) run only in one "
            "process (use --tool-mode mock, or --workers 1)"
        )
    raise UserError(
        f"--executor {spec}: real tool calls to the suite's MCP server (tools_from) run only "
        "with --executor local (use --tool-mode mock, or run locally)"
    )


def _own_scorers_only(config: RunConfig) -> RunConfig:
    """``config`` without the scorers the suite's ``scorers:`` added (a worker adds them itself,
    as a local run does); the caller's own extra scorers stay (they must pickle)."""
    if config.suite_scorers or not config.suite_scorer_count:
        return config
    own = tuple(config.extra_scorers)[: len(config.extra_scorers) - config.suite_scorer_count]
    return replace(config, extra_scorers=own, suite_scorers=True, suite_scorer_count=0)


def _setup(remote: RemoteAgent, suite: Suite, agent: str) -> WorkerSetup:
    """What each worker (a Ray actor or a child process) builds its run context from."""
    from ..providers import default_cache_dir
    from ._ray_worker import WorkerSetup

    given = _own_scorers_only(remote.config)
    cache_dir = given.cache_dir or (default_cache_dir() if given.cache else None)
    return WorkerSetup(
        suite=suite.model_copy(update={"cases": []}),
        config=replace(
            given,
            cache_dir=cache_dir,
            allow_suite_code=remote.policy.allowed,
            progress=False,
            resume=False,
        ),
        policy=remote.policy,
        spec=remote.spec,
        provider=remote.provider,
        agent=agent,
        cwd=os.getcwd(),
    )


#: the agents whose cases auto mode spreads over processes: network clients, whose state is a
#: connection pool (a ``python:`` or framework agent may keep state of its own in its process:
#: ``--workers N`` asks for it)
_NETWORK_AGENTS = ("openai", "azure", "anthropic", "gemini", "http", "https")
#: auto mode: at least this many pairs to drive, and this many in flight, per extra process
#: (benchmarks/README.md, "Every core": below them one process is as fast)
AUTO_MIN_PAIRS = 500
AUTO_MIN_SLOTS = 32


def idle_cores() -> int:
    """The cores of :func:`available_cores` that the machine's recent load (the one-minute
    load average, where the system has one) leaves free, at least one."""
    cores = available_cores()
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        return cores
    return max(1, min(cores, int(cores - busy + 0.5)))


def local_workers(
    config: RunConfig, remote: RemoteAgent, ctx: CaseContext, *, slots: int, todo: int | None
) -> int:
    """How many processes drive a local run: ``config.workers`` when given (never more than
    the pairs in flight), else the cores when the run is big and concurrent enough to be
    CPU-bound and nothing ties it to this process (a provider object, real tools, provider
    limits, an agent that is not a network client), counting only the cores other programs
    leave idle: on a busy machine more processes only add their own CPU (benchmarks/README.md,
    "Every core")."""
    if config.workers is not None:
        return max(1, min(config.workers, slots))
    cores = idle_cores()
    spec = remote.spec or ""
    scheme = spec.partition(":")[0]
    if (
        cores < 2
        or remote.provider is not None
        or scheme not in _NETWORK_AGENTS
        or ctx.tool_connection is not None
        or ctx.limiter is not None
        or slots < AUTO_MIN_SLOTS
        or (todo is not None and todo < AUTO_MIN_PAIRS)
    ):
        return 1
    return max(1, min(cores, slots // (AUTO_MIN_SLOTS // 2)))


@contextlib.asynccontextmanager
async def open_drive(
    spec: ExecutorSpec,
    remote: RemoteAgent,
    suite: Suite,
    ctx: CaseContext,
    *,
    agent: str,
    slots: int,
    todo: int | None = None,
) -> AsyncIterator[Drive | None]:
    """Where the run's pairs are driven: None for one local process (this one); else the
    child processes of ``--workers`` or a Ray drive, whose workers are stopped when the block
    ends."""
    if spec.is_local:
        count = local_workers(remote.config, remote, ctx, slots=slots, todo=todo)
        if count <= 1:
            yield None
            return
        _refuse_real_tools(spec, suite, ctx, flag=f"--workers {count}")
        from ._procs import process_drive

        async with process_drive(
            _setup(remote, suite, agent), ctx, count=count, slots=slots
        ) as drive:
            yield drive
        return
    if (remote.config.workers or 1) > 1:
        raise UserError(
            f"--workers {remote.config.workers}: worker processes are for --executor local; "
            f"the Ray executor takes its own (--executor {spec.text.partition('?')[0]}?workers=N)"
        )
    _refuse_real_tools(spec, suite, ctx)
    from ._ray import ray_drive

    async with ray_drive(spec, _setup(remote, suite, agent), ctx, slots) as drive:
        yield drive
