"""Plain-text lines for gate verdicts and comparisons (used by the console and the CLI)."""

from __future__ import annotations

from .._messages import printable
from ..metrics import MODULE_VERDICTS, Comparison, GateReport, fold_small_samples
from ._fmt import unit_delta, unit_interval, unit_value


def gate_lines(report: GateReport) -> list[str]:
    lines = [f"gate: {'PASSED' if report.passed else 'FAILED'}"]
    if report.compared is not None:
        lines.extend(f"  {line}" for line in report.compared.lines())
    for c in report.checks:
        mark = "ok  " if c.passed else "FAIL"
        lines.append(f"  {mark} {c.name}: {c.actual} (required {c.threshold})")
        if not c.passed:
            lines.append(f"       {c.message}")
    rest, note = fold_small_samples(report.warnings)
    lines.extend(f"  warning: {w}" for w in rest)
    if note is not None:  # once, not one line per gated slice
        lines.append(f"  note: {note}")
    return [printable(line) for line in lines]  # names from the suite: one line each, shown


def comparison_lines(cmp: Comparison, *, listed: int = 10) -> list[str]:
    c = cmp.counts
    lines = [
        f"compared with {cmp.base_run}: {cmp.paired} paired cases, "
        f"{c.get('fixed', 0)} fixed, {c.get('broken', 0)} broken, "
        f"{c.get('unchanged_pass', 0)} still passing, {c.get('unchanged_fail', 0)} still failing"
        + (f", {c['new']} new" if c.get("new") else "")
        + (f", {c['removed']} removed" if c.get("removed") else ""),
        f"  exact McNemar p = {cmp.mcnemar_p:.3g}",
    ]
    for d in cmp.deltas:
        if d.delta is None or d.base is None or d.new is None:
            continue
        ci = unit_interval(d.low, d.high, d.unit)
        # a module rate's own test (the pass rate's is the headline's)
        test = f", McNemar p = {d.p_value:.3g}" if d.metric in MODULE_VERDICTS else ""
        lines.append(
            f"  {d.metric}: {unit_value(d.base, d.unit)} -> {unit_value(d.new, d.unit)} "
            f"({unit_delta(d.delta, d.unit)}{' ' + ci if ci else ''}, n={d.n}{test})"
        )
    lines.extend(f"  note: {w}" for w in cmp.warnings)
    for label, items in (("fixed", cmp.fixed), ("broken", cmp.broken)):
        if items:
            names = ", ".join(i.case_id for i in items[:listed])
            more = f" (+{len(items) - listed} more)" if len(items) > listed else ""
            lines.append(f"  {label}: {names}{more}")
    if cmp.sample_size is not None:
        s = cmp.sample_size
        parts = []
        if s.paired_cases is not None:
            parts.append(f"{s.paired_cases} paired cases")
        if s.unpaired_cases is not None:
            parts.append(f"{s.unpaired_cases} cases per run unpaired")
        if parts:
            lines.append(
                f"  to detect a {s.points:g}-point change with {s.power:.0%} power at "
                f"alpha {s.alpha:g}: ~{' or '.join(parts)}"
            )
    return [printable(line) for line in lines]
