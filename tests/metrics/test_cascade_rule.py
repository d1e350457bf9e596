"""The cascade rule exactly as docs/metrics.md ("The cascade rule") states it: one upstream
module, the router; a failed route excludes the result's skill and retrieval judgements and
nothing else; a reported route decides before a ``route`` score; unmeasured routing excludes
nothing. Each clause has a result that would be counted otherwise."""

from __future__ import annotations

from typing import Any

from agentgauge.metrics import summarize_results
from agentgauge.schema import CaseResult, Feedback, Labels, Score


def res(case_id: str, *, status: str = "passed", **kw: Any) -> CaseResult:
    return CaseResult(case_id=case_id, status=status, **kw)  # type: ignore[arg-type]


EXPECTED = Labels(route="skill", skill="billing", knowledge=["k1"], fallback=True)


def _route_score(passed: bool | None) -> Score:
    return Score(name="route", passed=passed, value=float(bool(passed)), explanation="")


def test_a_reported_wrong_route_excludes_skill_and_retrieval_only() -> None:
    r = res(
        "a",
        labels=EXPECTED,
        predicted_labels=Labels(route="kb", skill="billing", knowledge=["k1"], fallback=True),
        feedback=Feedback(score=1),
    )
    s = summarize_results([r])
    m = s.modules
    assert m is not None
    assert set(m.excluded) == {"skill_accuracy", "retrieval"}
    assert m.excluded["retrieval"].reasons == {"routing failed: expected skill, got kb": 1}
    assert s.diagnosis.routing_accuracy.n == 1  # the failure counted once
    assert s.diagnosis.skill_accuracy.n == 0
    assert m.retrieval is None  # its one judgement excluded: nothing measured, not a 0
    # not excluded: degradation triggers, user satisfaction, the pass rate
    assert m.fallback is not None
    assert m.fallback.tp == 1
    assert m.satisfaction is not None
    assert m.satisfaction.rated == 1
    assert s.overall.pass_rate.n == 1


def test_a_reported_route_decides_before_a_route_score() -> None:
    right_route_failed_score = res(
        "a",
        labels=EXPECTED,
        predicted_labels=Labels(route="skill", skill="billing"),
        scores=[_route_score(False)],
    )
    s = summarize_results([right_route_failed_score])
    assert s.modules is None or not s.modules.excluded
    assert (s.diagnosis.routing_accuracy.passed, s.diagnosis.routing_accuracy.n) == (1, 1)
    assert s.diagnosis.skill_accuracy.n == 1


def test_a_failed_route_score_excludes_when_nothing_was_reported() -> None:
    r = res("a", labels=Labels(route="skill", skill="billing"), scores=[_route_score(False)])
    s = summarize_results([r])
    assert s.modules is not None
    assert s.modules.excluded["skill_accuracy"].reasons == {
        "routing failed: expected skill (route score failed)": 1
    }


def test_unmeasured_or_skipped_routing_excludes_nothing() -> None:
    unreported = res(
        "a", labels=EXPECTED, predicted_labels=Labels(skill="billing", knowledge=["k1"])
    )
    skipped = res(
        "b",
        labels=EXPECTED,
        predicted_labels=Labels(skill="billing", knowledge=["k1"]),
        scores=[_route_score(None)],
    )
    s = summarize_results([unreported, skipped])
    assert s.modules is not None
    assert s.modules.excluded == {}
    assert s.diagnosis.routing_accuracy.n == 0
    assert s.diagnosis.skill_accuracy.n == 2
    assert s.modules.retrieval is not None
    assert s.modules.retrieval.cases == 2
    assert any("routing accuracy: 1 scored result(s)" in w for w in s.warnings)


def test_a_failed_skill_does_not_exclude_retrieval() -> None:
    r = res(
        "a",
        labels=EXPECTED,
        predicted_labels=Labels(route="skill", skill="refunds", knowledge=["k1"]),
    )
    s = summarize_results([r])
    assert s.modules is not None
    assert s.modules.excluded == {}
    assert s.diagnosis.skill_accuracy.passed == 0
    assert s.modules.retrieval is not None
    assert s.modules.retrieval.cases == 1


def test_an_errored_result_is_in_no_module_rate() -> None:
    r = res(
        "a",
        status="error",
        labels=EXPECTED,
        predicted_labels=Labels(route="kb", skill="billing"),
    )
    s = summarize_results([r])
    assert s.diagnosis.routing_accuracy.n == 0
    assert s.modules is None or not s.modules.excluded
