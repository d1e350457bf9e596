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
from ._executor_spec import ExecutorSpec, parse_executor

if TYPE_CHECKING:
    from .._suite_code import SuiteCodePolicy
    from ..providers import Provider
    from ..schema import Suite
    from ._case import CaseContext
    from ._config import RunConfig
    from ._workers import Drive

__all__ = ["ExecutorSpec", "RemoteAgent", "open_drive", "parse_executor"]


@dataclass(frozen=True, kw_only=True)
class RemoteAgent:
    """What a remote worker needs to build the agent itself: the caller's configuration (before
    the suite's scorers were added), the spec to resolve or else the provider object, and the
    suite-code policy the driver decided."""

    config: RunConfig
    policy: SuiteCodePolicy
    spec: str | None = None
    provider: Provider | None = None


def _refuse_real_tools(spec: ExecutorSpec, suite: Suite, ctx: CaseContext) -> None:
    if ctx.tool_connection is None:
        return
    if (ctx.tool_mode or suite.defaults.tool_mode) == "real":
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


@contextlib.asynccontextmanager
async def open_drive(
    spec: ExecutorSpec,
    remote: RemoteAgent,
    suite: Suite,
    ctx: CaseContext,
    *,
    agent: str,
    slots: int,
) -> AsyncIterator[Drive | None]:
    """Where the run's pairs are driven: None for ``local`` (this process), else a Ray drive
    whose workers are stopped when the block ends."""
    if spec.is_local:
        yield None
        return
    _refuse_real_tools(spec, suite, ctx)
    from ..providers import default_cache_dir
    from ._ray import ray_drive
    from ._ray_worker import WorkerSetup

    given = _own_scorers_only(remote.config)
    cache_dir = given.cache_dir or (default_cache_dir() if given.cache else None)
    setup = WorkerSetup(
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
    async with ray_drive(spec, setup, ctx, slots) as drive:
        yield drive
