"""The context every case of a run shares: provider, generation settings, cache keys, limits,
retries, scoring, the suite's tools; and the whole-result replay when it applies."""

from __future__ import annotations

from dataclasses import replace

import anyio

from ..providers import (
    GenerateConfig,
    Provider,
    RequestKeys,
    ResponseCache,
    RetryPolicy,
    default_cache_dir,
)
from ..schema import Suite
from ..worlds import WorldBuilder
from ._case import CaseContext
from ._config import RunConfig
from ._connectors import suite_connectors
from ._loop import RunStats
from ._mcp import RunTools
from ._rate import ModelLimits, StartSpacer
from ._replay import ResultReplay
from ._users import UserFactory

__all__ = ["build_context", "build_replay", "model_limits", "open_cache"]


def open_cache(config: RunConfig) -> ResponseCache | None:
    return ResponseCache(config.cache_dir or default_cache_dir()) if config.cache else None


def _generation(config: RunConfig) -> GenerateConfig:
    # RunConfig.stream and RunConfig.seed win over the same fields of ``generation``
    # (a generation seed of None stays None: the model is not seeded)
    return replace(
        config.generation,
        stream=config.stream,
        seed=None if config.generation.seed is None else config.seed,
    )


def _keys(provider: Provider, generation: GenerateConfig) -> RequestKeys:
    return RequestKeys(
        provider.name,
        str(getattr(provider, "base_url", "") or ""),
        generation,
        # a provider whose answers depend on more than the request (its own prompt
        # template, grammar, weights) names that in ``cache_tag``
        str(getattr(provider, "cache_tag", "") or ""),
    )


def model_limits(config: RunConfig) -> ModelLimits | None:
    """The provider limits of a run in this process: ``provider_concurrency`` (when tighter
    than ``max_concurrency``) and ``rate_limit_per_s``; None when neither applies."""
    limit = config.provider_concurrency
    slots = anyio.CapacityLimiter(limit) if limit and limit < config.max_concurrency else None
    rate = config.rate_limit_per_s
    spacer = StartSpacer(rate) if rate else None
    if slots is None and spacer is None:
        return None
    return ModelLimits(slots, spacer)


def build_context(
    suite: Suite,
    config: RunConfig,
    provider: Provider,
    cache: ResponseCache | None,
    run_tools: RunTools | None,
) -> CaseContext:
    generation = replace(
        _generation(config),
        mcp_servers=suite_connectors(suite, config.code_policy(), provider),
    )
    return CaseContext(
        suite=suite,
        provider=provider,
        generation=generation,
        cache=cache,
        keys=_keys(provider, generation) if cache is not None else None,
        limiter=model_limits(config),
        policy=RetryPolicy(
            retries=config.retries, base_s=config.backoff_base_s, max_s=config.backoff_max_s
        ),
        stats=RunStats(),
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
        world=WorldBuilder(suite.world) if suite.world is not None else None,
        users=UserFactory(
            suite=suite,
            user_model=config.user_model,
            seed=config.seed,
            cache=cache,
            retry=RetryPolicy(
                retries=config.retries, base_s=config.backoff_base_s, max_s=config.backoff_max_s
            ),
            code=config.code_policy(),
            user_model_by=config.named_by.get("user_model"),
        ),
    )


def build_replay(ctx: CaseContext, config: RunConfig) -> ResultReplay | None:
    """Whole-result replay from the cache, when the cache is on, replay is asked for and the
    run's scorers allow it."""
    if ctx.cache is None or not config.replay or ctx.keys is None:
        return None
    if not ResultReplay.applies(ctx.scoring, config.extra_scorers):
        return None
    return ResultReplay(
        ctx.cache,
        suite=ctx.suite,
        keys=ctx.keys,
        generation=ctx.generation,
        scoring=ctx.scoring,
        seed=config.seed,
        max_steps=config.max_steps,
        timeout_s=ctx.timeout_s,
        tool_timeout_s=config.tool_timeout_s,
    )
