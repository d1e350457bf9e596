"""The shape of ``OUT/comparison.json``: every agent of a matrix run side by side.

Written by :func:`agentgauge.metrics.compare_matrix` (``metrics/_matrix.py``) and read back by
:func:`agentgauge.metrics.read_matrix`; the reports (console, Markdown, JUnit, HTML dashboard)
render it. Field names are stable: the HTML dashboard reads them.
"""

from __future__ import annotations

from typing import Final, Literal

from pydantic import Field

from .._factories import factory_of, new_dict, new_list
from ..schema import Model
from ._compare import MetricDelta
from ._model import Cost, Latency, Mean, Rate

__all__ = [
    "MATRIX_VERSION",
    "MODULE_MEANS",
    "MODULE_METRICS",
    "MatrixAgentStats",
    "MatrixComparison",
    "MatrixPair",
    "MatrixPerformance",
    "MatrixQuality",
    "MemberStatus",
    "ModulePairTest",
    "Quantile",
    "ScenarioStats",
]

#: version of the comparison.json shape (bumped on any incompatible change)
MATRIX_VERSION = 1

#: the module-level rates of :attr:`MatrixQuality.modules`: (key, module, label), in the order
#: a radar chart draws them (perception, planning, memory, tool use)
MODULE_METRICS: Final[tuple[tuple[str, str, str], ...]] = (
    ("intent_accuracy", "perception", "intent recognition"),
    ("clarification_rate", "perception", "clarification"),
    ("routing_accuracy", "planning", "routing"),
    ("skill_accuracy", "planning", "skill"),
    ("call_decision_accuracy", "planning", "tool-call decision"),
    ("memory_retention", "memory", "memory retention"),
    ("tool_selection_accuracy", "tool", "tool selection"),
    ("argument_accuracy", "tool", "arguments"),
    # the module metrics of docs/metrics.md#module-metrics (Summary.modules)
    ("retrieval_hit_rate", "memory", "retrieval hit"),
    ("fallback_accuracy", "planning", "degradation trigger"),
    ("planning_acceptable", "planning", "planning path 4–5 (expert)"),
    ("user_satisfaction", "user", "user satisfaction"),
)
#: the module metrics that are means (:meth:`Summary.module_mean`), in
#: :attr:`MatrixQuality.module_means`: (key, module, label); shares of 0..1 except the grade
MODULE_MEANS: Final[tuple[tuple[str, str, str], ...]] = (
    ("retrieval_precision", "memory", "retrieval precision"),
    ("retrieval_recall", "memory", "retrieval recall"),
    ("planning_grade", "planning", "planning grade (1–5)"),
)

#: ``done``: the member's run finished and was summarised; ``failed``: it could not run (the
#: error says why); ``missing``: it has not run yet (an interrupted matrix)
MemberStatus = Literal["done", "failed", "missing"]


class Quantile(Model):
    """A latency percentile (ms) with a distribution-free interval from order statistics."""

    q: float
    n: int = 0
    value: float | None = None
    low: float | None = None
    high: float | None = None


class MatrixQuality(Model):
    """How well an agent did (rates over scored results, with Wilson intervals)."""

    pass_rate: Rate = Field(default_factory=factory_of(Rate))
    error_rate: Rate = Field(default_factory=factory_of(Rate))
    tool_selection: Rate = Field(default_factory=factory_of(Rate))
    arguments: Rate = Field(default_factory=factory_of(Rate))
    #: partial argument credit (mean per result)
    arguments_partial: Mean = Field(default_factory=factory_of(Mean))
    behavior: Rate = Field(default_factory=factory_of(Rate))
    task_completion: Rate = Field(default_factory=factory_of(Rate))
    #: results that check the world's state and reached the goal state (docs/worlds.md)
    goal_completion: Rate = Field(default_factory=factory_of(Rate))
    #: every scorer's (judges and deterministic checks of ``scorers:``) mean 0..1 value
    scorers: dict[str, Mean] = Field(default_factory=new_dict)
    #: the scale each scorer's scores are read on (``ScorerStats.scale``: a 1..5 judge, a
    #: rubric's own), and its mean on it (what the reports show)
    scorer_scales: dict[str, tuple[float, float]] = Field(default_factory=new_dict)
    scorers_on_scale: dict[str, Mean] = Field(default_factory=new_dict)
    scorer_pass_rates: dict[str, Rate] = Field(default_factory=new_dict)
    #: module-level rates, keyed as :data:`MODULE_METRICS` (a rate with ``n == 0``: the suite
    #: has no labels for it)
    modules: dict[str, Rate] = Field(default_factory=new_dict)
    #: the module metrics that are means, keyed as :data:`MODULE_MEANS` (absent: the run has
    #: no such data; never a 0 standing for unknown)
    module_means: dict[str, Mean] = Field(default_factory=new_dict)


class MatrixPerformance(Model):
    """How fast an agent answered: per-result latency and time to first token, milliseconds."""

    latency: Latency = Field(default_factory=factory_of(Latency))
    latency_mean: Mean = Field(default_factory=factory_of(Mean))
    p50: Quantile = Field(default_factory=lambda: Quantile(q=0.5))
    p95: Quantile = Field(default_factory=lambda: Quantile(q=0.95))
    #: only results that streamed (``run --stream``)
    ttft: Latency = Field(default_factory=factory_of(Latency))
    ttft_p50: Quantile = Field(default_factory=lambda: Quantile(q=0.5))
    ttft_p95: Quantile = Field(default_factory=lambda: Quantile(q=0.95))


class ScenarioStats(Model):
    """One scenario (case category) of one agent."""

    results: int = 0
    pass_rate: Rate = Field(default_factory=factory_of(Rate))
    #: mean input + output tokens per result
    tokens: Mean = Field(default_factory=factory_of(Mean))
    latency: Latency = Field(default_factory=factory_of(Latency))


class MatrixAgentStats(Model):
    """One member of the matrix: its run and its Quality, Cost and Performance."""

    label: str
    agent: str
    #: the member's run directory, relative to the matrix folder
    run_dir: str
    status: MemberStatus = "done"
    #: why a ``failed`` member could not run
    error: str | None = None
    #: 1 = best; members equal on every figure the ranking reads share a rank; members that
    #: did not finish are ranked last
    rank: int = 0
    #: results (case × trial) and distinct cases
    results: int = 0
    cases: int = 0
    quality: MatrixQuality = Field(default_factory=factory_of(MatrixQuality))
    cost: Cost = Field(default_factory=factory_of(Cost))
    performance: MatrixPerformance = Field(default_factory=factory_of(MatrixPerformance))
    #: per scenario (case category)
    scenarios: dict[str, ScenarioStats] = Field(default_factory=new_dict)
    #: the member's gates (``run --gate``): None when they were not checked
    gates_passed: bool | None = None
    #: names of the gates it failed (``min_pass_rate`` ...)
    gate_failures: list[str] = Field(default_factory=new_list)
    #: the member's system prompt (its run.json ``options.system``, else the matrix's entry or
    #: ``run --system``): None when it used the suite's ``defaults.system``; ``""``: none at all
    system: str | None = None


class ModulePairTest(Model):
    """One module rate of a pair (:data:`MODULE_METRICS`: intent recognition, clarification,
    routing, skill, tool-call decision, memory retention, tool selection, arguments, retrieval
    hit, degradation trigger, planning 4–5, user satisfaction), ``b - a`` over the cases both
    agents have a verdict on: the exact McNemar test on those per-case verdicts (a case is a
    success when every verdict of every trial was), Holm-adjusted over the pairs of that
    metric. Untested (no such case): ``p_value`` None and ``note`` says so, never a 0."""

    metric: str
    #: cases both agents have a verdict on
    n: int = 0
    delta: float | None = None
    #: the paired bootstrap interval of ``delta``
    low: float | None = None
    high: float | None = None
    #: None: not tested (``note`` says why)
    p_value: float | None = None
    #: ``p_value`` adjusted for the pairs tested on this metric (Holm); ``significant`` uses it
    p_adjusted: float | None = None
    significant: bool = False
    #: the label of the agent significantly better on this module (None: no such difference)
    better: str | None = None
    #: ``unknown: ...`` (untested) or ``not enough pairs: ...`` (too few shared cases for any
    #: difference to be significant); None: tested on enough cases
    note: str | None = None


class MatrixPair(Model):
    """Agents ``a`` and ``b`` compared on the cases both ran (``b`` minus ``a``).

    A case's verdict is passed when every trial passed; ``a_only`` / ``b_only`` count the cases
    only that agent passed, and the exact McNemar test is on those discordant cases.
    """

    a: str
    b: str
    #: cases both ran
    shared_cases: int = 0
    a_only: int = 0
    b_only: int = 0
    #: exact two-sided McNemar p-value of the pass-rate difference
    p_value: float = 1.0
    #: ``p_value`` adjusted for the number of pairs (Holm); ``significant`` uses this one
    p_adjusted: float = 1.0
    significant: bool = False
    #: the label of the significantly better agent (None: no significant difference)
    better: str | None = None
    #: ``b - a`` of each compared metric with its paired bootstrap interval
    deltas: list[MetricDelta] = Field(default_factory=new_list)
    #: the module rates both agents measured, each tested (see :class:`ModulePairTest`)
    modules: list[ModulePairTest] = Field(default_factory=new_list)

    def delta(self, metric: str) -> MetricDelta | None:
        return next((d for d in self.deltas if d.metric == metric), None)

    def module(self, metric: str) -> ModulePairTest | None:
        return next((t for t in self.modules if t.metric == metric), None)


class MatrixComparison(Model):
    """Every agent of a matrix run side by side (``OUT/comparison.json``)."""

    version: int = MATRIX_VERSION
    suite: str = ""
    #: the matrix folder
    out_dir: str = ""
    confidence: float = 0.95
    #: significance level of the pairwise tests (after the Holm adjustment)
    alpha: float = 0.05
    #: in the matrix's order
    agents: list[MatrixAgentStats] = Field(default_factory=new_list)
    #: labels, best first (pass rate, then fewer errors, then lower mean cost, then matrix order)
    ranking: list[str] = Field(default_factory=new_list)
    #: every pair of finished agents, in matrix order (``a`` before ``b``)
    pairs: list[MatrixPair] = Field(default_factory=new_list)
    #: every scenario any agent ran, sorted
    scenarios: list[str] = Field(default_factory=new_list)
    #: every scorer name any agent has, sorted
    scorers: list[str] = Field(default_factory=new_list)
    warnings: list[str] = Field(default_factory=new_list)

    def agent(self, label: str) -> MatrixAgentStats | None:
        return next((a for a in self.agents if a.label == label), None)

    def pair(self, a: str, b: str) -> MatrixPair | None:
        """The pair of ``a`` and ``b`` in either order (its deltas are ``pair.b - pair.a``)."""
        return next((p for p in self.pairs if {p.a, p.b} == {a, b}), None)

    def significant_pairs(self) -> list[MatrixPair]:
        return [p for p in self.pairs if p.significant]

    def prompts_differ(self) -> bool:
        """Whether the members ran with different system prompts (the reports then show them)."""
        return len({a.system for a in self.agents}) > 1
