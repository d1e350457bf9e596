"""The shape of ``summary.json``: every metric of a run, versioned (docs/metrics.md)."""

from __future__ import annotations

from typing import get_args

from pydantic import Field

from .._factories import factory_of, new_dict, new_list
from ..schema import (
    FIVE_POINT_SCORERS,
    FORMAT_VERSION,
    Model,
    RegressionMetric,
    RunRecord,
    StateDiff,
)
from ._base_model import Mean as Mean
from ._base_model import Rate as Rate
from ._module_model import ModuleStats
from ._users import UserStats

#: version of the summary.json shape (bumped on any incompatible change)
SUMMARY_VERSION = 1


class Latency(Model):
    """Latency percentiles in milliseconds (nearest rank; see docs/metrics.md for large runs)."""

    n: int = 0
    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    max: float | None = None
    mean: float | None = None
    #: true when the slice outgrew the exact buffer and percentiles come from a 1 % histogram
    approximate: bool = False


class Slice(Model):
    """Headline numbers of one slice of results (a category, a tag, a tool...)."""

    #: results (case × trial) in the slice, errors included
    results: int = 0
    #: pass rate over scored results (errors excluded from the denominator)
    pass_rate: Rate = Field(default_factory=factory_of(Rate))
    #: error rate over the results that are not user errors
    error_rate: Rate = Field(default_factory=factory_of(Rate))
    #: results whose simulated user broke its instructions (``user_error``, docs/users.md), and
    #: their share of all results; left out of every other rate
    user_errors: int = 0
    user_error_rate: Rate = Field(default_factory=factory_of(Rate))
    #: mean partial-credit score over scored results
    mean_score: float | None = None
    latency: Latency = Field(default_factory=factory_of(Latency))
    #: goal completion: scored results whose final state passed their state checks, out of the
    #: scored results that check the state (``expect.state``, docs/worlds.md); n 0: none do
    goal_completion: Rate = Field(default_factory=factory_of(Rate))


class ConfusionCell(Model):
    expected: str
    actual: str
    count: int


class ToolSelection(Model):
    accuracy: Rate = Field(default_factory=factory_of(Rate))
    #: expected tool × called tool (``<no tool>`` when none); sorted by expected, then actual
    confusion: list[ConfusionCell] = Field(default_factory=new_list)


class IntentStats(Model):
    intent: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    precision: float | None = None
    recall: float | None = None

    @classmethod
    def of(cls, intent: str, tp: int, fp: int, fn: int) -> IntentStats:
        """The counts of ``intent`` with their precision and recall (None: nothing to divide)."""
        return cls(
            intent=intent,
            tp=tp,
            fp=fp,
            fn=fn,
            precision=tp / (tp + fp) if tp + fp else None,
            recall=tp / (tp + fn) if tp + fn else None,
        )


class Coverage(Model):
    """Multi-intent cases: how many of their expected intents the agent served."""

    cases: int = 0
    expected: int = 0
    matched: int = 0
    missed: int = 0
    #: cases where every expected intent was served
    complete: Rate = Field(default_factory=factory_of(Rate))


class Diagnosis(Model):
    """Module-level metrics from case labels and turn scores (docs/metrics.md#diagnosis)."""

    intent_accuracy: Rate = Field(default_factory=factory_of(Rate))
    #: where the intents came from: ``predicted`` labels reported by the agent, or ``calls``
    intent_source: str = "calls"
    intents: list[IntentStats] = Field(default_factory=new_list)
    multi_intent: Coverage = Field(default_factory=factory_of(Coverage))
    clarification_rate: Rate = Field(default_factory=factory_of(Rate))
    routing_accuracy: Rate = Field(default_factory=factory_of(Rate))
    skill_accuracy: Rate = Field(default_factory=factory_of(Rate))
    call_decision_accuracy: Rate = Field(default_factory=factory_of(Rate))
    memory_retention: Rate = Field(default_factory=factory_of(Rate))
    #: retention by turn distance (the turn index of the later turn, as a string key)
    retention_by_distance: dict[str, Rate] = Field(default_factory=new_dict)


class Cost(Model):
    model_calls: Mean = Field(default_factory=factory_of(Mean))
    tool_calls: Mean = Field(default_factory=factory_of(Mean))
    input_tokens: Mean = Field(default_factory=factory_of(Mean))
    output_tokens: Mean = Field(default_factory=factory_of(Mean))
    #: only results that reported a cost
    cost_usd: Mean = Field(default_factory=factory_of(Mean))


class Performance(Model):
    latency: Latency = Field(default_factory=factory_of(Latency))
    ttft: Latency = Field(default_factory=factory_of(Latency))
    latency_mean: Mean = Field(default_factory=factory_of(Mean))
    by_category: dict[str, Latency] = Field(default_factory=new_dict)
    #: results over their latency budget (the case's own, else the gates' per-category budget)
    budget_violations: Rate = Field(default_factory=factory_of(Rate))
    budget_violations_by_category: dict[str, Rate] = Field(default_factory=new_dict)
    #: results whose time to first token exceeded ``gates.max_ttft_s``
    ttft_violations: Rate = Field(default_factory=factory_of(Rate))


class ScorerStats(Model):
    """One scorer's scores over the scored results (``summary.scorers.NAME``).

    A result contributes its score of that name (turn scores of a multi-turn case combined, as
    for the headline rates); results where the scorer was skipped count in ``skipped`` only.
    """

    #: mean of the scores' 0..1 values, with its interval
    mean: Mean = Field(default_factory=factory_of(Mean))
    pass_rate: Rate = Field(default_factory=factory_of(Rate))
    failures: int = 0
    #: the first case ids that failed it
    failed_cases: list[str] = Field(default_factory=new_list)
    #: decided scores whose judge samples agreed too little (``Score.uncertain``), and how
    #: many of those the majority passed; gates count them as ``ScorerGate.uncertain`` says
    uncertain: int = 0
    uncertain_passed: int = 0
    uncertain_cases: list[str] = Field(default_factory=new_list)
    #: the scale the scorer's scores are read on: the one they declare (``Score.scale``: a
    #: suite rubric's ``[0, 10]``), else the judge's 1..5 for the built-in rated scorers
    #: (``judge.groundedness`` ...), else 0..1 (None in a summary.json of an older version:
    #: :func:`scorer_scale` says which)
    scale: tuple[float, float] | None = None
    #: ``mean`` on that scale (what every report shows: a 1..5 judge's 0.5 is 3.00)
    mean_on_scale: Mean = Field(default_factory=factory_of(Mean))


def scorer_scale(name: str, declared: tuple[float, float] | None = None) -> tuple[float, float]:
    """The scale a scorer's scores are shown and gated on: ``declared`` (the scores' own),
    else 1..5 for the judge's rated scorers, else 0..1."""
    if declared is not None:
        return declared
    return (1.0, 5.0) if name in FIVE_POINT_SCORERS else (0.0, 1.0)


def mean_on_scale(m: Mean, scale: tuple[float, float]) -> Mean:
    """A mean of 0..1 values as the same mean on ``scale`` (``low + value * (high - low)``)."""
    lo, width = scale[0], scale[1] - scale[0]

    def at(x: float | None) -> float | None:
        return None if x is None else lo + x * width

    return Mean(
        n=m.n, mean=at(m.mean), low=at(m.low), high=at(m.high), total=lo * m.n + m.total * width
    )


class Trials(Model):
    """Repeated trials: pass@k, pass^k and flakiness (only meaningful with trials > 1)."""

    #: the smallest number of trials any case has (pass@k is reported for k up to it)
    trials: int = 1
    cases: int = 0
    pass_at_k: dict[str, float] = Field(default_factory=new_dict)
    pass_hat_k: dict[str, float] = Field(default_factory=new_dict)
    #: cases whose trials disagree
    flaky: Rate = Field(default_factory=factory_of(Rate))
    flaky_cases: list[str] = Field(default_factory=new_list)


class Failure(Model):
    case_id: str
    trial: int = 0
    category: str
    status: str
    score: float
    explanation: str = ""
    expected: str | None = None
    actual: str | None = None
    #: the first differences its world's state checks found (docs/worlds.md)
    state_diff: list[StateDiff] = Field(default_factory=new_list)


class RedteamFamily(Model):
    """One attack family: how often the attack worked, and the benign part still done."""

    results: int = 0
    attack_success: Rate = Field(default_factory=factory_of(Rate))
    utility: Rate = Field(default_factory=factory_of(Rate))


class RedteamStats(Model):
    """Red-team metrics of a run (``summary.json``'s ``redteam``; absent without red-team
    cases; how they are counted: ``metrics/_redteam.py``, docs/redteam.md)."""

    attacks: int = 0
    #: compromised results / scored attack results (lower is better; the gate wants 0)
    attack_success: Rate = Field(default_factory=factory_of(Rate))
    utility_under_attack: Rate = Field(default_factory=factory_of(Rate))
    control_utility: Rate = Field(default_factory=factory_of(Rate))
    by_family: dict[str, RedteamFamily] = Field(default_factory=new_dict)
    #: the compromised cases (case id, first 50)
    compromised_cases: list[str] = Field(default_factory=new_list)


class Summary(Model):
    """Every metric of one run (``RUN_DIR/summary.json``)."""

    version: int = SUMMARY_VERSION
    format_version: int = FORMAT_VERSION
    run: RunRecord | None = None
    confidence: float = 0.95
    #: distinct case ids
    cases: int = 0
    overall: Slice = Field(default_factory=factory_of(Slice))
    by_category: dict[str, Slice] = Field(default_factory=new_dict)
    by_difficulty: dict[str, Slice] = Field(default_factory=new_dict)
    by_tag: dict[str, Slice] = Field(default_factory=new_dict)
    by_tool: dict[str, Slice] = Field(default_factory=new_dict)
    tool_selection: ToolSelection = Field(default_factory=factory_of(ToolSelection))
    arguments_strict: Rate = Field(default_factory=factory_of(Rate))
    arguments_partial: Mean = Field(default_factory=factory_of(Mean))
    behavior: Rate = Field(default_factory=factory_of(Rate))
    behavior_by_expected: dict[str, Rate] = Field(default_factory=new_dict)
    task_completion: Rate = Field(default_factory=factory_of(Rate))
    diagnosis: Diagnosis = Field(default_factory=factory_of(Diagnosis))
    cost: Cost = Field(default_factory=factory_of(Cost))
    performance: Performance = Field(default_factory=factory_of(Performance))
    trials: Trials = Field(default_factory=factory_of(Trials))
    #: every scorer's scores by name (deterministic checks and judges alike)
    scorers: dict[str, ScorerStats] = Field(default_factory=new_dict)
    #: results that called a forbidden tool (zero tolerance)
    forbidden_tool_calls: int = 0
    forbidden_tool_cases: list[str] = Field(default_factory=new_list)
    #: attack success per family, utility under attack (cases tagged redteam / redteam-control)
    redteam: RedteamStats | None = None
    #: retrieval, degradation triggers, the cascade rule's exclusions, user satisfaction and
    #: expert planning review (docs/metrics.md#module-metrics); None: the run has none of them
    modules: ModuleStats | None = None
    #: results copied whole from the cache (their latency, tokens and cost are those of the
    #: earlier run that produced them)
    replayed: int = 0
    #: the simulated users (docs/users.md): how their conversations ended, their own cost
    users: UserStats | None = None
    #: the lowest-scoring failures and errors, worst first
    worst_failures: list[Failure] = Field(default_factory=new_list)
    warnings: list[str] = Field(default_factory=new_list)

    def rate(self, metric: str) -> Rate | None:
        """A headline rate by name (the names gates and comparisons use)."""
        return {
            "pass_rate": self.overall.pass_rate,
            "error_rate": self.overall.error_rate,
            "tool_selection_accuracy": self.tool_selection.accuracy,
            "argument_accuracy": self.arguments_strict,
            "behavior_accuracy": self.behavior,
            "task_completion": self.task_completion,
            "goal_completion": self.overall.goal_completion,
            "intent_accuracy": self.diagnosis.intent_accuracy,
            "clarification_rate": self.diagnosis.clarification_rate,
            "routing_accuracy": self.diagnosis.routing_accuracy,
            "skill_accuracy": self.diagnosis.skill_accuracy,
            "call_decision_accuracy": self.diagnosis.call_decision_accuracy,
            "memory_retention": self.diagnosis.memory_retention,
            **self._module_rates(),
        }.get(metric)

    def _module_rates(self) -> dict[str, Rate]:
        m = self.modules
        if m is None:
            return {}
        out: dict[str, Rate] = {}
        if m.retrieval is not None:
            out["retrieval_hit_rate"] = m.retrieval.hit_rate
        if m.fallback is not None:
            out["fallback_accuracy"] = m.fallback.accuracy
            out["fallback_precision"] = m.fallback.precision
            out["fallback_recall"] = m.fallback.recall
        if m.satisfaction is not None:
            out["user_satisfaction"] = m.satisfaction.satisfied
        if m.planning is not None:
            out["planning_acceptable"] = m.planning.acceptable
        return out

    def module_mean(self, metric: str) -> Mean | None:
        """A module metric that is a mean, by name: ``retrieval_precision``,
        ``retrieval_recall``, ``user_satisfaction_score`` (0..1), ``planning_grade`` (1–5)."""
        m = self.modules
        if m is None:
            return None
        means: dict[str, Mean] = {}
        if m.retrieval is not None:
            means["retrieval_precision"] = m.retrieval.precision
            means["retrieval_recall"] = m.retrieval.recall
        if m.satisfaction is not None:
            means["user_satisfaction_score"] = m.satisfaction.score
        if m.planning is not None:
            means["planning_grade"] = m.planning.grade
        return means.get(metric)


#: headline rates compared between runs (error_rate is the one where lower is better)
RATE_METRICS: tuple[str, ...] = get_args(RegressionMetric)
