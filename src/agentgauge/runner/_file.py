"""Running a suite file: the one entry point the CLI, the pytest plugin and Python callers share.

``run_suite_file(path, config, run_dir)`` streams the suite from disk (all of it checked first,
no case kept in memory), checks the suite's code against the policy (a refusal is reported as
``file:line: field: message`` lines), wires the suite's ``scorers:`` in, and runs it.
"""

from __future__ import annotations

import shlex
import warnings
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from .._suite_code import SuiteCodePolicy
from ..errors import RunInterrupted, SuiteCodeRefused
from ..io import RUN_FILE
from ..schema import Case, Suite
from ._config import RunConfig, RunOutcome

__all__ = [
    "default_run_dir",
    "located",
    "resolvable_agent",
    "run_suite_file",
    "with_suite_scorers",
]

T = TypeVar("T")


def default_run_dir(suite_name: str) -> Path:
    """``runs/<suite>-<timestamp>`` (the suite name made safe for a folder name)."""
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "-" for ch in suite_name)
    return Path("runs") / f"{safe}-{stamp}"


def with_suite_scorers(config: RunConfig, suite: Suite) -> RunConfig:
    """``config`` with the suite's extra scorers (judges, similarity, safety ...) added, once;
    the suite's judges and ``python:`` scorers pass the suite policy first (code, endpoints),
    before anything is imported or built."""
    if not config.suite_scorers:
        return config
    from ..judges import JudgeConfig, scorers_for_suite

    spec = config.judge or suite.defaults.judge  # recorded as written (a resume checks it again)
    if not suite.scorers and not spec:
        return replace(config, suite_scorers=False)
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


def located(path: Path, config: RunConfig, check: Callable[[], T]) -> T:
    """``check()``; code of the suite it refuses is reported as ``file:line: field: message``
    lines (the suite is read again, with line numbers, only then)."""
    from ._code_check import refuse_located

    try:
        return check()
    except SuiteCodeRefused:
        refuse_located(
            str(path),
            config.code_policy(),
            agent_given=config.agent is not None,
            judge_given=config.judge is not None,
            user_options={
                k: v for k, v in config.agent_options.items() if k not in config.named_by
            },
        )
        raise


def run_suite_file(
    path: Path | str,
    config: RunConfig,
    run_dir: Path | str | None = None,
    *,
    notify: Callable[[str], None] | None = None,
) -> RunOutcome:
    """Run the suite file or folder ``path`` (blocking); ``run_dir`` None: a new
    ``runs/<suite>-<timestamp>`` (``config.resume``: the run to continue).

    ``notify`` receives warnings (a ``case_filter`` that matches nothing; default: the
    :mod:`warnings` module). Ctrl-C after the run started raises :class:`RunInterrupted`, which
    names the run directory whose finished cases are kept.
    """
    from ..io import open_suite
    from ._suite import SuiteSurvey, run_suite

    path = Path(path)
    if config.suite_path is None:
        config = replace(config, suite_path=str(path.resolve()))
    surveys: list[SuiteSurvey] = []

    def visit(header: Suite) -> Callable[[Case], None]:
        surveys.append(SuiteSurvey(header, config))
        return surveys[0].add

    streamed = open_suite(path, visit=visit)
    survey = surveys[0]  # open_suite returns only when the header is valid (visit was called)
    located(path, config, survey.check_tool_functions)
    if config.case_filter and survey.selected == 0:  # a typo would run nothing and pass
        message = f"no case matches --filter {' '.join(config.case_filter)}"
        notify(message) if notify is not None else warnings.warn(message, stacklevel=2)
    suite = streamed.suite
    # the suite's agent is suite code; one a run.json named is checked like it
    located(path, config, lambda: resolvable_agent(suite, config, config.code_policy()))
    config = located(path, config, lambda: with_suite_scorers(config, suite))
    out_dir = Path(run_dir) if run_dir is not None else default_run_dir(suite.name)
    try:
        return run_suite(
            suite,
            config,
            out_dir,
            cases=streamed.iter_cases(),
            case_count=survey.selected,
            suite_hash=survey.suite_hash,
        )
    except KeyboardInterrupt:
        # every finished case is already in the journal: say how to go on
        if (out_dir / RUN_FILE).exists():
            raise RunInterrupted(
                out_dir,
                f"interrupted: finished cases are kept in {out_dir}; continue with "
                f"agentgauge run --resume {shlex.quote(str(out_dir))}",
            ) from None
        raise
