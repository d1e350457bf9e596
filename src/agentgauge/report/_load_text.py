"""The console summary of a load run, laid out as k6 prints its end-of-test summary: one
dotted line per metric, then the step ramp, the saturation point and the thresholds (✓ / ✗)."""

from __future__ import annotations

from .._messages import printable
from ..load import LoadReport, Percentiles

__all__ = ["load_lines"]


def _row(name: str, text: str) -> str:
    return f"  {name + ' ':.<20} {text}"


def _pct(p: Percentiles | None) -> str:
    if p is None:
        return "not measured"
    return (
        f"p50 {p.p50:.0f} ms  p90 {p.p90:.0f} ms  p95 {p.p95:.0f} ms  "
        f"p99 {p.p99:.0f} ms  max {p.max:.0f} ms"
    )


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _tokens(per_min: float | None) -> str:
    return "n/a (no usage reported)" if per_min is None else f"{per_min:,.0f}"


def load_lines(report: LoadReport) -> list[str]:
    """The summary of ``report``, one line each."""
    t = report.totals
    kinds = ", ".join(f"{k} {n}" for k, n in t.errors_by_kind.items())
    ended: str = report.stopped_by
    if report.interrupted_by is not None:
        ended = f"interrupted ({report.interrupted_by})"
    lines = [
        f"load: {report.suite} ({report.mode} loop, agent {report.agent}), ended by "
        f"{ended} after {report.duration_s:.1f} s",
        _row(
            "sessions",
            f"{t.sessions} ({t.sessions_per_s:.3g}/s)  passed {t.passed}  "
            f"failed {t.failed}  started {t.started}  dropped {t.dropped}"
            + (f"  cancelled {t.cancelled}" if t.cancelled else ""),
        ),
        _row("errors", f"{t.errors} ({_rate(t.error_rate)})" + (f": {kinds}" if kinds else "")),
        _row("latency", _pct(t.latency_ms)),
        _row("ttft", _pct(t.ttft_ms)),
        _row("tokens/min", f"{_tokens(t.tokens_per_min)}  retries {t.retries}"),
        _row(
            "quality",
            f"pass rate {_rate(t.pass_rate)} under load, "
            f"{_rate(t.expected_pass_rate)} unloaded (quality ratio "
            f"{'–' if t.quality_ratio is None else f'{t.quality_ratio:.3f}'})",
        ),
    ]
    cost = "unknown" if t.cost_usd is None else f"${t.cost_usd:.4f}"
    est = report.estimate
    if est is not None and est.usd is not None:
        cost += f" (estimated ${est.usd:.4f})"
    lines.append(
        _row(
            "cost",
            cost + (f", limit ${report.max_cost_usd:g}" if report.max_cost_usd is not None else ""),
        )
    )
    for s in report.steps:
        w = s.window
        p95 = f"{w.latency_ms.p95:.0f} ms" if w.latency_ms else "–"
        verdict = "held" if s.held else "broke " + ", ".join(s.broken_by)
        lines.append(
            f"  step {s.index + 1:>3}: {s.target:g}  {w.sessions} sessions  "
            f"p95 {p95}  errors {_rate(w.error_rate)}  {verdict}"
        )
    sat = report.saturation
    if sat is not None:
        if sat.found:
            held = f"{sat.sustained:g} {sat.unit}" if sat.sustained is not None else "none"
            lines.append(
                f"saturation: at {sat.saturated_at:g} {sat.unit} "
                f"({', '.join(sat.broken_by)}); highest sustained: {held}"
            )
        else:
            top = "–" if sat.sustained is None else f"{sat.sustained:g}"
            when = " before the interrupt" if report.interrupted_by is not None else ""
            lines.append(f"saturation: not reached{when}; every step held up to {top} {sat.unit}")
    for v in report.thresholds:
        lines.append(f"{'✓' if v.passed else '✗'} {v.threshold}  {v.explanation}")
    return [printable(line) for line in lines]  # the suite's name, the agent: shown
