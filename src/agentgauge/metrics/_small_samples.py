"""Gated slices with too few scored results: the warning for each (``small_sample_warnings``)
and the one footnote the reports fold them into (``fold_small_samples``)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..schema import Gates
from ._model import Summary

__all__ = ["fold_small_samples", "small_sample_warnings"]


def small_sample_warnings(summary: Summary, gates: Gates) -> list[str]:
    """A warning for each gated slice with fewer scored results than ``gates.min_sample_size``."""
    out: list[str] = []
    floor = gates.min_sample_size
    gated: list[tuple[str, int]] = []
    if gates.min_pass_rate is not None:
        gated.append(("pass rate", summary.overall.pass_rate.n))
    for cat in sorted(gates.min_category_pass_rate):
        sl = summary.by_category.get(cat)
        gated.append((f"pass rate [{cat}]", sl.pass_rate.n if sl else 0))
    if gates.min_tool_selection_accuracy is not None:
        gated.append(("tool selection accuracy", summary.tool_selection.accuracy.n))
    if gates.min_argument_accuracy is not None:
        gated.append(("argument accuracy", summary.arguments_strict.n))
    if gates.min_behavior_accuracy is not None:
        gated.append(("behaviour accuracy", summary.behavior.n))
    if gates.min_task_completion is not None:
        gated.append(("task completion", summary.task_completion.n))
    if gates.min_goal_completion is not None:
        gated.append(("goal completion", summary.overall.goal_completion.n))
    d = summary.diagnosis
    for minimum, name, rate in (
        (gates.min_intent_accuracy, "intent accuracy", d.intent_accuracy),
        (gates.min_routing_accuracy, "routing accuracy", d.routing_accuracy),
        (gates.min_skill_accuracy, "skill accuracy", d.skill_accuracy),
        (gates.min_memory_retention, "memory retention", d.memory_retention),
    ):
        if minimum is not None:
            gated.append((name, rate.n))
    for minimum, name, n in _module_samples(summary, gates):
        if minimum is not None:
            gated.append((name, n))
    for name in sorted(gates.scorers):
        stats = summary.scorers.get(name) or summary.scorers.get(f"judge.{name}")
        gated.append((f"scorer {name}", stats.pass_rate.n if stats else 0))
    for name, n in gated:
        if n < floor:
            out.append(
                f"{name}: only {n} scored results (< {floor}); the interval is wide and the "
                "gate can flip on a few cases"
            )
    return out


def _module_samples(summary: Summary, gates: Gates) -> list[tuple[float | None, str, int]]:
    """The module metrics' gates with the results each is measured on."""
    m = summary.modules

    def n_of(metric: str) -> int:
        rate = summary.rate(metric)
        return rate.n if rate is not None else 0

    def mean_n(metric: str) -> int:
        mean = summary.module_mean(metric)
        return mean.n if mean is not None else 0

    retrieval = m.retrieval.cases if m is not None and m.retrieval is not None else 0
    return [
        (gates.min_retrieval_precision, "retrieval precision", mean_n("retrieval_precision")),
        (gates.min_retrieval_recall, "retrieval recall", retrieval),
        (gates.min_fallback_accuracy, "degradation-trigger accuracy", n_of("fallback_accuracy")),
        (gates.min_fallback_recall, "degradation-trigger recall", n_of("fallback_recall")),
        (
            gates.min_fallback_precision,
            "degradation-trigger precision",
            n_of("fallback_precision"),
        ),
        (gates.min_user_satisfaction, "user satisfaction", n_of("user_satisfaction")),
        (gates.min_planning_grade, "planning-path grade", mean_n("planning_grade")),
    ]


_SMALL = re.compile(
    r"^(?P<name>.+): only (?P<n>\d+) scored results \(< (?P<floor>\d+)\); the interval is "
    r"wide and the gate can flip on a few cases$"
)


def fold_small_samples(warnings: Iterable[str]) -> tuple[list[str], str | None]:
    """``warnings`` with the small-sample ones (:func:`small_sample_warnings`) taken out and
    folded into one footnote (None: there were none), so a small run says it once."""
    rest: list[str] = []
    small: list[str] = []
    floors: set[str] = set()
    for w in warnings:
        m = _SMALL.match(w)
        if m is None:
            rest.append(w)
            continue
        small.append(f"{m['name']} ({m['n']})")
        floors.add(m["floor"])
    if not small:
        return rest, None
    floor = " / ".join(sorted(floors, key=int))
    note = (
        f"few scored results (< {floor}, gates.min_sample_size) for {', '.join(small)}: their "
        "intervals are wide and a gate on them can flip on a few cases"
    )
    return rest, note
