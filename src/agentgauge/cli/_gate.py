"""``agentgauge gate``: check a run against gate thresholds (exit 0 pass, 1 fail, 2 usage).

A matrix folder (``agentgauge run --agent A --agent B -o OUT``: ``OUT/matrix.json``) is gated
member by member, as ``run --gate`` does: each finished member against the gates, a member that
could not run or did not finish is a failure of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click

from .._messages import printable
from ..errors import UserError
from ..metrics import GateReport, gate_run
from ..report import gate_lines
from ..schema import Model
from ._options import gates_option

if TYPE_CHECKING:
    from ..runner import MemberRecord


class MemberGate(Model):
    """One member of a matrix folder and its gate verdict."""

    label: str
    agent: str
    #: ``passed`` / ``failed``: its gates; else why it has none
    verdict: Literal["passed", "failed", "could not run", "did not finish"]
    #: why it has no report (could not run, did not finish)
    error: str | None = None
    #: the run it was compared with (None: no baseline)
    baseline: str | None = None
    report: GateReport | None = None


class MatrixGateReport(Model):
    """``agentgauge gate OUT --json`` for a matrix folder."""

    version: int = 1
    passed: bool = True
    members: list[MemberGate]


@click.command("gate")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--baseline",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="A previous run of the same suite: regressions against it are gated too. For a matrix "
    "folder: one run every member is compared with, or a matrix folder whose members pair up "
    "by label.",
)
@gates_option
@click.option("--json", "as_json", is_flag=True, help="Print the gate report as JSON.")
@click.pass_context
def command(
    ctx: click.Context,
    run_dir: Path,
    baseline: Path | None,
    gates_file: Path | None,
    as_json: bool,
) -> None:
    """Check the run in RUN_DIR against its gates; exit 1 when any check fails.

    RUN_DIR may be a matrix folder (several agents run with --agent A --agent B): each finished
    member is gated; exit 1 when any member fails its gates, could not run or did not finish.
    """
    from ..runner import is_matrix_dir

    if is_matrix_dir(run_dir):
        ctx.exit(_gate_matrix(run_dir, baseline, gates_file, as_json))
    if baseline is not None and is_matrix_dir(baseline):
        raise UserError(
            f"--baseline {baseline}: a matrix folder, but {run_dir} is a single run; give one "
            f"member's run ({baseline}/LABEL) or gate a matrix folder against it"
        )
    _, report, _ = gate_run(run_dir, gates_file=gates_file, baseline=baseline)
    if as_json:
        click.echo(report.model_dump_json(indent=2))
    else:
        for line in gate_lines(report):
            click.echo(line)
    ctx.exit(0 if report.passed else 1)


def _member_baseline(
    baseline: Path | None, label: str, members: dict[str, MemberRecord] | None
) -> tuple[Path | None, str | None]:
    """The baseline run of member ``label`` and a warning when the baseline matrix has none."""
    if baseline is None:
        return None, None
    if members is None:  # one run, the baseline of every member
        return baseline, None
    other = members.get(label)
    if other is None or other.state != "done":
        why = "no member" if other is None else f"its member is {other.state}"
        return None, (
            f"baseline {baseline}: {why} '{label}', so this member's regression checks were "
            "skipped (only its thresholds were checked)"
        )
    return baseline / other.run_dir, None


def _gate_member(
    out_dir: Path,
    m: MemberRecord,
    baseline: Path | None,
    base_members: dict[str, MemberRecord] | None,
    gates_file: Path | None,
) -> MemberGate:
    if m.state == "failed":
        return MemberGate(
            label=m.label, agent=m.agent, verdict="could not run", error=m.error or "unknown error"
        )
    if m.state != "done":
        return MemberGate(
            label=m.label,
            agent=m.agent,
            verdict="did not finish",
            error=f"{m.state}; resume with agentgauge run --resume {out_dir}",
        )
    base, warning = _member_baseline(baseline, m.label, base_members)
    try:
        _, report, _ = gate_run(out_dir / m.run_dir, gates_file=gates_file, baseline=base)
    except UserError as err:
        raise UserError(f"{err} (member {m.label}, {m.agent})") from None
    if warning is not None:
        report.warnings.append(warning)
    return MemberGate(
        label=m.label,
        agent=m.agent,
        verdict="passed" if report.passed else "failed",
        baseline=str(base) if base is not None else None,
        report=report,
    )


def _gate_matrix(
    out_dir: Path, baseline: Path | None, gates_file: Path | None, as_json: bool
) -> int:
    """Gate every member of the matrix folder ``out_dir``; the exit status."""
    from ..runner import is_matrix_dir, read_manifest

    manifest = read_manifest(out_dir)
    base_members = None
    if baseline is not None and is_matrix_dir(baseline):
        base_members = {m.label: m for m in read_manifest(baseline).members}
    gated = [_gate_member(out_dir, m, baseline, base_members, gates_file) for m in manifest.members]
    result = MatrixGateReport(
        passed=bool(gated) and all(g.verdict == "passed" for g in gated), members=gated
    )
    if as_json:
        click.echo(result.model_dump_json(indent=2))
        return 0 if result.passed else 1
    for g in gated:
        if g.report is None:
            click.echo(printable(f"{g.label} ({g.agent}): {g.verdict}: {g.error}"))
            continue
        lines = gate_lines(g.report)
        click.echo(printable(f"{g.label} ({g.agent}): {lines[0]}"))
        for line in lines[1:]:
            click.echo(line)
    bad = [
        f"{g.label} ({g.agent}) {'failed its gates' if g.verdict == 'failed' else g.verdict}"
        for g in gated
        if g.verdict != "passed"
    ]
    if not gated:
        bad = ["the matrix has no members"]
    verdict = "PASSED" if result.passed else "FAILED: " + ", ".join(bad)
    click.echo(printable(f"matrix gate ({len(gated)} members): {verdict}"))
    return 0 if result.passed else 1
