"""One entry point for every report format (what ``agentgauge report`` calls)."""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from ..errors import UserError

if TYPE_CHECKING:
    from ..metrics import Comparison, GateReport, Summary

ReportFormat = Literal["console", "markdown", "junit", "json", "csv", "html"]
REPORT_FORMATS: tuple[ReportFormat, ...] = ("console", "markdown", "junit", "json", "csv", "html")


def write_report(
    run_dir: Path,
    fmt: ReportFormat,
    out: IO[str],
    *,
    baseline: Path | None = None,
    gates_file: Path | None = None,
    color: bool | None = None,
    width: int | None = None,
    output: Path | None = None,
) -> None:
    """Render the run in ``run_dir`` as ``fmt`` to ``out``.

    ``output``: the file ``out`` writes to; a big run's ``html`` report then puts its case
    details in a directory next to it (``report.html`` -> ``report.d/``).

    ``console``, ``markdown`` and ``html`` include gate verdicts (gates from ``gates_file``, else
    the suite's) and, with ``baseline``, the comparison against that run. ``json`` is the versioned
    summary; ``junit`` and ``csv`` have one entry per case × trial.
    """
    from .._secrets import ScrubbingStream, register_env
    from ..metrics import compare, evaluate_gates, resolve_gates, summarize

    # every format is written through the secret scrubber (a key echoed into a result, a run
    # directory written by an older version)
    register_env()
    if not isinstance(out, ScrubbingStream):
        out = ScrubbingStream(out)  # type: ignore[assignment]
    run_dir = Path(run_dir)
    if fmt not in REPORT_FORMATS:
        raise UserError(f"unknown report format {fmt!r}; choose one of {', '.join(REPORT_FORMATS)}")
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run directory")
    if (run_dir / "matrix.json").is_file():  # many agents: their comparison (report/_matrix.py)
        from ._matrix_write import write_matrix_report

        write_matrix_report(
            run_dir, fmt, out, baseline=baseline, gates_file=gates_file, color=color, width=width
        )
        return
    if fmt == "junit":
        _write_run_junit(run_dir, out)
        return
    if fmt == "csv":
        from ._files import write_csv

        write_csv(run_dir, out)
        return
    gates = resolve_gates(run_dir, gates_file)
    summary = summarize(run_dir, gates=gates)
    if fmt == "json":
        import orjson

        out.write(
            orjson.dumps(summary.model_dump(mode="json"), option=orjson.OPT_INDENT_2).decode()
        )
        out.write("\n")
        return
    comparison = compare(baseline, run_dir) if baseline is not None else None
    from ..metrics import baseline_summary

    report = evaluate_gates(summary, gates, comparison, baseline_summary(gates, baseline))
    if fmt == "html":
        _write_run_html(out, output, run_dir, summary, report, comparison)
        return
    if fmt == "markdown":
        from ._markdown import render_markdown

        out.write(render_markdown(summary, gates=report, comparison=comparison))
        return
    from rich.console import Console

    from ._console import render_console

    console = Console(file=out, force_terminal=color, no_color=color is False, width=width)
    render_console(summary, console, gates=report, comparison=comparison)


def _write_run_junit(run_dir: Path, out: IO[str]) -> None:
    """One run's JUnit XML, with the run's suite, agent, commit and judge as properties."""
    from ..metrics import missing_pairs
    from ..rundir import load_record as load_run
    from ._files import junit_counts, write_junit

    run = load_run(run_dir)
    props: dict[str, str] = {}
    if run is not None:
        props = {"suite": run.suite, "agent": run.agent}
        if run.git_commit:
            props["git_commit"] = run.git_commit
            if run.git_dirty is not None:
                props["git_dirty"] = str(run.git_dirty).lower()
        if run.judge:
            props["judge"] = run.judge
    counts = junit_counts(run_dir)
    for warning in missing_pairs(run, counts.tests):  # an incomplete run says so here too
        props["incomplete"] = warning.removeprefix("incomplete: ")
    write_junit(
        run_dir, out, suite_name=run.suite if run else None, properties=props, counts=counts
    )


def _write_run_html(
    out: IO[str],
    output: Path | None,
    run_dir: Path,
    summary: Summary,
    report: GateReport,
    comparison: Comparison | None,
) -> None:
    """One run's HTML report (with ``output``, a big run's details beside it)."""
    from ..rundir import iter_results
    from ._html import render_html, stream_html

    if output is not None:
        stream_html(
            out,
            Path(output),
            summary,
            iter_results(run_dir),
            gates=report,
            comparison=comparison,
        )
        return
    out.write(render_html(summary, iter_results(run_dir), gates=report, comparison=comparison))
