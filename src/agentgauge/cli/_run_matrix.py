"""``agentgauge run`` with many agents: ``--agent A --agent B`` or a suite's ``matrix:``.

Each member is finished as a single run is (summary.json, the run history, its console
summary, its gates), then the comparison is written (comparison.json, comparison.md,
junit.xml, the dashboard) and printed. Used by ``cli/_run.py``; not a command of its own.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._messages import printable

if TYPE_CHECKING:
    from ..metrics import GateReport, Summary
    from ..runner import MatrixOutcome, MemberOutcome, RunConfig

__all__ = ["MatrixFinish", "matrix_status", "new_matrix", "resumed_matrix"]


class MatrixFinish:
    """What follows each member of a matrix run (its summary, history row, gates, console)."""

    def __init__(
        self,
        *,
        gate: bool,
        history: Path | None,
        record: bool,
        export: Callable[[MemberOutcome], None] | None = None,
    ) -> None:
        from rich.console import Console

        self.gate = gate
        self.history = history
        self.record = record
        self.export = export
        self.console = Console(file=sys.stdout)
        self.summaries: dict[str, Summary] = {}
        self.reports: dict[str, GateReport] = {}

    def __call__(self, member: MemberOutcome) -> None:
        from rich.text import Text

        from ..metrics import finish_run
        from ..report import render_console

        if member.state == "failed":
            shown = f"{member.label} ({member.agent}): could not run: {member.error}"
            click.echo(printable(shown), err=True)
            return
        outcome = member.outcome
        if outcome is None:
            return
        if self.export is not None:
            self.export(member)
        summary, gates = finish_run(
            member.run_dir, gate=self.gate, record=self.record, history=self.history
        )
        self.summaries[member.label] = summary
        if gates is not None:
            self.reports[member.label] = gates
        # a label or spec from the suite: shown as text, never read as rich markup
        self.console.rule(Text(printable(f"{member.label}: {member.agent}")))
        render_console(summary, self.console, gates=gates)
        click.echo(
            f"run: {member.run_dir}  ({outcome.ran} run now, {outcome.resumed} resumed, "
            f"{outcome.provider_calls} model calls, {outcome.cache_hits} cached, "
            f"{outcome.replayed} results replayed, {outcome.wall_s:.1f}s)",
            err=True,
        )


def matrix_status(result: MatrixOutcome, finish: MatrixFinish) -> int:
    """Compare the members, write and print the comparison; the exit status (1 when a member
    failed its gates or could not run)."""
    from ..metrics import compare_matrix
    from ..report import render_matrix_console, write_matrix_reports

    comparison = compare_matrix(
        result.out_dir,
        gate=finish.gate,
        summaries=finish.summaries,
        gate_reports=finish.reports,
    )
    paths = write_matrix_reports(result.out_dir, comparison)
    render_matrix_console(comparison, finish.console)
    status = 0
    for a in comparison.agents:
        if a.status == "failed":
            failed = f"member {a.label} ({a.agent}) could not run: {a.error}"
            click.echo(printable(failed), err=True)
            status = 1
        elif a.gates_passed is False:
            failed = f"gate failed: {a.label} ({a.agent}): {', '.join(a.gate_failures)}"
            click.echo(printable(failed), err=True)
            status = 1
    names = ", ".join(p.name for p in paths)
    click.echo(
        f"matrix: {result.out_dir}  ({len(comparison.agents)} agents; wrote {names}; "
        f"resume with agentgauge run --resume {result.out_dir})"
        if any(a.status != "done" for a in comparison.agents)
        else f"matrix: {result.out_dir}  ({len(comparison.agents)} agents; wrote {names})",
        err=True,
    )
    return status


def new_matrix(
    suite: Path,
    agents: tuple[str, ...],
    config: RunConfig,
    out_dir: Path | None,
    finish: MatrixFinish,
) -> int:
    """Run the members (``agents``, else the suite's matrix) and compare them."""
    from ..errors import RunInterrupted
    from ..runner import parse_agents, run_matrix
    from ._interrupt import interrupt_status

    members = parse_agents(agents) if agents else None
    try:
        result = run_matrix(suite, config, members, out_dir, notify=_warn, on_member=finish)
    except RunInterrupted as err:
        click.echo(str(err), err=True)
        return interrupt_status()
    return matrix_status(result, finish)


def resumed_matrix(
    out_dir: Path, agents: tuple[str, ...], f: dict[str, Any], finish: MatrixFinish
) -> int:
    """Continue the matrix in ``out_dir`` and compare its members."""
    from ..errors import RunInterrupted
    from ..runner import resume_matrix
    from ._interrupt import interrupt_status

    try:
        result = resume_matrix(
            out_dir,
            agents=agents,
            judge=f["judge"],
            max_concurrency=f["max_concurrency"],
            progress=f["progress"],
            replay=f.get("replay_given"),
            allow_suite_code=f["allow_suite_code"] or None,
            allow_suite_endpoints=f["allow_suite_endpoints"] or None,
            executor=f.get("executor"),
            provider_concurrency=f.get("provider_concurrency"),
            rate_limit_per_s=f.get("rate_limit_per_s"),
            notify=_warn,
            on_member=finish,
        )
    except RunInterrupted as err:
        click.echo(str(err), err=True)
        return interrupt_status()
    return matrix_status(result, finish)


def _warn(message: str) -> None:
    click.echo(printable(f"warning: {message}"), err=True)
