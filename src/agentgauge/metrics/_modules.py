"""Module metrics from results alone (docs/metrics.md#module-metrics), one result at a time.

- **Routing and skill accuracy**: the agent's reported route / skill (or a ``route`` /
  ``skill`` score) against the case's ``labels``.
- **The cascade rule**: a result whose routing failed has its skill and retrieval judgements
  *excluded*, with the reason, instead of failed: they are about the route it should not have
  taken, and counting them would describe the router twice.
- **Retrieval precision / recall @k** over the cases naming their relevant items
  (``labels.knowledge``), from the items the agent reported (``labels.knowledge`` in its
  reply) or its retrieval tool's results (``modules.retrieval``).
- **Degradation-trigger accuracy**: ``labels.fallback`` against whether the agent fell back
  (reported ``labels.fallback``, else a call to a ``modules.fallback`` tool or a reply with
  one of its texts): a confusion matrix, accuracy, precision and recall.
- **User satisfaction** from ``CaseResult.feedback`` (span attributes of a captured trace), else
  a feedback file's entry (``RUN_DIR/feedback.jsonl``) for the result's trace id, the trace id
  agentgauge's OTLP export gave it, or its case id and trial (errors included: the user's
  opinion of the conversation does not depend on whether agentgauge could score it).
- **Planning-path grade** from expert reviews (``_reviews.py``), over the scored results.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from ..schema import CaseResult, Feedback, Labels, ModuleSettings, parse_ids_path
from ._acc import MeanAcc, RateAcc
from ._module_model import (
    Excluded,
    FallbackStats,
    ModuleStats,
    PlanningStats,
    RetrievalCase,
    RetrievalSlice,
    RetrievalStats,
    SatisfactionStats,
)
from ._verdicts import case_score, saw

__all__ = ["MODULE_VERDICTS", "ModuleAcc", "retrieved_items"]

#: the module rates made of per-result verdicts, in the order the reports list them: the
#: names :meth:`Summary.rate` gives them. A pairwise comparison tests them per case
#: (``compare``: exact McNemar on the verdicts :attr:`ModuleAcc.seen` and
#: ``DiagnosisAcc.seen`` record; memory retention has one verdict per checked turn, every other
#: rate one per result). Tool selection and arguments are compared as headline rates
#: (``RATE_METRICS``)
MODULE_VERDICTS: Final = (
    "intent_accuracy",
    "clarification_rate",
    "routing_accuracy",
    "skill_accuracy",
    "call_decision_accuracy",
    "memory_retention",
    "retrieval_hit_rate",
    "fallback_accuracy",
    "planning_acceptable",
    "user_satisfaction",
)

IDS_KEPT: Final = 50
#: distinct exclusion reasons kept per metric (the rest are counted as "other")
REASONS_KEPT: Final = 20
#: a reviewer's grade at or above this is an acceptable plan
ACCEPTABLE_GRADE: Final = 4


def _walk(value: Any, path: list[str]) -> Iterator[Any]:
    """The values at ``path`` (``[]``: every element) under ``value``; a list where a key is
    asked is walked element by element (``id`` over a list of items)."""
    if not path:
        if isinstance(value, list):
            yield from value
        else:
            yield value
        return
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        for item in value:
            yield from _walk(item, path if head != "[]" else rest)
    elif isinstance(value, dict) and head != "[]" and head in value:
        yield from _walk(value[head], rest)


def retrieved_items(r: CaseResult, tools: list[str], ids: str) -> list[str]:
    """The item ids in the results of the calls to ``tools`` (in call order, each once)."""
    path = parse_ids_path(ids)
    out: dict[str, None] = {}
    for e in r.trace:
        if e.kind != "tool" or e.tool not in tools or e.error is not None:
            continue
        result = e.result
        if isinstance(result, str):  # a tool that answers with JSON text (an MCP server)
            try:
                result = orjson.loads(result)
            except orjson.JSONDecodeError:
                continue
        for v in _walk(result, path):
            if isinstance(v, (str, int)) and not isinstance(v, bool):
                out.setdefault(str(v), None)
    return list(out)


@dataclass(slots=True)
class _RetrievalSliceAcc:
    """One slice's retrieval precision, recall and hit rate, added one case at a time."""

    precision: MeanAcc = field(default_factory=MeanAcc)
    recall: MeanAcc = field(default_factory=MeanAcc)
    hits: RateAcc = field(default_factory=RateAcc)
    empty: int = 0

    def add(self, precision: float | None, recall: float, hit: bool) -> None:
        if precision is None:
            self.empty += 1
        else:
            self.precision.add(precision)
        self.recall.add(recall)
        self.hits.add(hit)

    def build(self, c: float) -> dict[str, Any]:
        return {
            "cases": self.recall.n,
            "precision": self.precision.build(c),
            "recall": self.recall.build(c),
            "hit_rate": self.hits.build(c),
            "empty": self.empty,
        }


@dataclass(slots=True)
class _ExcludedAcc:
    """The results a module metric left out: how many, their reasons and some of their cases."""

    count: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    cases: list[str] = field(default_factory=list)

    def add(self, reason: str, case_id: str) -> None:
        self.count += 1
        if reason in self.reasons or len(self.reasons) < REASONS_KEPT:
            self.reasons[reason] += 1
        else:
            self.reasons["other"] += 1
        if len(self.cases) < IDS_KEPT and case_id not in self.cases:
            self.cases.append(case_id)

    def build(self) -> Excluded:
        return Excluded(count=self.count, reasons=dict(self.reasons), cases=self.cases)


def _keep(ids: list[str], case_id: str) -> None:
    if len(ids) < IDS_KEPT and case_id not in ids:
        ids.append(case_id)


@dataclass(slots=True)
class ModuleAcc:
    """Streaming accumulator of the module metrics (see the module notes)."""

    settings: ModuleSettings = field(default_factory=ModuleSettings)
    #: (case id, trial) -> the reviewers' planning-path grade (1-5)
    reviews: Mapping[tuple[str, int], int] = field(default_factory=dict)
    #: a feedback file's entries by ``feedback_key`` (``RUN_DIR/feedback.jsonl``)
    feedback_file: Mapping[str, Feedback] = field(default_factory=dict)
    #: the run's id: the trace ids agentgauge's OTLP export gave its results
    run_id: str | None = None
    feedback_used: set[str] = field(default_factory=set)
    routing: RateAcc = field(default_factory=RateAcc)
    skill: RateAcc = field(default_factory=RateAcc)
    #: scored results with an expected route / skill that nothing reported (not measured)
    unreported: Counter[str] = field(default_factory=Counter)
    excluded: defaultdict[str, _ExcludedAcc] = field(
        default_factory=lambda: defaultdict(_ExcludedAcc)
    )
    retrieval: _RetrievalSliceAcc = field(default_factory=_RetrievalSliceAcc)
    retrieval_by: defaultdict[str, _RetrievalSliceAcc] = field(
        default_factory=lambda: defaultdict(_RetrievalSliceAcc)
    )
    retrieval_sources: set[str] = field(default_factory=set)
    retrieval_unmeasured: int = 0
    retrieval_cases: list[RetrievalCase] = field(default_factory=list)
    fallback_cells: Counter[str] = field(default_factory=Counter)
    fallback_sources: set[str] = field(default_factory=set)
    fallback_unmeasured: int = 0
    missed: list[str] = field(default_factory=list)
    false_alarms: list[str] = field(default_factory=list)
    feedback: MeanAcc = field(default_factory=MeanAcc)
    satisfied: RateAcc = field(default_factory=RateAcc)
    satisfied_by: defaultdict[str, RateAcc] = field(default_factory=lambda: defaultdict(RateAcc))
    unrated: int = 0
    unsatisfied: list[str] = field(default_factory=list)
    grades: MeanAcc = field(default_factory=MeanAcc)
    acceptable: RateAcc = field(default_factory=RateAcc)
    grade_counts: Counter[int] = field(default_factory=Counter)
    grades_by: defaultdict[str, MeanAcc] = field(default_factory=lambda: defaultdict(MeanAcc))
    unreviewed: int = 0
    reviewed_keys: set[tuple[str, int]] = field(default_factory=set)
    poor: list[str] = field(default_factory=list)
    #: when not None, each verdict of the result being added (metric of
    #: :data:`MODULE_VERDICTS` -> [successes, verdicts]), for a comparison to pair them; the
    #: caller clears it
    seen: dict[str, list[int]] | None = None

    def _saw(self, metric: str, ok: bool) -> None:
        saw(self.seen, metric, ok)

    def add(self, r: CaseResult) -> None:
        self._feedback(r)
        if r.status == "error":
            return
        labels = r.labels
        route_failure = self._routing(r, labels)
        if labels is not None and labels.skill is not None:
            if route_failure is not None:
                self.excluded["skill_accuracy"].add(route_failure, r.case_id)
            elif not self._label_match(self.skill, "skill", labels.skill, r):
                self.unreported["skill"] += 1
        if labels is not None and labels.knowledge:
            if route_failure is not None:
                self.excluded["retrieval"].add(route_failure, r.case_id)
            else:
                self._retrieval(r, labels.knowledge)
        if labels is not None and labels.fallback is not None:
            self._fallback(r, labels.fallback)
        self._planning(r)

    def _routing(self, r: CaseResult, labels: Labels | None) -> str | None:
        """Record routing; the reason the dependent judgements are excluded when it failed."""
        if labels is None or labels.route is None:
            return None
        if not self._label_match(self.routing, "route", labels.route, r):
            self.unreported["route"] += 1
            return None
        predicted = r.predicted_labels.route if r.predicted_labels is not None else None
        if predicted is not None:
            if predicted == labels.route:
                return None
            return f"routing failed: expected {labels.route}, got {predicted}"
        score = case_score(r.scores, "route")
        if score is not None and score.passed is False:
            return f"routing failed: expected {labels.route} (route score failed)"
        return None

    def _label_match(self, acc: RateAcc, name: str, expected: str, r: CaseResult) -> bool:
        """Route / skill: the agent's reported label, else a scorer's score of that name.

        Returns whether the result could be measured (False: nothing reported it).
        """
        got = getattr(r.predicted_labels, name) if r.predicted_labels is not None else None
        ok: bool | None
        if got is not None:
            ok = got == expected
        else:
            score = case_score(r.scores, name)
            if score is None:
                return False
            ok = score.passed
        acc.add(ok)
        if ok is not None:  # a skipped score is in no rate
            self._saw("routing_accuracy" if name == "route" else "skill_accuracy", ok)
        return True

    def _retrieval(self, r: CaseResult, knowledge: list[str]) -> None:
        reported = r.predicted_labels.knowledge if r.predicted_labels is not None else []
        settings = self.settings.retrieval
        if reported:
            retrieved, source = reported, "labels"
        elif settings is not None:
            retrieved, source = retrieved_items(r, settings.tools, settings.ids), "tool results"
        else:
            self.retrieval_unmeasured += 1
            return
        self.retrieval_sources.add(source)
        k = settings.k if settings is not None else None
        top = retrieved[:k] if k is not None else retrieved
        relevant = list(dict.fromkeys(knowledge))
        hits = len(set(top) & set(relevant))
        precision = hits / len(top) if top else None
        recall = hits / len(relevant)
        for acc in (self.retrieval, self.retrieval_by[r.category]):
            acc.add(precision, recall, hits > 0)
        self._saw("retrieval_hit_rate", hits > 0)
        row = RetrievalCase(
            case_id=r.case_id,
            trial=r.trial,
            category=r.category,
            relevant=relevant,
            retrieved=top,
            hits=hits,
            precision=precision,
            recall=recall,
        )
        self.retrieval_cases.append(row)
        if len(self.retrieval_cases) > 4 * IDS_KEPT:
            self.retrieval_cases = sorted(self.retrieval_cases, key=_worst_first)[:IDS_KEPT]

    def _fell_back(self, r: CaseResult) -> tuple[bool, str] | None:
        reported = r.predicted_labels.fallback if r.predicted_labels is not None else None
        if reported is not None:
            return reported, "labels"
        settings = self.settings.fallback
        if settings is None or not (settings.tools or settings.replies):
            return None
        if any(c.name in settings.tools for c in r.calls):
            return True, "tools"
        text = (r.text or "").casefold()
        if any(p.casefold() in text for p in settings.replies):
            return True, "replies"
        return False, "tools" if settings.tools else "replies"

    def _fallback(self, r: CaseResult, wanted: bool) -> None:
        seen = self._fell_back(r)
        if seen is None:
            self.fallback_unmeasured += 1
            return
        did, source = seen
        self.fallback_sources.add(source)
        cell = ("tp" if did else "fn") if wanted else ("fp" if did else "tn")
        self.fallback_cells[cell] += 1
        self._saw("fallback_accuracy", cell in ("tp", "tn"))
        if cell == "fn":
            _keep(self.missed, r.case_id)
        elif cell == "fp":
            _keep(self.false_alarms, r.case_id)

    def _file_feedback(self, r: CaseResult) -> Feedback | None:
        """The feedback file's entry for ``r``: by its trace id, the trace id of the run's
        OTLP export, or its case id and trial (the first that has one)."""
        from ..exchange import feedback_key, trace_id_for

        traces = [r.trace_id] if r.trace_id else []
        if self.run_id:
            traces.append(trace_id_for(self.run_id, r.case_id, r.trial))
        keys = [feedback_key(trace_id=t) for t in traces]
        keys.append(feedback_key(case_id=r.case_id, trial=r.trial))
        for key in keys:
            found = self.feedback_file.get(key)
            if found is not None:
                self.feedback_used.add(key)
                return found
        return None

    def _feedback(self, r: CaseResult) -> None:
        feedback = r.feedback
        if feedback is None and self.feedback_file:
            feedback = self._file_feedback(r)
        if feedback is None:
            self.unrated += 1
            return
        share = feedback.share()
        self.feedback.add(share)
        ok = share >= self.settings.satisfied_at - 1e-12
        self.satisfied.add(ok)
        self.satisfied_by[r.category].add(ok)
        self._saw("user_satisfaction", ok)
        if not ok:
            _keep(self.unsatisfied, r.case_id)

    def _planning(self, r: CaseResult) -> None:
        key = (r.case_id, r.trial)
        grade = self.reviews.get(key)
        if grade is None:
            self.unreviewed += 1
            return
        self.reviewed_keys.add(key)
        self.grades.add(float(grade))
        self.grades_by[r.category].add(float(grade))
        self.acceptable.add(grade >= ACCEPTABLE_GRADE)
        self._saw("planning_acceptable", grade >= ACCEPTABLE_GRADE)
        self.grade_counts[grade] += 1
        if grade <= 2:
            _keep(self.poor, r.case_id)

    # --- the section ------------------------------------------------------------------------

    def finish(self, c: float) -> ModuleStats | None:
        stats = ModuleStats(
            retrieval=self._retrieval_stats(c),
            fallback=self._fallback_stats(c),
            excluded={k: v.build() for k, v in sorted(self.excluded.items())},
            satisfaction=self._satisfaction_stats(c),
            planning=self._planning_stats(c),
        )
        empty = ModuleStats()
        return None if stats == empty else stats

    def _retrieval_stats(self, c: float) -> RetrievalStats | None:
        if not self.retrieval.recall.n and not self.retrieval_unmeasured:
            return None
        settings = self.settings.retrieval
        return RetrievalStats(
            **self.retrieval.build(c),
            k=settings.k if settings is not None else None,
            sources=sorted(self.retrieval_sources),
            unmeasured=self.retrieval_unmeasured,
            by_category={
                k: RetrievalSlice(**v.build(c)) for k, v in sorted(self.retrieval_by.items())
            },
            cases_worst=sorted(self.retrieval_cases, key=_worst_first)[:IDS_KEPT],
        )

    def _fallback_stats(self, c: float) -> FallbackStats | None:
        cells = self.fallback_cells
        if not sum(cells.values()) and not self.fallback_unmeasured:
            return None
        tp, fp, fn, tn = cells["tp"], cells["fp"], cells["fn"], cells["tn"]
        return FallbackStats(
            tp=tp,
            fp=fp,
            fn=fn,
            tn=tn,
            accuracy=RateAcc(tp + tn, tp + fp + fn + tn).build(c),
            precision=RateAcc(tp, tp + fp).build(c),
            recall=RateAcc(tp, tp + fn).build(c),
            sources=sorted(self.fallback_sources),
            unmeasured=self.fallback_unmeasured,
            missed_cases=self.missed,
            false_alarm_cases=self.false_alarms,
        )

    def _satisfaction_stats(self, c: float) -> SatisfactionStats | None:
        if not self.feedback.n:
            return None
        return SatisfactionStats(
            rated=self.feedback.n,
            unrated=self.unrated,
            score=self.feedback.build(c),
            satisfied=self.satisfied.build(c),
            satisfied_at=self.settings.satisfied_at,
            by_category={k: v.build(c) for k, v in sorted(self.satisfied_by.items())},
            unsatisfied_cases=self.unsatisfied,
        )

    def _planning_stats(self, c: float) -> PlanningStats | None:
        if not self.reviews:
            return None
        return PlanningStats(
            reviewed=self.grades.n,
            unreviewed=self.unreviewed,
            grade=self.grades.build(c),
            acceptable=self.acceptable.build(c),
            by_grade={str(g): n for g, n in sorted(self.grade_counts.items())},
            by_category={k: v.build(c) for k, v in sorted(self.grades_by.items())},
            stale=len(set(self.reviews) - self.reviewed_keys),
            poor_cases=self.poor,
        )

    def warnings(self) -> list[str]:
        out: list[str] = []
        for name, n in sorted(self.unreported.items()):
            metric = "routing" if name == "route" else "skill"
            out.append(
                f"{metric} accuracy: {n} scored result(s) expect a {name} (labels.{name}) but "
                f"the agent reported none, so they are not measured; report it as "
                f'"labels": {{"{name}": ...}} in the reply (docs/providers.md)'
            )
        if self.retrieval_unmeasured:
            out.append(
                f"retrieval: {self.retrieval_unmeasured} scored result(s) name relevant "
                "knowledge (labels.knowledge) but what the agent retrieved is unknown, so they "
                "are not measured: report labels.knowledge in the reply, or name the retrieval "
                "tool in the suite's modules.retrieval (docs/metrics.md#module-metrics)"
            )
        if self.fallback_unmeasured:
            out.append(
                f"degradation triggers: {self.fallback_unmeasured} scored result(s) have "
                "labels.fallback but whether the agent fell back is unknown, so they are not "
                "measured: report labels.fallback in the reply, or name the hand-off tools or "
                "replies in the suite's modules.fallback (docs/metrics.md#module-metrics)"
            )
        unmatched = len(set(self.feedback_file) - self.feedback_used)
        if unmatched:
            out.append(
                f"user satisfaction: {unmatched} feedback entr(ies) match no result of this run "
                "(by trace id, the run's exported trace id, or case id and trial); left out"
            )
        stale = len(set(self.reviews) - self.reviewed_keys)
        if stale:
            out.append(
                f"planning review: {stale} review(s) name a case and trial this run has not "
                "scored (an errored or removed case); they are left out"
            )
        return out


def _worst_first(row: RetrievalCase) -> tuple[float, float, str, int]:
    precision = row.precision if row.precision is not None else -1.0
    return row.recall, precision, row.case_id, row.trial
