"""``compare --judge``: the options and the one call of the pairwise judge comparison
(``agentgauge.judges.compare_pairwise``), kept apart from the compare command itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ._options import progress_factory, progress_options

if TYPE_CHECKING:
    from ..judges import PairwiseComparison

F = TypeVar("F", bound=Callable[..., Any])


def judge_options(fn: F) -> F:
    """The ``--judge`` options of ``compare``."""
    options = [
        click.option(
            "--judge",
            "judge_spec",
            default=None,
            help="Also ask this judge, for each shared case, which final reply is better "
            "(both orders; wins, ties, losses, position bias).",
        ),
        click.option(
            "--judge-cases",
            type=click.Choice(["all", "changed"]),
            default="all",
            show_default=True,
            help="Judge all shared cases, or only those whose verdict changed.",
        ),
        click.option(
            "--judge-limit",
            type=click.IntRange(1),
            default=100,
            show_default=True,
            help="Judge at most this many cases (changed ones first).",
        ),
        click.option(
            "--judge-markdown",
            type=click.Path(dir_okay=False, path_type=Path),
            default=None,
            help="Also write the pairwise result as Markdown (a pull-request comment) here.",
        ),
        click.option(
            "--no-judge-cache", is_flag=True, help="Do not read or write the judge cache."
        ),
        progress_options,
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def judge_runs(
    base_run: Path,
    new_run: Path,
    *,
    judge_spec: str | None,
    judge_cases: str,
    judge_limit: int,
    judge_markdown: Path | None,
    no_judge_cache: bool,
    progress: bool | None = None,
    quiet: bool = False,
) -> PairwiseComparison | None:
    """The pairwise comparison when ``--judge`` is given (None otherwise)."""
    if judge_spec is None:
        if judge_markdown is not None:
            from ..errors import UserError

            raise UserError("--judge-markdown needs --judge SPEC")
        return None
    from ..judges import JudgeConfig, PairwiseConfig, compare_pairwise

    config = PairwiseConfig(
        judge=JudgeConfig(spec=judge_spec, cache=not no_judge_cache),
        scope="changed" if judge_cases == "changed" else "all",
        limit=judge_limit,
    )
    shown = progress_factory(progress, quiet, label="judging", unit="cases")
    result = compare_pairwise(base_run, new_run, config, progress=shown)
    if judge_markdown is not None:
        from ..report import pairwise_markdown

        judge_markdown.write_text(pairwise_markdown(result), encoding="utf-8")
    return result


def echo(result: PairwiseComparison | None) -> None:
    """Print the pairwise comparison under the case-by-case one."""
    if result is None:
        return
    from ..report import pairwise_lines

    click.echo("")
    for line in pairwise_lines(result):
        click.echo(line)


__all__ = ["echo", "judge_options", "judge_runs"]
