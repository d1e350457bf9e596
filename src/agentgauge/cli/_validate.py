"""``agentgauge validate SUITE...``: load and lint suites; exit 2 when any has problems."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click
import orjson

from .._messages import printable
from ..suites import CategoryMix, LintFinding, SuiteCheck
from ._options import allow_suite_code_option, allow_suite_endpoints_option, text_or_json_option

if TYPE_CHECKING:
    from ..mutation import SuiteAudit
    from ..runner import CodeUse, PathUse, SpecUse, SuiteValidation

#: suite index -> its mutation audit and the audit's findings (``validate --mutate``)
_Audits = dict[int, tuple["SuiteAudit", list[LintFinding]]]


def _finding_dict(check: SuiteCheck) -> list[dict[str, Any]]:
    return _findings_json(check.findings)


def _findings_json(findings: list[LintFinding]) -> list[dict[str, Any]]:
    return [
        {
            "severity": f.severity,
            "code": f.code,
            "message": f.message,
            "file": f.file,
            "line": f.line,
            "field": f.field,
            "case_id": f.case_id,
        }
        for f in findings
    ]


def _code_dict(uses: list[CodeUse]) -> list[dict[str, Any]]:
    return [
        {
            "kind": u.ref.kind,
            "spec": u.ref.spec,
            "file": str(u.target.file) if u.target else None,
            "function": u.target.attr if u.target else None,
            "allowed": u.problem is None,
            "problem": u.problem,
            "where": u.where,
            "field": u.field,
            "case_id": u.ref.case_id,
            "tool": u.ref.tool,
        }
        for u in uses
    ]


def _code_listing(uses: list[CodeUse]) -> None:
    """``code this suite runs:`` then one line per piece: where, what, and whether it may run."""
    if not uses:
        return
    click.echo(f"  code this suite runs ({len(uses)}):")
    for u in uses:
        what = f"{u.target.file}:{u.target.attr}" if u.target else f"'{u.ref.spec}'"
        scope = f"case {u.ref.case_id}" if u.ref.case_id else "every case"
        who = f"tool {u.ref.tool}, {scope}" if u.ref.tool else u.ref.kind
        if u.problem is None:
            verdict = "allowed"
        elif u.needs_opt_in:  # a file of the suite's folder, or an MCP server command
            verdict = "needs --allow-suite-code"
        else:
            verdict = "REFUSED"
        click.echo(printable(f"    {u.where}: {u.field}: {what} ({who}) {verdict}"))


def _spec_dict(uses: list[SpecUse]) -> list[dict[str, Any]]:
    return [
        {
            "kind": u.ref.kind,
            "spec": u.endpoint.spec if u.endpoint else u.ref.spec,
            "where": u.where,
            "field": u.field,
            "provider": u.endpoint.provider if u.endpoint else None,
            "endpoint": u.endpoint.url if u.endpoint else None,
            "credential": u.endpoint.credential if u.endpoint else None,
            "verdict": u.verdict,
            "problem": u.problem,
        }
        for u in uses
    ]


def _path_dict(uses: list[PathUse]) -> list[dict[str, Any]]:
    return [
        {
            "action": u.action,
            "path": u.path,
            "where": u.where,
            "field": u.field,
            "verdict": u.verdict,
            "note": u.note,
        }
        for u in uses
    ]


_VERDICT = {"allowed": "allowed", "needs opt-in": "needs --allow-suite-endpoints"}


def _spec_listing(uses: list[SpecUse]) -> None:
    """``agents and judges this suite names:`` one line each: the spec, where it sends your
    credentials, and the verdict (a code spec's is in the code listing)."""
    if not uses:
        return
    click.echo(f"  agents and judges this suite names ({len(uses)}):")
    for u in uses:
        if u.endpoint is None:
            what = "code (see above)" if u.problem or u.verdict != "allowed" else "no credentials"
            verdict = "allowed" if u.verdict == "allowed" else u.verdict.upper()
        else:
            cred = u.endpoint.credential or "no credential of yours"
            what = f"-> {u.endpoint.url} ({cred})"
            verdict = _VERDICT.get(u.verdict, "REFUSED")
        spec = u.endpoint.spec if u.endpoint else u.ref.spec
        click.echo(printable(f"    {u.where}: {u.field}: {u.ref.kind} '{spec}' {what} {verdict}"))


def _path_listing(uses: list[PathUse]) -> None:
    if not uses:
        return
    click.echo(f"  paths this suite names ({len(uses)}):")
    for u in uses:
        note = f" ({u.note})" if u.note else ""
        verdict = u.verdict if u.verdict == "allowed" else "REFUSED"
        click.echo(printable(f"    {u.where}: {u.field}: {u.action} {u.path}{note} {verdict}"))


def _mix_dict(mix: CategoryMix | None) -> dict[str, Any] | None:
    if mix is None:
        return None
    return {
        "total": mix.total,
        "categories": {
            c.name: {"count": c.count, "share": round(c.share, 4)} for c in mix.categories
        },
        "strata": {s.name: {"count": s.count, "share": round(s.share, 4)} for s in mix.strata},
    }


def _json_report(results: list[SuiteValidation], strict: bool) -> str:
    suites = []
    for v in results:
        check, uses = v.check, v.code
        suite = check.loaded.suite if check.loaded else None
        suites.append(
            {
                "path": check.path,
                "ok": not check.failed(strict=strict),
                "name": suite.name if suite else None,
                "cases": len(suite.cases) if suite else None,
                "tools": len(suite.tools) if suite else None,
                "problems": check.problems,
                "findings": _finding_dict(check),
                "category_mix": _mix_dict(check.mix()),
                "code": _code_dict(uses),
                "specs": _spec_dict(v.specs),
                "paths": _path_dict(v.paths),
            }
        )
    ok = not any(v.check.failed(strict=strict) for v in results)
    return orjson.dumps(
        {"ok": ok, "strict": strict, "suites": suites}, option=orjson.OPT_INDENT_2
    ).decode()


def _status(check: SuiteCheck, strict: bool) -> str:
    if check.problems:
        return f"{len(check.problems)} problem(s)"
    errors = sum(1 for f in check.findings if f.severity == "error")
    warnings = len(check.findings) - errors
    parts = [f"{errors} error(s)"] if errors else []
    if warnings:
        parts.append(f"{warnings} warning(s)")
    verdict = "FAILED" if check.failed(strict=strict) else "ok"
    return verdict + (f" ({', '.join(parts)})" if parts else "")


def _plain_summary(check: SuiteCheck, strict: bool) -> None:
    if check.loaded is None:
        click.echo(printable(f"{check.path}: {_status(check, strict)}"), err=True)
        return
    suite = check.loaded.suite
    click.echo(
        printable(f"{check.path}: suite '{suite.name}', {len(suite.cases)} cases, ")
        + f"{len(suite.tools)} tools: {_status(check, strict)}"
    )
    mix = check.mix()
    if mix is None or mix.total == 0:
        return
    names = [printable(c.name) for c in mix.categories]
    width = max(len(n) for n in names)
    for name, c in zip(names, mix.categories, strict=True):
        click.echo(f"  {name:<{width}}  {c.count:>5}  {c.share:>4.0%}  {c.stratum}")
    from ..suites import STRATA_TARGETS

    strata = ", ".join(
        f"{s.name} {s.share:.0%}"
        + (f" (usual {STRATA_TARGETS[s.name]:.0%})" if s.name in STRATA_TARGETS else "")
        for s in mix.strata
    )
    click.echo(f"  strata: {strata}")


def _rich_finding(finding: LintFinding, strict: bool) -> None:
    from rich.console import Console
    from rich.text import Text

    line = printable(finding.format())
    label = f" {finding.severity}: "
    cut = line.find(label)
    text = Text(line)
    if cut >= 0:
        red = finding.severity == "error" or strict
        text.stylize("bold red" if red else "yellow", cut + 1, cut + len(label) - 1)
        text.stylize("dim", line.rfind(" ["))
    Console(highlight=False, soft_wrap=True).print(text)


def _rich_summary(check: SuiteCheck, strict: bool) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    from ..suites import STRATA_TARGETS

    console = Console(highlight=False)
    failed = check.failed(strict=strict)
    style = "bold red" if failed else "bold green"
    if check.loaded is None:
        path = escape(printable(check.path))
        Console(stderr=True).print(f"[{style}]{path}[/]: {_status(check, strict)}")
        return
    suite = check.loaded.suite
    path, name = escape(printable(check.path)), escape(printable(suite.name))
    console.print(
        f"[{style}]{path}[/]: suite [bold]{name}[/], {len(suite.cases)} cases, "
        f"{len(suite.tools)} tools: {_status(check, strict)}"
    )
    mix = check.mix()
    if mix is None or mix.total == 0:
        return
    table = Table(show_edge=False, pad_edge=False, box=None)
    table.add_column("category")
    table.add_column("cases", justify="right")
    table.add_column("share", justify="right")
    table.add_column("stratum")
    for c in mix.categories:
        table.add_row(Text(printable(c.name)), str(c.count), f"{c.share:.0%}", c.stratum)
    console.print(table)
    cells = []
    for s in mix.strata:
        target = STRATA_TARGETS.get(s.name)
        low = target is not None and s.count == 0
        text = f"{s.name} {s.share:.0%}" + (f" (usual {target:.0%})" if target is not None else "")
        cells.append(f"[yellow]{text}[/]" if low else text)
    console.print("strata: " + ", ".join(cells))


@click.command("validate")
@click.argument("suites", nargs=-1, required=True, type=click.Path())
@click.option(
    "--strict", is_flag=True, envvar="AGENTGAUGE_STRICT", help="Treat lint warnings as errors."
)
@text_or_json_option
@click.option(
    "--quiet", "-q", is_flag=True, help="Print only what fails (no warnings, no summary)."
)
@click.option(
    "--judge",
    "judge",
    envvar="AGENTGAUGE_JUDGE",
    metavar="SPEC",
    help="The judge spec the run will get; only checked for being set (nothing is called), so "
    "scorers that need a judge are not reported as lacking one.",
)
@allow_suite_code_option
@allow_suite_endpoints_option
@click.option(
    "--mutate",
    is_flag=True,
    help="Also audit every case with wrong transcripts built from it (wrong tool, dropped or "
    "changed arguments, refusal, ...) scored by the real scorers: a case none of them fails is "
    "an error (docs/mutation.md).",
)
@click.pass_context
def command(
    ctx: click.Context,
    suites: tuple[str, ...],
    strict: bool,
    fmt: str,
    quiet: bool,
    judge: str | None,
    allow_suite_code: bool,
    allow_suite_endpoints: bool,
    mutate: bool,
) -> None:
    """Validate and lint SUITE files (YAML/JSON suites, folders holding suite.yaml, JSONL cases).

    Prints one line per problem, `file:line: field: message`. Exits 0 when every suite is clean
    (warnings are printed but do not fail unless --strict), 2 otherwise. Scorer names and
    arguments in `scorers:` are checked too, without building a judge or calling anything.
    Every piece of Python code the suite names (function fakes, a python: agent or judge) is
    listed with its file and function, and refused unless it is a file of the suite's folder
    and --allow-suite-code (or AGENTGAUGE_ALLOW_SUITE_CODE=1) allows it; none of it is imported.
    An MCP server command (tools_from.mcp.command) is listed too and needs the same opt-in.
    Every agent and judge spec is listed with the endpoint that would receive your API key: one
    the suite names needs --allow-suite-endpoints (nothing is connected to). So is every path
    it names (the folders a run writes, the files it reads).
    """
    from ..runner import ValidateConfig, validate_suite

    config = ValidateConfig(
        judge=judge or None,
        allow_suite_code=allow_suite_code or None,
        allow_suite_endpoints=allow_suite_endpoints or None,
        mutate=mutate,
    )
    results = [validate_suite(path, config) for path in suites]
    checks = [v.check for v in results]
    failed = any(v.failed(strict=strict) for v in results)
    audits: _Audits | None = None
    if mutate:
        audits = {
            i: (v.audit, v.audit_findings) for i, v in enumerate(results) if v.audit is not None
        }
    if fmt == "json":
        click.echo(_with_mutation(_json_report(results, strict), audits, strict))
        ctx.exit(2 if failed else 0)
    rich = sys.stdout.isatty()
    for v in results:
        check, uses = v.check, v.code
        for line in check.problems:
            click.echo(printable(line))
        for finding in check.findings:
            if quiet and finding.severity == "warning" and not strict:
                continue
            if rich:
                _rich_finding(finding, strict)
            else:
                click.echo(printable(finding.format()))
        if not quiet:
            if rich:
                _rich_summary(check, strict)
            else:
                _plain_summary(check, strict)
            _code_listing(uses)
            _spec_listing(v.specs)
            _path_listing(v.paths)
    if audits is not None:
        _print_audits(checks, audits, strict=strict, quiet=quiet, rich=rich)
    ctx.exit(2 if failed else 0)


# ----------------------------------------------------------------------------- --mutate


def _audit_failed(findings: list[LintFinding], strict: bool) -> bool:
    return any(strict or f.severity == "error" for f in findings)


def _print_audits(
    checks: list[SuiteCheck], audits: _Audits, *, strict: bool, quiet: bool, rich: bool
) -> None:
    from ..mutation import audit_summary

    for i, check in enumerate(checks):
        if i not in audits:
            continue
        audit, findings = audits[i]
        for finding in findings:
            if quiet and finding.severity == "warning" and not strict:
                continue
            if rich:
                _rich_finding(finding, strict)
            else:
                click.echo(printable(finding.format()))
        if not quiet:
            lines = audit_summary(audit)
            click.echo(printable(f"{check.path}: {lines[0]}"))
            for line in lines[1:]:
                click.echo(printable(line))


def _with_mutation(report: str, audits: _Audits | None, strict: bool) -> str:
    """The JSON report with each audited suite's ``mutation`` section (and ``ok`` updated)."""
    if audits is None:
        return report
    data = orjson.loads(report)
    for i, (audit, findings) in audits.items():
        entry = data["suites"][i]
        entry["mutation"] = _mutation_json(audit, findings)
        entry["ok"] = entry["ok"] and not _audit_failed(findings, strict)
    data["ok"] = all(e["ok"] for e in data["suites"])
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()


def _mutation_json(audit: SuiteAudit, findings: list[LintFinding]) -> dict[str, Any]:
    return {
        "cases": len(audit.cases),
        "total_cases": audit.total_cases,
        "mutants": sum(len(c.checked) for c in audit.cases),
        "passed_mutants": sum(len(c.survivors) for c in audit.cases),
        "undecided_mutants": sum(len(c.verdicts) - len(c.checked) for c in audit.cases),
        "cannot_fail": [c.case_id for c in audit.cannot_fail],
        "reference_failures": [c.case_id for c in audit.reference_failures],
        "axes": {a.axis: {"cases": a.cases, "passed": a.survived} for a in audit.axes()},
        "skipped_scorers": [
            {"scorer": s.scorer, "reason": s.reason} for s in audit.skipped_scorers
        ],
        "findings": _findings_json(findings),
        "case_results": [
            {
                "case_id": c.case_id,
                "cannot_fail": c.cannot_fail,
                "reference": {"passed": c.reference.passed, "explanation": c.reference.explanation},
                "mutants": len(c.checked),
                "passed_mutants": [
                    {"axis": v.axis, "turn": v.turn, "detail": v.detail} for v in c.survivors
                ],
                "undecided_mutants": [
                    {"axis": v.axis, "turn": v.turn, "detail": v.detail, "why": v.explanation}
                    for v in c.verdicts
                    if v.passed is None
                ],
            }
            for c in audit.cases
        ],
    }
