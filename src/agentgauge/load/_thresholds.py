"""The load gates: thresholds (``p95<500``, ``error_rate<0.01``, ``quality_ratio>0.9`` ...)
checked over a window of sessions. A threshold whose metric was not measured (no session
answered, no baseline for ``quality_ratio``) fails: a gate that cannot be checked never passes."""

from __future__ import annotations

from collections.abc import Sequence

from ..schema import Threshold
from ._model import ThresholdVerdict, WindowStats

__all__ = ["evaluate", "measure"]


def measure(metric: str, stats: WindowStats) -> float | None:
    """The value of ``metric`` over ``stats`` (None: not measured)."""
    if metric in ("p50", "p90", "p95", "p99"):
        return getattr(stats.latency_ms, metric) if stats.latency_ms is not None else None
    if metric.startswith("ttft_"):
        return getattr(stats.ttft_ms, metric[5:]) if stats.ttft_ms is not None else None
    value = getattr(stats, metric)
    return float(value) if value is not None else None


def _unit(metric: str) -> str:
    return " ms" if metric.startswith(("p5", "p9", "ttft")) else ""


def evaluate(
    thresholds: Sequence[Threshold], stats: WindowStats, why_missing: str | None = None
) -> list[ThresholdVerdict]:
    """One verdict per threshold over ``stats``."""
    out: list[ThresholdVerdict] = []
    for t in thresholds:
        value = measure(t.metric, stats)
        if value is None:
            reason = why_missing if t.metric == "quality_ratio" and why_missing else None
            out.append(
                ThresholdVerdict(
                    threshold=t.text,
                    metric=t.metric,
                    measured=None,
                    passed=False,
                    explanation=f"{t.metric} was not measured ({reason or 'no session answered'})",
                )
            )
            continue
        ok = t.holds(value)
        shown = f"{value:.4g}{_unit(t.metric)}"
        out.append(
            ThresholdVerdict(
                threshold=t.text,
                metric=t.metric,
                measured=value,
                passed=ok,
                explanation=f"{t.metric} = {shown} ({'meets' if ok else 'breaks'} {t.text})",
            )
        )
    return out
