"""What every run does first with its suite, wherever it runs (a suite file, Python, recorded
responses, a Ray worker, a matrix member): the suite's extra scorers added to the configuration
(``scorers:``, its judge) and the agent spec to resolve, each checked by the suite policy."""

from __future__ import annotations

from dataclasses import replace

from .._suite_code import SuiteCodePolicy
from ..schema import Suite
from ._config import RunConfig

__all__ = ["resolvable_agent", "with_suite_scorers"]


def with_suite_scorers(config: RunConfig, suite: Suite) -> RunConfig:
    """``config`` with the suite's extra scorers (judges, similarity, safety ...) added, once;
    the suite's judges and ``python:`` scorers pass the suite policy first (code, endpoints),
    before anything is imported or built."""
    if not config.suite_scorers:
        return config
    spec = config.judge or suite.defaults.judge  # recorded as written (a resume checks it again)
    if not suite.scorers and not spec:  # no judge module is imported for such a run
        return replace(config, suite_scorers=False)
    from ..judges import JudgeConfig, scorers_for_suite

    jc = JudgeConfig(cache=config.cache, cache_dir=config.cache_dir, seed=config.seed)
    if config.judge_samples is not None:  # --judge-samples: over the suite's and each scorer's
        jc = replace(jc, samples=config.judge_samples)
        suite = _with_judge_samples(suite, config.judge_samples)
    extra = scorers_for_suite(
        suite,
        judge=config.judge,
        config=jc,
        code=config.code_policy(),
        judge_by=config.named_by.get("judge"),
    )
    return replace(
        config,
        extra_scorers=(*config.extra_scorers, *extra),
        judge=spec,
        suite_scorers=False,
        suite_scorer_count=len(extra),
    )


def resolvable_agent(suite: Suite, config: RunConfig, policy: SuiteCodePolicy) -> str:
    """The agent spec to resolve, checked by the suite policy where a file named it: the
    caller's ``agent`` as given (its endpoint checked when a run.json named it or its
    ``base_url``: :attr:`RunConfig.named_by`); the suite's ``defaults.agent`` as suite code (a
    ``python:`` file of the suite's folder, with the opt-in) and by the endpoint rule. Raises
    SuiteCodeRefused; imports nothing."""
    from ._config import DEFAULT_AGENT

    options_by = config.options_named_by()
    if config.agent:
        spec_by = config.named_by.get("agent")
        if spec_by is None and not options_by:
            return config.agent
        policy.check_endpoint(
            config.agent, "agent", spec_by=spec_by, options=config.agent_options,
            options_by=options_by,
        )  # fmt: skip
        return config.agent
    if suite.defaults.agent:
        return policy.check_spec(
            suite.defaults.agent, "agent", options=config.agent_options, options_by=options_by
        )
    return DEFAULT_AGENT


def _with_judge_samples(suite: Suite, samples: int) -> Suite:
    """``suite`` with ``samples`` judgements per question everywhere (defaults and scorers)."""
    return suite.model_copy(
        update={
            "defaults": suite.defaults.model_copy(update={"judge_samples": samples}),
            "scorers": [r.model_copy(update={"judge_samples": None}) for r in suite.scorers],
        }
    )
