"""Gate thresholds: what a run must reach for a CI build to pass."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from .._factories import new_dict
from ._base import Model

Percentile = Literal["p50", "p90", "p95", "max"]
#: how a gate counts an uncertain judge score
UncertainPolicy = Literal["fail", "pass", "exclude"]
#: headline rates compared against a baseline (error_rate: a rise is the regression)
RegressionMetric = Literal[
    "pass_rate",
    "tool_selection_accuracy",
    "argument_accuracy",
    "behavior_accuracy",
    "task_completion",
    "error_rate",
]


#: scorers whose value 0..1 stands for a judge's 1..5 rating (``1 + 4 * value``): their gates'
#: ``min_mean`` is written on that 1..5 scale unless the gate names another ``scale``
FIVE_POINT_SCORERS = frozenset(
    {
        "judge.groundedness",
        "judge.relevance",
        "judge.coherence",
        "judge.response_quality",
        "judge.fluency",
    }
)


class ScorerGate(Model):
    """Thresholds on one scorer's scores over a run (``gates.scorers.NAME``).

    ``min_mean`` is on the scorer's own scale (``scale``: ``[low, high]`` that the score's 0..1
    value maps onto; the default is ``[1, 5]`` for the judge's rated scorers, else ``[0, 1]``).
    ``max_regression`` is the largest allowed *relative* drop of the mean against the baseline
    run (0.02 = 2 % below the baseline's mean), checked even when the mean is above ``min_mean``.
    """

    min_mean: float | None = None
    min_pass_rate: float | None = Field(default=None, ge=0, le=1)
    #: zero tolerance is ``0``: the gate fails on the first failing score
    max_failures: int | None = Field(default=None, ge=0)
    max_regression: float | None = Field(default=None, ge=0, le=1)
    scale: tuple[float, float] | None = None
    #: what an ``uncertain`` judge score (samples that agreed less than ``judge_agreement``)
    #: counts as in ``min_pass_rate`` and ``max_failures``: a failure (the default), a pass,
    #: or neither (``exclude``: left out of both, and counted in the check's message)
    uncertain: UncertainPolicy = "fail"

    def bounds(self, scorer: str) -> tuple[float, float]:
        if self.scale is not None:
            return self.scale
        return (1.0, 5.0) if scorer in FIVE_POINT_SCORERS else (0.0, 1.0)


class Gates(Model):
    """Thresholds checked by ``agentgauge gate``. Rates are fractions in [0, 1]."""

    min_pass_rate: float | None = Field(default=None, ge=0, le=1)
    #: minimum pass rate per category
    min_category_pass_rate: dict[str, float] = Field(default_factory=new_dict)
    min_tool_selection_accuracy: float | None = Field(default=None, ge=0, le=1)
    max_error_rate: float | None = Field(default=None, ge=0, le=1)
    #: the largest share of results whose simulated user broke its instructions
    #: (``user_error``, docs/users.md); nothing measured (no user cases) passes
    max_user_error_rate: float | None = Field(default=None, ge=0, le=1)
    #: maximum latency per percentile, seconds (e.g. ``{p95: 8}``)
    max_latency_s: dict[Percentile, float] = Field(default_factory=new_dict)
    #: per-category latency limits, seconds: ``{simple: {p95: 3}}``
    max_category_latency_s: dict[str, dict[Percentile, float]] = Field(default_factory=new_dict)
    #: per-result latency budget by category, seconds (``{simple: 3, complex: 8}``); a case's own
    #: ``latency_budget_s`` takes precedence. Violations are counted in the summary.
    latency_budget_s: dict[str, float] = Field(default_factory=new_dict)
    #: per-result time-to-first-token budget, seconds
    max_ttft_s: float | None = Field(default=None, gt=0)
    #: largest allowed fraction of results over their latency budget
    max_budget_violation_rate: float | None = Field(default=None, ge=0, le=1)
    min_argument_accuracy: float | None = Field(default=None, ge=0, le=1)
    min_behavior_accuracy: float | None = Field(default=None, ge=0, le=1)
    min_task_completion: float | None = Field(default=None, ge=0, le=1)
    #: the least share of the results checking the world's state (``expect.state``) that reach
    #: their goal state (docs/worlds.md)
    min_goal_completion: float | None = Field(default=None, ge=0, le=1)
    #: module metrics (docs/metrics.md#diagnosis): the agent's reported or observed intent,
    #: route and skill against the case's ``labels``, and retention over later turns
    min_intent_accuracy: float | None = Field(default=None, ge=0, le=1)
    min_routing_accuracy: float | None = Field(default=None, ge=0, le=1)
    min_skill_accuracy: float | None = Field(default=None, ge=0, le=1)
    min_memory_retention: float | None = Field(default=None, ge=0, le=1)
    #: the module metrics of docs/metrics.md#module-metrics: mean retrieval precision and
    #: recall @k over the cases naming their relevant knowledge (``labels.knowledge``)
    min_retrieval_precision: float | None = Field(default=None, ge=0, le=1)
    min_retrieval_recall: float | None = Field(default=None, ge=0, le=1)
    #: degradation-trigger accuracy over the cases with ``labels.fallback``, and its recall
    #: (the share of the cases that needed a fallback that got one)
    min_fallback_accuracy: float | None = Field(default=None, ge=0, le=1)
    min_fallback_recall: float | None = Field(default=None, ge=0, le=1)
    #: of the fallbacks made, the share that were called for (needless hand-offs cost people)
    min_fallback_precision: float | None = Field(default=None, ge=0, le=1)
    #: the share of user feedback at or above ``modules.satisfied_at`` of its scale
    min_user_satisfaction: float | None = Field(default=None, ge=0, le=1)
    #: the expert reviewers' mean planning-path grade, on their 1–5 scale (``agentgauge review``)
    min_planning_grade: float | None = Field(default=None, ge=1, le=5)
    #: zero tolerance: the gate fails if any case called a forbidden tool
    forbid_forbidden_tool_calls: bool = True
    #: zero tolerance for red-team cases (tag ``redteam``): the gate fails if any attack
    #: succeeded (a forbidden tool called, a secret or the system prompt leaked); checked only
    #: when the run has red-team results
    forbid_attack_success: bool = True
    #: largest allowed drop (in percentage points) of any gated metric against the baseline
    max_regression_points: float | None = Field(default=None, ge=0)
    #: metrics checked for regressions (names as in summary.json's headline rates)
    regression_metrics: list[RegressionMetric] = Field(
        default_factory=lambda: list(get_args(RegressionMetric))
    )
    #: only fail a regression when it is statistically significant at ``alpha``
    require_significance: bool = False
    alpha: float = Field(default=0.05, gt=0, lt=1)
    #: warn when a gated slice has fewer cases than this
    min_sample_size: int = Field(default=200, ge=1)
    #: thresholds on any scorer's scores by name (``judge.groundedness``, ``safety``,
    #: ``similarity``, ``arguments``...): mean on its own scale, pass rate, failure count,
    #: relative regression against the baseline
    scorers: dict[str, ScorerGate] = Field(default_factory=new_dict)
