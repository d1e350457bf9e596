"""``agentgauge calibrate``: measure a judge's agreement with human labels, per judge task."""

from __future__ import annotations

from pathlib import Path

import click
import orjson

from .._messages import printable
from ._options import progress_factory, progress_options


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


@click.command(
    "calibrate",
    help="Run a judge on human-labelled examples and report agreement, Cohen's kappa "
    "(weighted kappa for 1-5 tasks) and the confusion matrix per judge task.",
)
@click.option(
    "--labels",
    "labels_path",
    required=True,
    type=click.Path(path_type=Path, dir_okay=False),
    help='JSONL: {"task", "inputs": {...}, "label": ...} per line.',
)
@click.option("--judge", "spec", required=True, envvar="AGENTGAUGE_JUDGE", help="Judge spec.")
@click.option("--task", "tasks", multiple=True, help="Only these judge tasks (repeatable).")
@click.option(
    "--suite",
    "suite_path",
    type=click.Path(path_type=Path),
    help="The suite whose rubrics (scorer: rubric) the labels' 'rubric:NAME' tasks name.",
)
@click.option(
    "--samples",
    default=1,
    show_default=True,
    type=click.IntRange(1, 25),
    help="Majority vote over N judge samples (1-25).",
)
@click.option(
    "--templates",
    "templates_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Directory of prompt templates that override the shipped ones.",
)
@click.option("--no-cache", is_flag=True, help="Do not read or write the judge cache.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option(
    "--min-kappa",
    default=0.6,
    show_default=True,
    type=click.FloatRange(-1, 1),
    help="Warn for each task whose kappa is below this.",
)
@progress_options
def command(
    labels_path: Path,
    spec: str,
    tasks: tuple[str, ...],
    samples: int,
    templates_dir: Path | None,
    no_cache: bool,
    as_json: bool,
    min_kappa: float,
    suite_path: Path | None,
    progress: bool | None,
    quiet: bool,
) -> None:
    from ..judges import JudgeConfig, calibrate_file

    config = JudgeConfig(
        spec=spec, samples=samples, cache=not no_cache, templates_dir=templates_dir
    )
    shown = progress_factory(progress, quiet, label="calibrating", unit="examples")
    report = calibrate_file(labels_path, config, tasks=tasks, suite=suite_path, progress=shown)
    warnings = report.low_agreement(min_kappa)
    if as_json:
        data = {**report.to_json(), "min_kappa": min_kappa, "warnings": warnings}
        click.echo(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode())
        return
    total = sum(t.n for t in report.tasks)
    agree = sum(sum(h == j for h, j in t.pairs) for t in report.tasks)
    errors = sum(t.errors for t in report.tasks)
    overall = f"{agree / total:.3f}" if total else "n/a"
    # the tasks, labels and examples come from the labels file: shown, never interpreted
    click.echo(
        printable(
            f"judge {report.judge}: {total} examples, overall agreement {overall}"
            + (f", {errors} judge errors" if errors else "")
        )
    )
    for t in report.tasks:
        click.echo("")
        line = f"{t.task}: n={t.n} agreement={_fmt(t.agreement)} kappa={_fmt(t.kappa)}"
        if t.is_ordinal:
            line += f" weighted_kappa={_fmt(t.weighted_kappa)}"
        if t.errors:
            line += f" judge_errors={t.errors}"
        click.echo(printable(line))
        head = "  human \\ judge"
        labels = [printable(x) for x in t.labels]
        first = max(len(head), *(len(x) + 2 for x in labels)) + 2
        width = max(len(x) for x in labels) + 2
        click.echo(head.ljust(first) + "".join(x.rjust(width) for x in labels))
        for label, row in zip(labels, t.confusion(), strict=True):
            click.echo(f"  {label}".ljust(first) + "".join(str(c).rjust(width) for c in row))
        for d in t.disagreements:
            click.echo(printable(f"  disagree {d}"))
        for e in t.error_examples:
            click.echo(printable(f"  error {e}"))
    for w in warnings:
        click.echo(printable(f"warning: {w}"), err=True)
