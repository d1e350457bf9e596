"""``agentgauge score``: score recorded responses against a suite, without calling any model.

::

    agentgauge score SUITE --responses FILE -o RUN_DIR [--mode default|bfcl] [--judge SPEC]
        [--workers N]

The work is done by :func:`agentgauge.runner.score_responses` (scored as ``run`` scores, with
the suite's ``scorers:``); the command parses flags, writes the summary and prints.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from ..importers import load_suite_any
from ..runner import RunConfig, ScoreOutcome, score_responses
from ._history import history_options, judge_samples_option
from ._options import allow_suite_code_option, allow_suite_endpoints_option, judge_option

__all__ = ["command"]


def _print_outcome(outcome: ScoreOutcome, mode: str, elapsed: float) -> None:
    s = outcome.statuses
    passed, failed, errors = s.get("passed", 0), s.get("failed", 0), s.get("error", 0)
    scored = passed + failed
    # the same definition as `agentgauge report` (errors are left out of the pass rate), plus
    # BFCL's accuracy, where a case without a usable response counts as not passed
    rate = f"{passed / scored:.1%} of {scored} scored" if scored else "–"
    overall = passed / outcome.total if outcome.total else 0.0
    click.echo(
        f"scored {outcome.total} result(s) in {mode} mode: {passed} passed, {failed} failed, "
        f"{errors} error(s) — pass rate {rate}; {overall:.1%} of all {outcome.total} "
        f"({elapsed:.2f}s)"
    )
    width = max((len(c) for c in outcome.categories), default=8)
    for category, (ok, n) in sorted(outcome.categories.items()):
        click.echo(f"  {category:<{width}}  {ok:>5}/{n:<5} {ok / n:6.1%}")
    if outcome.skipped:
        click.echo(f"{outcome.skipped} case(s) without a response left out (--skip-missing)")
    if outcome.undecodable:
        click.echo(f"{outcome.undecodable} response(s) had no decodable call (counted as no call)")
    if outcome.unknown_case_ids:
        shown = ", ".join(outcome.unknown_case_ids[:5])
        more = len(outcome.unknown_case_ids) - 5
        click.echo(
            f"warning: {len(outcome.unknown_case_ids)} response(s) for case ids not in the suite: "
            f"{shown}{f' (+{more} more)' if more > 0 else ''}",
            err=True,
        )
    from ..rundir import RESULTS_FILE

    click.echo(f"results: {outcome.run_dir / RESULTS_FILE}")


def _read_feedback_file(path: Path) -> bytes:
    """The feedback file's bytes, once every line has been checked (within the input limits)."""
    from ..exchange import read_feedback
    from ..files import read_bytes

    if not path.exists():
        from ..errors import UserError

        raise UserError(f"{path}: no such feedback file")
    read_feedback(path)
    return read_bytes(path, str(path))


@click.command(name="score")
@click.argument("suite", type=click.Path(path_type=Path))
@click.option(
    "--responses",
    "-r",
    "responses_file",
    required=True,
    type=click.Path(path_type=Path),
    help="Recorded responses: agentgauge JSONL, a BFCL result file or OTLP/JSON traces.",
)
@click.option(
    "--output", "-o", "run_dir", required=True, type=click.Path(path_type=Path), help="Run folder."
)
@click.option(
    "--mode",
    type=click.Choice(["default", "bfcl"]),
    default="default",
    show_default=True,
    envvar="AGENTGAUGE_SCORING_MODE",
    help="Scoring rules: agentgauge's default, or BFCL's AST checker verdicts.",
)
@click.option("--overwrite", is_flag=True, help="Replace results already in RUN_DIR.")
@click.option(
    "--skip-missing",
    is_flag=True,
    help="Leave out cases with no response (default: record them as errors).",
)
@click.option(
    "--feedback",
    "feedback_file",
    type=click.Path(path_type=Path),
    default=None,
    help="User feedback on the traced conversations (JSONL keyed by trace_id or case_id): "
    "copied to RUN_DIR/feedback.jsonl, the user-satisfaction metric (docs/metrics.md).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    envvar="AGENTGAUGE_WORKERS",
    help="Processes of this machine that score the responses (1: this process alone; "
    "default: the cores other programs leave idle, when the file is big enough to pay, see "
    "docs/bring-your-agent.md). This process stays the only writer of the run directory.",
)
@allow_suite_code_option
@judge_option
@allow_suite_endpoints_option
@judge_samples_option
@history_options
def command(
    suite: Path,
    responses_file: Path,
    run_dir: Path,
    mode: str,
    overwrite: bool,
    skip_missing: bool,
    feedback_file: Path | None,
    workers: int | None,
    allow_suite_code: bool,
    judge: str | None,
    allow_suite_endpoints: bool,
    judge_samples: int | None,
    history: Path | None,
    no_history: bool,
) -> None:
    """Score recorded responses against SUITE (no model calls).

    SUITE is a suite file or folder, or BFCL data (a BFCL_v*_<category>.json question file or a
    folder of them), imported on the fly.
    """
    from ..errors import UserError
    from ..exchange import open_responses
    from ..metrics import finish_run  # start-up: imported with the collector off
    from ..rundir import journal_has_results
    from ..scoring import ScoringConfig
    from . import startup_done

    t0 = time.perf_counter()
    if journal_has_results(run_dir) and not overwrite:
        raise UserError(f"{run_dir}: already holds results.jsonl (use --overwrite or a new folder)")
    # the collector stays off while the suite and the responses' keys are read (objects that
    # live to the end: each collection would walk them all again, a third of reading a large
    # suite), and never walks them afterwards. The file is checked whole here (a bad line is
    # a file:line error before anything is written) and keeps only each response's keys; a
    # case's responses are read again when it is scored (docs/bring-your-agent.md)
    loaded = load_suite_any(suite)
    responses = open_responses(responses_file)
    startup_done()
    feedback = _read_feedback_file(feedback_file) if feedback_file is not None else None
    outcome = score_responses(
        loaded,
        responses,
        run_dir,
        ScoringConfig(mode="bfcl" if mode == "bfcl" else "default"),
        suite_path=suite,
        responses_path=responses_file,
        skip_missing=skip_missing,
        # the suite's own code (python: scorers and judges) runs only with the opt-in
        run_config=RunConfig(
            suite_path=str(suite.resolve()),
            allow_suite_code=allow_suite_code or None,
            judge=judge or None,
            allow_suite_endpoints=allow_suite_endpoints or None,
            judge_samples=judge_samples,
            workers=workers,
        ),
    )
    # the suite's gates are given here so that metrics does not load the suite file again
    from ..schema import Gates

    if feedback is not None:
        from ..exchange import FEEDBACK_FILE

        (run_dir / FEEDBACK_FILE).write_bytes(feedback)
    finish_run(run_dir, gates=loaded.gates or Gates(), record=not no_history, history=history)
    _print_outcome(outcome, mode, time.perf_counter() - t0)
    sys.stdout.flush()
