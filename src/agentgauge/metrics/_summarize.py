"""One streaming pass over ``results.jsonl`` that fills a :class:`Summary`."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..schema import CaseResult, Feedback, Gates, ModuleSettings, RunRecord, StateDiff
from ._acc import CaseTrialsAcc, LatencyAcc, MeanAcc, RateAcc, SliceAcc
from ._completeness import missing_results
from ._diagnosis import DiagnosisAcc
from ._model import (
    ConfusionCell,
    Cost,
    Diagnosis,
    Failure,
    Performance,
    ScorerStats,
    Summary,
    ToolSelection,
    Trials,
    mean_on_scale,
    scorer_scale,
)
from ._modules import ModuleAcc
from ._redteam import RedteamAcc
from ._small_samples import small_sample_warnings as small_sample_warnings
from ._stats import pass_at_k, pass_hat_k
from ._users import UsersAcc
from ._verdicts import (
    argument_verdict,
    behavior_verdict,
    case_score,
    is_multi_step,
    split_score_name,
    tool_selection_verdict,
)

SUMMARY_FILE = "summary.json"
#: how many failures the summary keeps, and how many flaky / forbidden case ids it lists
WORST_KEPT = 10
IDS_KEPT = 50

_FailureRow = tuple[bool, float, str, int, str, str, str, str | None, str | None, list[StateDiff]]
#: differences of a failure's world state the summary keeps (the result holds them all)
DIFFS_KEPT = 5


@dataclass(slots=True)
class _Acc:
    """Everything the summary counts, added one result at a time."""

    gates: Gates
    confidence: float
    overall: SliceAcc = field(default_factory=SliceAcc)
    by_category: defaultdict[str, SliceAcc] = field(default_factory=lambda: defaultdict(SliceAcc))
    by_difficulty: defaultdict[str, SliceAcc] = field(default_factory=lambda: defaultdict(SliceAcc))
    by_tag: defaultdict[str, SliceAcc] = field(default_factory=lambda: defaultdict(SliceAcc))
    by_tool: defaultdict[str, SliceAcc] = field(default_factory=lambda: defaultdict(SliceAcc))
    tool_sel: RateAcc = field(default_factory=RateAcc)
    confusion: defaultdict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    args_strict: RateAcc = field(default_factory=RateAcc)
    args_partial: MeanAcc = field(default_factory=MeanAcc)
    behavior: RateAcc = field(default_factory=RateAcc)
    behavior_by: defaultdict[str, RateAcc] = field(default_factory=lambda: defaultdict(RateAcc))
    completion: RateAcc = field(default_factory=RateAcc)
    #: intent, clarification, tool-call decision, memory (``_diagnosis.py``)
    diagnosis: DiagnosisAcc = field(default_factory=DiagnosisAcc)
    #: routing, skill and the module metrics after them (``_modules.py``)
    modules: ModuleAcc = field(default_factory=ModuleAcc)
    # cost and performance
    model_calls: MeanAcc = field(default_factory=MeanAcc)
    tool_calls: MeanAcc = field(default_factory=MeanAcc)
    in_tokens: MeanAcc = field(default_factory=MeanAcc)
    out_tokens: MeanAcc = field(default_factory=MeanAcc)
    cost: MeanAcc = field(default_factory=MeanAcc)
    latency_mean: MeanAcc = field(default_factory=MeanAcc)
    ttft: LatencyAcc = field(default_factory=LatencyAcc)
    budget: RateAcc = field(default_factory=RateAcc)
    budget_by: defaultdict[str, RateAcc] = field(default_factory=lambda: defaultdict(RateAcc))
    ttft_budget: RateAcc = field(default_factory=RateAcc)
    # trials: case id -> [trials, passes], spilled to bucket files past a number of cases
    per_case: CaseTrialsAcc = field(default_factory=lambda: CaseTrialsAcc(kept=IDS_KEPT))
    #: False when run.json says one trial per case: then no per-case state is kept at all
    track_cases: bool = True
    results_seen: int = 0
    replayed: int = 0
    passes_seen: int = 0
    #: results a simulated user broke (``user_error``): in no pass^k / pass@k (docs/users.md)
    user_errors_seen: int = 0
    untracked_trials: bool = False
    forbidden: int = 0
    forbidden_ids: list[str] = field(default_factory=list)
    redteam: RedteamAcc = field(default_factory=RedteamAcc)
    users: UsersAcc = field(default_factory=UsersAcc)
    #: scorer name -> (mean of values, pass/fail, failed case ids)
    scorer_stats: dict[str, tuple[MeanAcc, RateAcc, list[str]]] = field(default_factory=dict)
    #: the first scale a scorer's scores declared (``Score.scale``)
    scorer_scale: dict[str, tuple[float, float]] = field(default_factory=dict)
    #: scorer name -> [uncertain scores, of them passed by the majority, their case ids]
    scorer_uncertain: dict[str, tuple[list[int], list[str]]] = field(default_factory=dict)
    #: (not error, score, case id, trial, category, status, explanation, expected, actual)
    worst: list[_FailureRow] = field(default_factory=list)

    def add(self, r: CaseResult) -> None:
        # a user_error is the simulated user's, not the agent's: in no rate of the agent's
        scored = r.status not in ("error", "user_error")
        goal = r.world.goal_met if r.world is not None else None
        for acc in self._slices(r):
            acc.add(r.status, r.score, r.latency_ms, goal)
        self.results_seen += 1
        self.users.add(r)
        self.redteam.add(r)
        self.modules.add(r)
        self.replayed += r.replayed
        self.passes_seen += r.status == "passed"
        self.user_errors_seen += r.status == "user_error"
        if not self.track_cases:
            self.untracked_trials |= r.trial > 0
        elif r.status != "user_error":
            self.per_case.add(r.case_id, r.status == "passed")
        self._cost(r)
        if any(
            split_score_name(s.name)[1] == "forbidden_tools" and s.passed is False for s in r.scores
        ):
            self.forbidden += 1
            if len(self.forbidden_ids) < IDS_KEPT and r.case_id not in self.forbidden_ids:
                self.forbidden_ids.append(r.case_id)
        if r.status != "passed":
            self._keep_failure(r)
        if not scored:
            return
        self._scorers(r)
        selection = self._tool_selection(r)
        self._arguments(r, selection)
        self._behavior(r)
        if is_multi_step(r):
            self.completion.add(r.status == "passed")
        self.diagnosis.add(r, selection)

    def _slices(self, r: CaseResult) -> list[SliceAcc]:
        out = [self.overall, self.by_category[r.category]]
        if r.difficulty:
            out.append(self.by_difficulty[r.difficulty])
        out.extend(self.by_tag[t] for t in dict.fromkeys(r.tags))
        # a tool expected in any turn: a later turn's tool is as much this case's as turn 0's
        tools = dict.fromkeys([*r.expected_tools, *r.later_expected_tools])
        out.extend(self.by_tool[t] for t in tools)
        return out

    def _cost(self, r: CaseResult) -> None:
        self.model_calls.add(r.model_calls)
        self.tool_calls.add(r.tool_calls)
        if r.usage_recorded:  # a trace without token counts is not 0 tokens
            self.in_tokens.add(r.usage.input_tokens)
            self.out_tokens.add(r.usage.output_tokens)
        if r.cost_usd is not None:
            self.cost.add(r.cost_usd)
        if r.latency_ms > 0:
            self.latency_mean.add(r.latency_ms)
        if r.ttft_ms is not None:
            self.ttft.add(r.ttft_ms)
            if self.gates.max_ttft_s is not None:
                self.ttft_budget.add(r.ttft_ms > self.gates.max_ttft_s * 1000)
        budget = r.latency_budget_s or self.gates.latency_budget_s.get(r.category)
        if budget is not None and r.latency_ms > 0:
            over = r.latency_ms > budget * 1000
            self.budget.add(over)
            self.budget_by[r.category].add(over)

    def _keep_failure(self, r: CaseResult) -> None:
        shown = next((s for s in r.scores if s.passed is False), None)
        self.worst.append(
            (
                r.status != "error",
                r.score,
                r.case_id,
                r.trial,
                r.category,
                r.status,
                r.explanation or (r.error or ""),
                shown.expected if shown else None,
                shown.actual if shown else None,
                r.world.diff[:DIFFS_KEPT] if r.world is not None else [],
            )
        )
        if len(self.worst) > 4 * WORST_KEPT:
            self.worst = sorted(self.worst, key=_failure_order)[:WORST_KEPT]

    def _scorers(self, r: CaseResult) -> None:
        """Every score name of the result, turn scores combined, for ``gates.scorers``."""
        names = dict.fromkeys(split_score_name(s.name)[1] for s in r.scores)
        for name in names:
            verdict = case_score(r.scores, name)
            if verdict is None:
                continue
            stats = self.scorer_stats.get(name)
            if stats is None:
                stats = self.scorer_stats[name] = (MeanAcc(), RateAcc(), [])
                self._scale(r, name)
            mean, rate, failed = stats
            rate.add(verdict.passed)
            if verdict.passed is None:
                continue
            mean.add(verdict.value)
            if not verdict.passed and len(failed) < IDS_KEPT and r.case_id not in failed:
                failed.append(r.case_id)
            if verdict.uncertain:
                counts, ids = self.scorer_uncertain.setdefault(name, ([0, 0], []))
                counts[0] += 1
                counts[1] += bool(verdict.passed)
                if len(ids) < IDS_KEPT and r.case_id not in ids:
                    ids.append(r.case_id)

    def _scale(self, r: CaseResult, name: str) -> None:
        for s in r.scores:
            if s.scale is not None and split_score_name(s.name)[1] == name:
                self.scorer_scale[name] = s.scale
                return

    def _scorer(self, name: str, mean: MeanAcc, rate: RateAcc, failed: list[str]) -> ScorerStats:
        scale = scorer_scale(name, self.scorer_scale.get(name))
        built = mean.build(self.confidence)
        return ScorerStats(
            mean=built,
            pass_rate=rate.build(self.confidence),
            failures=rate.n - rate.passed,
            failed_cases=failed,
            **self._uncertain(name),
            scale=scale,
            mean_on_scale=mean_on_scale(built, scale),
        )

    def _uncertain(self, name: str) -> dict[str, Any]:
        counts, ids = self.scorer_uncertain.get(name, ([0, 0], []))
        return {"uncertain": counts[0], "uncertain_passed": counts[1], "uncertain_cases": ids}

    def _tool_selection(self, r: CaseResult) -> bool | None:
        """Record tool selection; returns whether it passed (None when not applicable)."""
        verdict = tool_selection_verdict(r)
        if verdict is None:
            return None
        ok, expected, actual = verdict
        self.tool_sel.add(ok)
        if ok is not None:
            self.confusion[(expected, actual)] += 1
        return ok

    def _arguments(self, r: CaseResult, selection: bool | None) -> None:
        s = case_score(r.scores, "arguments")
        if s is None:
            return
        ok = argument_verdict(r, selection)
        self.args_strict.add(ok)
        if ok is not None:
            self.args_partial.add(s.value)

    def _behavior(self, r: CaseResult) -> None:
        verdict = behavior_verdict(r)
        if verdict is None:
            return
        ok, expected = verdict
        if expected is not None:
            self.behavior_by[expected].add(ok)
        if expected != "tool_call":
            self.behavior.add(ok)

    def finish(self, run: RunRecord | None) -> Summary:
        c = self.confidence
        trials = self._trials()
        cases = trials.cases
        summary = Summary(
            run=run,
            confidence=c,
            cases=cases if self.track_cases else self.results_seen,
            overall=self.overall.build(c),
            by_category={k: v.build(c) for k, v in sorted(self.by_category.items())},
            by_difficulty={k: v.build(c) for k, v in sorted(self.by_difficulty.items())},
            by_tag={k: v.build(c) for k, v in sorted(self.by_tag.items())},
            by_tool={k: v.build(c) for k, v in sorted(self.by_tool.items())},
            tool_selection=ToolSelection(
                accuracy=self.tool_sel.build(c),
                confusion=[
                    ConfusionCell(expected=e, actual=a, count=n)
                    for (e, a), n in sorted(self.confusion.items())
                ],
            ),
            arguments_strict=self.args_strict.build(c),
            arguments_partial=self.args_partial.build(c),
            behavior=self.behavior.build(c),
            behavior_by_expected={k: v.build(c) for k, v in sorted(self.behavior_by.items())},
            task_completion=self.completion.build(c),
            diagnosis=self._diagnosis(),
            cost=self._cost_stats(),
            performance=self._performance(),
            trials=trials,
            scorers={
                name: self._scorer(name, mean, rate, failed)
                for name, (mean, rate, failed) in sorted(self.scorer_stats.items())
            },
            forbidden_tool_calls=self.forbidden,
            forbidden_tool_cases=self.forbidden_ids,
            redteam=self.redteam.finish(self.confidence),
            modules=self.modules.finish(c),
            replayed=self.replayed,
            users=self.users.build(run),
            worst_failures=self._worst_failures(),
        )
        summary.warnings = missing_results(summary) + small_sample_warnings(summary, self.gates)
        summary.warnings += self._warnings()
        return summary

    def _diagnosis(self) -> Diagnosis:
        c = self.confidence
        routing, skill = self.modules.routing.build(c), self.modules.skill.build(c)
        return self.diagnosis.build(c, routing=routing, skill=skill)

    def _cost_stats(self) -> Cost:
        c = self.confidence
        return Cost(
            model_calls=self.model_calls.build(c),
            tool_calls=self.tool_calls.build(c),
            input_tokens=self.in_tokens.build(c),
            output_tokens=self.out_tokens.build(c),
            cost_usd=self.cost.build(c),
        )

    def _performance(self) -> Performance:
        c = self.confidence
        return Performance(
            latency=self.overall.latency.build(),
            ttft=self.ttft.build(),
            latency_mean=self.latency_mean.build(c),
            by_category={k: v.latency.build() for k, v in sorted(self.by_category.items())},
            budget_violations=self.budget.build(c),
            budget_violations_by_category={
                k: v.build(c) for k, v in sorted(self.budget_by.items())
            },
            ttft_violations=self.ttft_budget.build(c),
        )

    def _worst_failures(self) -> list[Failure]:
        return [
            Failure(
                case_id=w[2],
                trial=w[3],
                category=w[4],
                status=w[5],
                score=w[1],
                explanation=w[6],
                expected=w[7],
                actual=w[8],
                state_diff=w[9],
            )
            for w in sorted(self.worst, key=_failure_order)[:WORST_KEPT]
        ]

    def _warnings(self) -> list[str]:
        """The summary's warnings after the small-sample ones."""
        warnings = self.modules.warnings()
        if self.untracked_trials:
            warnings.append(
                "run.json records one trial per case but the results hold more; case counts "
                "and pass@k treat every result as its own case"
            )
        return warnings

    def _trials(self) -> Trials:
        agent_results = self.results_seen - self.user_errors_seen
        if not self.track_cases and agent_results:
            # one trial per case: pass@1 = pass^1 = passes over the results the agent is graded
            # on (a user_error is the simulated user's), nothing is flaky
            p1 = self.passes_seen / agent_results
            return Trials(
                trials=1,
                cases=agent_results,
                pass_at_k={"1": p1},
                pass_hat_k={"1": p1},
                flaky=RateAcc(0, agent_results).build(self.confidence),
            )
        if not self.track_cases:
            return Trials()
        counted = self.per_case.finish()
        if not counted.cases:
            return Trials()
        k_max = min(n for n, _ in counted.histogram)
        at: dict[str, float] = {}
        hat: dict[str, float] = {}
        ks = sorted({1, 2, 3, 5, 10, k_max} & set(range(1, k_max + 1)))
        groups = sorted(counted.histogram.items())
        for k in ks:
            at[str(k)] = math.fsum(m * pass_at_k(n, c, k) for (n, c), m in groups) / counted.cases
            hat[str(k)] = math.fsum(m * pass_hat_k(n, c, k) for (n, c), m in groups) / counted.cases
        return Trials(
            trials=k_max,
            cases=counted.cases,
            pass_at_k=at,
            pass_hat_k=hat,
            flaky=RateAcc(counted.flaky, counted.cases).build(self.confidence),
            flaky_cases=counted.flaky_ids,
        )


def _failure_order(w: _FailureRow) -> tuple[bool, float, str, int]:
    """Errors first, then the lowest score; ties by case id and trial (deterministic)."""
    return w[0], w[1], w[2], w[3]


def new_accumulator(
    *,
    run: RunRecord | None,
    gates: Gates | None,
    confidence: float,
    modules: ModuleSettings | None,
    reviews: Mapping[tuple[str, int], int] | None,
    feedback: Mapping[str, Feedback] | None,
) -> _Acc:
    """The empty accumulators of one summary: results go in with ``add`` (in the journal's
    order), ``finish`` builds the :class:`Summary`; close ``per_case`` after."""
    acc = _Acc(gates=gates or Gates(), confidence=confidence)
    acc.modules = ModuleAcc(
        settings=modules or ModuleSettings(),
        reviews=reviews or {},
        feedback_file=feedback or {},
        run_id=run.run_id if run is not None else None,
    )
    # with one trial per case (as run.json records) pass@k needs no per-case state
    acc.track_cases = run is None or run.trials != 1
    return acc


def summarize_results(
    results: Iterable[CaseResult],
    *,
    run: RunRecord | None = None,
    gates: Gates | None = None,
    confidence: float = 0.95,
    modules: ModuleSettings | None = None,
    reviews: Mapping[tuple[str, int], int] | None = None,
    feedback: Mapping[str, Feedback] | None = None,
) -> Summary:
    """Summarize results from any iterable (one pass). ``modules``: the suite's ``modules:``
    (where retrieval and fallbacks are read); ``reviews``: the planning-path grades by
    (case id, trial) of ``RUN_DIR/reviews.jsonl``; ``feedback``: a feedback file's entries by
    ``feedback_key`` (``RUN_DIR/feedback.jsonl``; docs/metrics.md#module-metrics)."""
    acc = new_accumulator(
        run=run,
        gates=gates,
        confidence=confidence,
        modules=modules,
        reviews=reviews,
        feedback=feedback,
    )
    try:
        for r in results:
            acc.add(r)
        return acc.finish(run)
    finally:
        acc.per_case.close()
