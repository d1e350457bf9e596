"""``agentgauge review RUN_DIR``: a person grades the planning path of each scored result in the
terminal (docs/metrics.md#module-metrics); the grades go to ``RUN_DIR/reviews.jsonl`` as they
are given, feeding the planning-path metric and ``agentgauge calibrate``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from .._messages import printable

if TYPE_CHECKING:
    from ..metrics import ReviewItem

_HELP = "grade 1-5 (5: the path an expert would take), s to skip, q to stop"


def _show(item: ReviewItem) -> None:
    r = item.result
    click.echo("")
    head = f"[{item.position}/{item.total}] {r.case_id}"
    head += f" (trial {r.trial})" if r.trial else ""
    head += f" · {r.category} · {r.status}"
    click.secho(printable(head), bold=True)
    if item.previous is not None:
        click.echo(f"  graded before: {item.previous}")
    click.echo("request:")
    click.echo(_block(item.question))
    click.echo(printable(f"expected tools: {', '.join(item.expected) or '(none)'}"))
    click.echo("path taken:")
    click.echo(_block(item.plan))
    if item.agent_output:
        click.echo("reply:")
        click.echo(_block(item.agent_output))


def _block(text: str) -> str:
    """Untrusted text (a request, a reply) indented, its own lines kept, each shown: an escape
    sequence in it is written out, never sent to the terminal."""
    return "\n".join("  " + printable(line) for line in text.split("\n"))


def _ask(item: ReviewItem) -> tuple[int, str | None] | None:
    """The reviewer's grade and note for ``item`` (None: skipped; StopIteration: stop)."""
    _show(item)
    while True:
        answer = click.prompt(_HELP, default="s", show_default=False).strip().lower()
        if answer in ("q", "quit"):
            raise StopIteration
        if answer in ("s", "skip", ""):
            return None
        if answer in {"1", "2", "3", "4", "5"}:
            note = click.prompt("note (optional)", default="", show_default=False).strip()
            return int(answer), note or None
        click.echo(f"'{answer}' is not a grade: {_HELP}")


@click.command("review")
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--case", "cases", multiple=True, help="Only this case (repeatable; default: every case)."
)
@click.option("--regrade", is_flag=True, help="Show the results already graded too.")
def command(run_dir: Path, cases: tuple[str, ...], regrade: bool) -> None:
    """Grade the planning path of each scored result of RUN_DIR, 1 to 5.

    Each grade is appended to RUN_DIR/reviews.jsonl at once (stopping keeps what was graded).
    The run's summary then has the planning-path grade (and gate min_planning_grade), and
    `agentgauge calibrate --labels RUN_DIR/reviews.jsonl --task planning_path` measures a judge
    against the same grades.
    """
    from ..metrics import review_run
    from . import startup_done

    startup_done()
    outcome = review_run(run_dir, _ask, cases=cases, regrade=regrade)
    kept = f", {outcome.kept} graded before (--regrade shows them)" if outcome.kept else ""
    click.echo(
        f"\n{outcome.graded} graded, {outcome.skipped} skipped{kept}: {outcome.path}",
    )
