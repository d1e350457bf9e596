"""An audit as lint findings (``file:line: field: severity: message [code]``) and a summary.

Codes:

====================  ========  ===================================================
``cannot-fail``       error     every mutant of the case passed: it tests nothing
``mutant-passes``     warning   a wrong transcript passes (one finding per axis)
``reference-fails``   warning   the right transcript fails, or no agent could pass
``not-mutated``       warning   no mutation applies to the case
``scorer-error``      warning   a scorer crashed on a wrong transcript (not counted)
====================  ========  ===================================================
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from .._messages import format_path
from ..suites import LintFinding, LoadedSuite, Origin, Severity
from ._audit import CaseAudit, SkippedScorer, SuiteAudit

__all__ = ["audit_findings", "audit_summary", "case_findings"]

#: at most this many surviving mutants are spelled out per axis and case
_SHOWN: Final = 2


def _finding(
    severity: Severity, code: str, message: str, case: CaseAudit, origin: Origin | None
) -> LintFinding:
    return LintFinding(
        severity=severity,
        code=code,
        message=message,
        file=origin.file if origin is not None else None,
        line=origin.line() if origin is not None else None,
        field=format_path(origin.path) if origin is not None else "",
        case_id=case.case_id,
    )


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= 200 else line[:199] + "…"


def case_findings(case: CaseAudit, origin: Origin | None = None) -> list[LintFinding]:
    """The findings of one audited case."""
    out: list[LintFinding] = []
    if case.cannot_fail:
        axes = ", ".join(case.surviving_axes)
        out.append(
            _finding(
                "error",
                "cannot-fail",
                f"case '{case.case_id}' cannot fail: all {len(case.checked)} wrong transcripts "
                f"pass ({axes})",
                case,
                origin,
            )
        )
    else:
        for axis in case.surviving_axes:
            got = [v for v in case.survivors if v.axis == axis]
            shown = "; ".join(v.detail for v in got[:_SHOWN])
            more = f" (+{len(got) - _SHOWN} more)" if len(got) > _SHOWN else ""
            out.append(
                _finding(
                    "warning",
                    "mutant-passes",
                    f"a wrong transcript passes ({axis}): {shown}{more}",
                    case,
                    origin,
                )
            )
    ref = case.reference
    if ref.passed is False:
        out.append(
            _finding(
                "warning",
                "reference-fails",
                f"the right transcript fails: {_first_line(ref.explanation)}",
                case,
                origin,
            )
        )
    crashed = [v for v in case.verdicts if v.passed is None and _crashed(v.explanation)]
    if crashed:
        out.append(
            _finding(
                "warning",
                "scorer-error",
                f"the scorers crashed on {len(crashed)} wrong transcript(s): "
                f"{_first_line(crashed[0].explanation)}",
                case,
                origin,
            )
        )
    if not case.verdicts:
        out.append(
            _finding("warning", "not-mutated", "no mutation applies to this case", case, origin)
        )
    return out


def _crashed(explanation: str) -> bool:
    return explanation.startswith(("scorer crashed", "scorer '"))


def audit_findings(audit: SuiteAudit, loaded: LoadedSuite | None = None) -> list[LintFinding]:
    """Every finding of ``audit``; with the :class:`LoadedSuite` the suite was read as, each
    points at its case's ``file:line``."""
    origins: dict[str, Origin] = {}
    if loaded is not None:
        for c, origin in zip(loaded.suite.cases, loaded.case_origins, strict=True):
            origins.setdefault(c.id, origin)
    out: list[LintFinding] = []
    for case in audit.cases:
        out.extend(case_findings(case, origins.get(case.case_id)))
    return out


def audit_summary(audit: SuiteAudit) -> list[str]:
    """A few lines: counts, the per-axis table and the skipped scorers."""
    mutants = sum(len(c.checked) for c in audit.cases)
    survived = sum(len(c.survivors) for c in audit.cases)
    undecided = sum(len(c.verdicts) - len(c.checked) for c in audit.cases)
    sampled = (
        f" (a sample of {len(audit.cases)} of {audit.total_cases})"
        if len(audit.cases) < audit.total_cases
        else ""
    )
    lines = [
        f"mutation audit: {len(audit.cases)} cases{sampled}, {mutants} wrong transcripts, "
        f"{survived} passed{f', {undecided} not decided' if undecided else ''}; "
        f"{len(audit.cannot_fail)} case(s) cannot fail, "
        f"{len(audit.reference_failures)} right transcript(s) fail"
    ]
    counts = audit.axes()
    if counts:
        width = max(len(a.axis) for a in counts)
        lines.append(f"  {'axis':<{width}}  cases  passed")
        lines.extend(f"  {a.axis:<{width}}  {a.cases:>5}  {a.survived:>6}" for a in counts)
    lines.extend(f"  skipped scorer {s.scorer}: {s.reason}" for s in _unique(audit.skipped_scorers))
    return lines


def _unique(items: Sequence[SkippedScorer]) -> list[SkippedScorer]:
    seen: list[SkippedScorer] = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen
