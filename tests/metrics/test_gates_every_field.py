"""Every field of ``Gates`` is either a check that can fail a run, or a named modifier.

A new field that nobody evaluates would pass every run: this test enumerates the model's fields,
so such a field fails here until it gets a failing scenario below (or is listed as a modifier
with a test of what it changes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from agentgauge.metrics import GateReport, compare, evaluate_gates, summarize_results
from agentgauge.schema import (
    CaseResult,
    Feedback,
    Gates,
    Labels,
    Score,
    ScorerGate,
    WorldRecord,
)

Results = list[CaseResult]


def res(case_id: str, status: str = "passed", **kw: Any) -> CaseResult:
    kw.setdefault("score", 1.0 if status == "passed" else 0.0)
    kw.setdefault("latency_ms", 100.0)
    kw.setdefault("tags", ["redteam"])  # red-team results, for forbid_attack_success
    return CaseResult(case_id=case_id, status=status, **kw)  # type: ignore[arg-type]


def sc(name: str, passed: bool | None, value: float | None = None, **kw: Any) -> Score:
    v = value if value is not None else float(bool(passed))
    return Score(name=name, passed=passed, value=v, **kw)


def _good() -> Results:
    return [
        res(
            f"c{i}",
            category="simple",
            ttft_ms=50.0,
            expected_tools=["a", "b"],
            expected_behavior="answer",
            scores=[
                sc("tool_selection", True, expected="a, b", actual="a, b"),
                sc("arguments", True),
                sc("behavior", True, expected="answer", actual="answer"),
                sc("forbidden_tools", True),
                sc("judge.groundedness", True, 1.0),
                sc("turn[1].memory", True),
            ],
            labels=Labels(
                route="kb", skill="faq", intents=["refund"], knowledge=["kb1"], fallback=i < 2
            ),
            predicted_labels=Labels(
                route="kb",
                skill="faq",
                intents=["refund"],
                knowledge=["kb1", "kb7"],
                fallback=i < 2,
            ),
            world=WorldRecord(goal_met=True),
            feedback=Feedback(score=5, scale=(1, 5)),
        )
        for i in range(4)
    ]


def _bad() -> Results:
    rs = [
        res(
            f"c{i}",
            "failed",
            category="simple",
            latency_ms=5000.0,
            ttft_ms=900.0,
            expected_tools=["a", "b"],
            expected_behavior="answer",
            scores=[
                sc("tool_selection", False, expected="a, b", actual="c"),
                sc("arguments", False),
                sc("behavior", False, expected="answer", actual="refuse"),
                sc("forbidden_tools", False),
                sc("judge.groundedness", False, 0.25),
                sc("turn[1].memory", False),
            ],
            labels=Labels(
                route="kb", skill="faq", intents=["refund"], knowledge=["kb1"], fallback=i < 2
            ),
            # two routed wrong (their skill and retrieval are excluded by the cascade rule),
            # two routed right with the wrong skill, documents and fallback decision
            predicted_labels=Labels(
                route="skill" if i < 2 else "kb",
                skill="booking",
                intents=["cancel"],
                knowledge=["kb9"],
                fallback=i >= 2,
            ),
            world=WorldRecord(goal_met=False),
            feedback=Feedback(score=1, scale=(1, 5)),
        )
        for i in range(4)
    ]
    rs.append(res("err", "error", category="simple", error="boom"))
    # a simulated user that gave a fact unasked (docs/users.md): neither pass nor failure
    rs.append(res("usr", "user_error", category="simple", explanation="user error: gave x"))
    return rs


#: each gate check field: a value that the bad run fails and the good run passes
CHECKS: dict[str, dict[str, Any]] = {
    "min_pass_rate": {"min_pass_rate": 0.9},
    "min_category_pass_rate": {"min_category_pass_rate": {"simple": 0.9}},
    "min_tool_selection_accuracy": {"min_tool_selection_accuracy": 0.9},
    "max_error_rate": {"max_error_rate": 0.1},
    "max_user_error_rate": {"max_user_error_rate": 0.1},
    "max_latency_s": {"max_latency_s": {"p95": 1}},
    "max_category_latency_s": {"max_category_latency_s": {"simple": {"max": 1}}},
    "latency_budget_s": {"latency_budget_s": {"simple": 1}},
    "max_ttft_s": {"max_ttft_s": 0.2},
    # a rate allowed over the budgets: 4 of 4 bad results are over
    "max_budget_violation_rate": {
        "max_budget_violation_rate": 0.5,
        "latency_budget_s": {"simple": 1},
    },
    "min_argument_accuracy": {"min_argument_accuracy": 0.9},
    "min_behavior_accuracy": {"min_behavior_accuracy": 0.9},
    "min_task_completion": {"min_task_completion": 0.9},
    "min_goal_completion": {"min_goal_completion": 0.9},
    "min_intent_accuracy": {"min_intent_accuracy": 0.9},
    "min_routing_accuracy": {"min_routing_accuracy": 0.9},
    "min_skill_accuracy": {"min_skill_accuracy": 0.9},
    "min_memory_retention": {"min_memory_retention": 0.9},
    "min_retrieval_precision": {"min_retrieval_precision": 0.4},
    "min_retrieval_recall": {"min_retrieval_recall": 0.9},
    "min_fallback_accuracy": {"min_fallback_accuracy": 0.9},
    "min_fallback_recall": {"min_fallback_recall": 0.9},
    "min_fallback_precision": {"min_fallback_precision": 0.9},
    "min_user_satisfaction": {"min_user_satisfaction": 0.9},
    "min_planning_grade": {"min_planning_grade": 4},
    "forbid_forbidden_tool_calls": {"forbid_forbidden_tool_calls": True},
    "forbid_attack_success": {"forbid_attack_success": True},
    "scorers": {"scorers": {"groundedness": ScorerGate(min_mean=4.5)}},
}
#: checks against a baseline run: (gates, what the new run did to the baseline)
BASELINE_CHECKS: dict[str, dict[str, Any]] = {
    "max_regression_points": {"max_regression_points": 5},
    "regression_metrics": {"max_regression_points": 5, "regression_metrics": ["pass_rate"]},
}
#: fields that change how other checks decide or warn; each has its own test below
MODIFIERS = {"require_significance", "alpha", "min_sample_size"}


def _gates(**kw: Any) -> Gates:
    kw.setdefault("forbid_forbidden_tool_calls", False)
    kw.setdefault("forbid_attack_success", False)
    return Gates(**kw)


def _reviews(results: Results) -> dict[tuple[str, int], int]:
    """An expert's planning-path grades: 5 for the good run's paths, 1 for the bad run's."""
    return {(r.case_id, r.trial): 5 if r.status == "passed" else 1 for r in results}


def _report(results: Results, gates: Gates) -> GateReport:
    summary = summarize_results(results, gates=gates, reviews=_reviews(results))
    return evaluate_gates(summary, gates)


def test_every_field_is_a_check_or_a_modifier() -> None:
    covered = set(CHECKS) | set(BASELINE_CHECKS) | MODIFIERS
    assert set(Gates.model_fields) == covered, (
        "a Gates field without a failing scenario here is a gate that may never fail: "
        f"{sorted(set(Gates.model_fields) - covered)}"
    )


@pytest.mark.parametrize("field", sorted(CHECKS))
def test_check_fails_a_bad_run_and_passes_a_good_one(field: str) -> None:
    gates = _gates(**CHECKS[field])
    bad = _report(_bad(), gates)
    assert not bad.passed, f"{field} passed a run that breaks it: {bad.checks}"
    # the failure is this field's own check, not one the bad run fails anyway (its results'
    # own latency budgets, say)
    always = {c.name for c in _report(_bad(), _gates()).failed}
    own = {c.name for c in bad.failed} - always
    assert own, f"{field} added no failing check: {[c.name for c in bad.failed]}"
    good = _report(_good(), gates)
    assert good.passed, f"{field} failed a good run: {good.failed}"
    assert good.checks, f"{field} made no check at all"


def _write(run: Path, results: Results) -> Path:
    run.mkdir()
    lines = [orjson.dumps(r.model_dump(mode="json")) for r in results]
    (run / "results.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    return run


@pytest.mark.parametrize("field", sorted(BASELINE_CHECKS))
def test_baseline_check_fails_a_regression(field: str, tmp_path: Path) -> None:
    gates = _gates(**BASELINE_CHECKS[field])
    good = [res(f"c{i}") for i in range(10)]
    worse = [res(f"c{i}", "failed" if i < 5 else "passed") for i in range(10)]
    base = _write(tmp_path / "base", good)
    new = _write(tmp_path / "new", worse)
    same = _write(tmp_path / "same", good)
    failed = evaluate_gates(summarize_results(worse, gates=gates), gates, compare(base, new))
    assert not failed.passed
    assert any(c.name == "regression: pass_rate" for c in failed.failed)
    kept = evaluate_gates(summarize_results(good, gates=gates), gates, compare(base, same))
    assert kept.passed


def test_regression_metrics_limits_what_is_compared(tmp_path: Path) -> None:
    gates = _gates(max_regression_points=5, regression_metrics=["error_rate"])
    base = _write(tmp_path / "base", [res(f"c{i}") for i in range(10)])
    worse = [res(f"c{i}", "failed") for i in range(10)]
    new = _write(tmp_path / "new", worse)
    report = evaluate_gates(summarize_results(worse, gates=gates), gates, compare(base, new))
    assert report.passed  # pass rate fell, but only the error rate is gated
    assert [c.name for c in report.checks] == ["regression: error_rate"]


def test_require_significance_passes_an_insignificant_drop(tmp_path: Path) -> None:
    base = _write(tmp_path / "base", [res(f"c{i}") for i in range(10)])
    # five cases broken, none fixed: exact McNemar p = 2 * 0.5**5 = 0.0625
    worse = [res(f"c{i}", "failed" if i < 5 else "passed") for i in range(10)]
    new = _write(tmp_path / "new", worse)
    cmp = compare(base, new)
    strict = _gates(max_regression_points=5, regression_metrics=["pass_rate"])
    assert not evaluate_gates(summarize_results(worse), strict, cmp).passed
    lenient = strict.model_copy(update={"require_significance": True})
    assert evaluate_gates(summarize_results(worse), lenient, cmp).passed
    # alpha decides what "significant" means: p = 0.0625 is significant at 0.1
    loose = lenient.model_copy(update={"alpha": 0.1})
    assert not evaluate_gates(summarize_results(worse), loose, cmp).passed


def test_a_case_budget_is_checked_and_the_violation_rate_allows_a_share() -> None:
    slow = [res(f"c{i}", latency_ms=5000.0, latency_budget_s=10.0 if i else 1.0) for i in range(4)]
    failed = _report(slow, _gates())  # no budget gate: the case's own budget still holds
    assert [c.name for c in failed.failed] == ["latency budget violations"]
    assert _report(slow, _gates(max_budget_violation_rate=0.25)).passed
    assert not _report(slow, _gates(max_budget_violation_rate=0.2)).passed


def test_min_sample_size_warns_on_small_gated_slices() -> None:
    gates = _gates(min_pass_rate=0.5, min_sample_size=3)
    assert _report(_good(), gates).warnings == []
    small = _report(_good()[:2], gates)
    assert any("only 2 scored results" in w for w in small.warnings)


#: every ``ScorerGate`` field and the test that shows it changing a gate's verdict
SCORER_GATE_TESTS = {
    "min_mean": "test_scorer_gates.py::"
    "test_min_mean_on_the_judge_scale_fails_below_and_passes_above",
    "scale": "test_scorer_gates.py::"
    "test_the_scale_can_be_given_and_defaults_to_0_1_for_other_scorers",
    "max_failures": "test_scorer_gates.py::test_zero_tolerance_fails_on_one_violation",
    "min_pass_rate": "test_scorer_gates.py::test_min_pass_rate_of_a_scorer",
    "max_regression": "test_scorer_gates.py::"
    "test_relative_regression_against_the_baseline_even_above_the_minimum",
    "uncertain": "test_gates_every_field.py::"
    "test_uncertain_policy_decides_what_an_uncertain_score_is",
}


def test_every_scorer_gate_field_has_a_test_that_changes_the_verdict() -> None:
    assert set(ScorerGate.model_fields) == set(SCORER_GATE_TESTS), (
        "a ScorerGate field without a test that shows it deciding a gate: "
        f"{sorted(set(ScorerGate.model_fields) ^ set(SCORER_GATE_TESTS))}"
    )
    here = Path(__file__).parent
    for where in SCORER_GATE_TESTS.values():
        file, _, name = where.partition("::")
        assert f"def {name}(" in (here / file).read_text(), where


def _uncertain_run() -> Results:
    """Two sure passes, one uncertain pass, one uncertain fail, one sure fail."""
    rows = [(True, False), (True, False), (True, True), (False, True), (False, False)]
    return [
        res(
            f"u{i}",
            "passed" if ok else "failed",
            scores=[
                sc(
                    "judge.relevance",
                    ok,
                    agreement=0.5 if unsure else 1.0,
                    uncertain=unsure,
                )
            ],
        )
        for i, (ok, unsure) in enumerate(rows)
    ]


@pytest.mark.parametrize(
    ("policy", "strict", "lenient", "failures"),
    [
        ("fail", False, False, 3),  # 2/5 pass: below 0.7 and 0.5
        ("pass", True, True, 1),  # 4/5 pass
        ("exclude", False, True, 1),  # 2/3 pass, of 3 sure scores
    ],
)
def test_uncertain_policy_decides_what_an_uncertain_score_is(
    policy: str, strict: bool, lenient: bool, failures: int
) -> None:
    results = _uncertain_run()
    for minimum, expected in ((0.7, strict), (0.5, lenient)):
        gate = ScorerGate(min_pass_rate=minimum, uncertain=policy)  # type: ignore[arg-type]
        report = _report(results, _gates(scorers={"relevance": gate}))
        assert report.passed is expected, (policy, minimum, report.checks)
        assert "2 uncertain" in report.checks[0].message
    gate = ScorerGate(max_failures=1, uncertain=policy)  # type: ignore[arg-type]
    report = _report(results, _gates(scorers={"relevance": gate}))
    assert report.checks[0].passed is (failures <= 1)
    assert report.checks[0].actual.startswith(f"{failures} of ")
    # a run without uncertain scores is gated the same under every policy
    sure = [r.model_copy(update={"scores": [sc("judge.relevance", True)]}) for r in results]
    assert _report(sure, _gates(scorers={"relevance": gate})).passed
