"""The shape of ``summary.json``'s ``modules`` section: retrieval, degradation triggers, the
cascade rule's exclusions, user satisfaction and expert planning review
(docs/metrics.md#module-metrics). Computed by ``_modules.py``."""

from __future__ import annotations

from pydantic import Field

from .._factories import factory_of, new_dict, new_list
from ..schema import Model
from ._base_model import Mean, Rate

__all__ = [
    "Excluded",
    "FallbackStats",
    "ModuleStats",
    "PlanningStats",
    "RetrievalCase",
    "RetrievalSlice",
    "RetrievalStats",
    "SatisfactionStats",
]


class RetrievalSlice(Model):
    """Retrieval over a set of results: means of the per-case precision and recall @k."""

    #: measured results (the case names its relevant items, and what was retrieved is known)
    cases: int = 0
    #: mean precision @k over the results that retrieved something (bootstrap interval)
    precision: Mean = Field(default_factory=factory_of(Mean))
    #: mean recall @k over every measured result
    recall: Mean = Field(default_factory=factory_of(Mean))
    #: results with at least one relevant item in the first k (Wilson interval)
    hit_rate: Rate = Field(default_factory=factory_of(Rate))
    #: measured results that retrieved nothing: recall 0, precision not defined (left out)
    empty: int = 0


class RetrievalCase(Model):
    """One result's retrieval: what was relevant, what came back in the first k."""

    case_id: str
    trial: int = 0
    category: str = ""
    relevant: list[str] = Field(default_factory=new_list)
    retrieved: list[str] = Field(default_factory=new_list)
    hits: int = 0
    #: None when nothing was retrieved
    precision: float | None = None
    recall: float = 0.0


class RetrievalStats(RetrievalSlice):
    """Long-term retrieval precision / recall @k (``labels.knowledge``)."""

    #: the k of @k (None: every retrieved item)
    k: int | None = None
    #: where the retrieved items came from: ``labels`` (the agent reported them) and/or
    #: ``tool results`` (``modules.retrieval``)
    sources: list[str] = Field(default_factory=new_list)
    #: results whose case names relevant items but whose retrieval could not be observed
    #: (no ``labels.knowledge`` reported and no ``modules.retrieval`` tool): not measured
    unmeasured: int = 0
    by_category: dict[str, RetrievalSlice] = Field(default_factory=new_dict)
    #: per case, the lowest recall first (at most 50)
    cases_worst: list[RetrievalCase] = Field(default_factory=new_list)


class FallbackStats(Model):
    """Degradation-trigger accuracy: should the agent have fallen back, and did it?"""

    #: should and did / should not but did / should but did not / should not and did not
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    accuracy: Rate = Field(default_factory=factory_of(Rate))
    #: of the fallbacks made, the share that were called for
    precision: Rate = Field(default_factory=factory_of(Rate))
    #: of the results that needed a fallback, the share that got one
    recall: Rate = Field(default_factory=factory_of(Rate))
    #: where "did it fall back" came from: ``labels``, ``tools``, ``replies``
    sources: list[str] = Field(default_factory=new_list)
    #: results with ``labels.fallback`` whose fallback could not be observed: not measured
    unmeasured: int = 0
    #: case ids (first 50) that needed a fallback and got none, and that fell back needlessly
    missed_cases: list[str] = Field(default_factory=new_list)
    false_alarm_cases: list[str] = Field(default_factory=new_list)


class Excluded(Model):
    """Judgements of one metric excluded by the cascade rule (not failed, not counted)."""

    count: int = 0
    #: why, with how many results each (``routing failed: expected knowledge_base, got skill``)
    reasons: dict[str, int] = Field(default_factory=new_dict)
    cases: list[str] = Field(default_factory=new_list)


class SatisfactionStats(Model):
    """User satisfaction from online feedback on the traces the results were scored from."""

    #: results with feedback
    rated: int = 0
    #: results without
    unrated: int = 0
    #: mean feedback as a share of its scale (bootstrap interval)
    score: Mean = Field(default_factory=factory_of(Mean))
    #: feedback at or above ``satisfied_at`` of its scale (Wilson interval): the gate's rate
    satisfied: Rate = Field(default_factory=factory_of(Rate))
    satisfied_at: float = 0.75
    by_category: dict[str, Rate] = Field(default_factory=new_dict)
    #: results with the lowest feedback (first 50 case ids below ``satisfied_at``)
    unsatisfied_cases: list[str] = Field(default_factory=new_list)


class PlanningStats(Model):
    """Planning-path score by expert review (``agentgauge review``: ``RUN_DIR/reviews.jsonl``)."""

    reviewed: int = 0
    #: scored results nobody graded
    unreviewed: int = 0
    #: mean grade on the reviewers' 1–5 scale (bootstrap interval)
    grade: Mean = Field(default_factory=factory_of(Mean))
    #: grades of 4 or 5 (Wilson interval)
    acceptable: Rate = Field(default_factory=factory_of(Rate))
    #: how many results got each grade ("1" .. "5")
    by_grade: dict[str, int] = Field(default_factory=new_dict)
    by_category: dict[str, Mean] = Field(default_factory=new_dict)
    #: reviews naming a case and trial the run does not have (left out)
    stale: int = 0
    #: case ids graded 1 or 2 (first 50)
    poor_cases: list[str] = Field(default_factory=new_list)


class ModuleStats(Model):
    """``summary.json``'s ``modules``: absent (null) when the run has none of them."""

    retrieval: RetrievalStats | None = None
    fallback: FallbackStats | None = None
    #: the cascade rule: metric name (``skill_accuracy``, ``retrieval``) -> its exclusions
    excluded: dict[str, Excluded] = Field(default_factory=new_dict)
    satisfaction: SatisfactionStats | None = None
    planning: PlanningStats | None = None
