"""The dashboard's module rows: each module rate of ``metrics.MODULE_VERDICTS`` (intent
recognition, clarification, routing, skill, tool-call decision, memory retention, retrieval hit,
degradation trigger, planning 4–5, user satisfaction) that a shown agent measured, as a Quality
card row. Its best mark is McNemar's on the per-case module verdicts,
Holm-adjusted over the pairs (``_dashboard_marks.ROW_TESTS``), like every other rate row."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from ..metrics import MODULE_VERDICTS, Rate, Summary

__all__ = ["MODULE_ROW_LABELS", "module_rows"]

#: each module rate's card label
MODULE_ROW_LABELS: dict[str, str] = {
    "intent_accuracy": "intent recognition",
    "clarification_rate": "clarification",
    "routing_accuracy": "routing",
    "skill_accuracy": "skill",
    "call_decision_accuracy": "tool-call decision",
    "memory_retention": "memory retention",
    "retrieval_hit_rate": "retrieval hit @k",
    "fallback_accuracy": "degradation trigger",
    "user_satisfaction": "user satisfaction",
    "planning_acceptable": "planning path 4–5 (expert)",
}


class _HasSummary(Protocol):
    @property
    def summary(self) -> Summary: ...


def _rate_of(key: str) -> Callable[[Summary], Rate]:
    def of(s: Summary) -> Rate:
        return s.rate(key) or Rate()  # not measured: n/a, never 0

    return of


def module_rows(agents: Sequence[_HasSummary]) -> list[tuple[str, str, Callable[[Summary], Rate]]]:
    """``(key, label, the rate)`` of each module rate some agent measured, in report order."""
    return [
        (key, MODULE_ROW_LABELS.get(key, key), _rate_of(key))
        for key in MODULE_VERDICTS
        if any((a.summary.rate(key) or Rate()).n for a in agents)
    ]
