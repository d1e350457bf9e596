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
from typing import TYPE_CHECKING, TypeVar

from ..errors import RunInterrupted, SuiteCodeRefused
from ..rundir import RUN_FILE
from ..schema import Case, Suite
from ._config import RunConfig, RunOutcome
from ._suite_setup import resolvable_agent, with_suite_scorers

if TYPE_CHECKING:
    from ..rundir import JournalObserver
    from ._sessions import Schedule

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


def located(path: Path, config: RunConfig, check: Callable[[], T]) -> T:
    """``check()``; code of the suite it refuses is reported as ``file:line: field: message``
    lines (the suite is read again, with line numbers, only then)."""
    try:
        return check()
    except SuiteCodeRefused:
        from ._code_check import refuse_located  # its modules only when code is refused

        refuse_located(
            str(path),
            config.code_policy(),
            agent_given=config.agent is not None,
            judge_given=config.judge is not None,
            user_given=config.user_model is not None,
            user_options={
                k: v for k, v in config.agent_options.items() if k not in config.named_by
            },
        )
        raise


#: case files up to this size are not read again for the run: the cases their checking pass
#: validated are run (≈ 20 µs of parsing and validation a case saved, in the call phase)
KEEP_CASE_FILE_BYTES = 2 * 2**20


def run_suite_file(
    path: Path | str,
    config: RunConfig,
    run_dir: Path | str | None = None,
    *,
    notify: Callable[[str], None] | None = None,
    schedule: Schedule | None = None,
    observer: JournalObserver | None = None,
) -> RunOutcome:
    """Run the suite file or folder ``path`` (blocking); ``run_dir`` None: a new
    ``runs/<suite>-<timestamp>`` (``config.resume``: the run to continue).

    ``notify`` receives warnings (a ``case_filter`` that matches nothing; default: the
    :mod:`warnings` module). Ctrl-C after the run started raises :class:`RunInterrupted`, which
    names the run directory whose finished cases are kept. ``schedule``: a load test's
    (runner/_sessions.py), deciding when each session runs. ``observer`` sees every journal
    line as it is written (``metrics.LiveSummary``: the summary folded during the run).
    """
    from ..suites import open_suite
    from ._gc import call_phase_gc
    from ._suite import SuiteSurvey, run_suite

    path = Path(path)
    if config.suite_path is None:
        config = replace(config, suite_path=str(path.resolve()))
    surveys: list[SuiteSurvey] = []

    def visit(header: Suite) -> Callable[[Case], None]:
        surveys.append(SuiteSurvey(header, config))
        return surveys[0].add

    with call_phase_gc():  # the kept cases survive: no young collection per 700 of them
        streamed = open_suite(path, visit=visit, keep_bytes=KEEP_CASE_FILE_BYTES)
    survey = surveys[0]  # open_suite returns only when the header is valid (visit was called)
    located(path, config, survey.check_tool_functions)
    if config.case_filter and survey.selected == 0:  # a typo would run nothing and pass
        message = f"no case matches --filter {' '.join(config.case_filter)}"
        notify(message) if notify is not None else warnings.warn(message, stacklevel=2)
    suite = streamed.suite
    # the suite's agent is suite code; one a run.json named is checked like it
    located(path, config, lambda: resolvable_agent(suite, config, config.code_policy()))
    if suite.mcp_servers:
        from ._connectors import check_connectors

        located(path, config, lambda: check_connectors(suite, config.code_policy()))
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
            users=survey.users,
            schedule=schedule,
            observer=observer,
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
