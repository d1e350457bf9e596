"""The module metrics (docs/metrics.md#module-metrics): retrieval precision / recall @k,
degradation-trigger accuracy, the cascade rule, user satisfaction and the planning grade."""

from __future__ import annotations

from typing import Any

import pytest

from agentgauge.metrics import summarize_results
from agentgauge.schema import (
    CaseResult,
    Feedback,
    Labels,
    ModuleSettings,
    ToolCall,
    TraceEvent,
    parse_ids_path,
)


def res(case_id: str, status: str = "passed", **kw: Any) -> CaseResult:
    return CaseResult(case_id=case_id, status=status, **kw)  # type: ignore[arg-type]


def kb(case_id: str, relevant: list[str], retrieved: list[str], **kw: Any) -> CaseResult:
    return res(
        case_id,
        labels=Labels(knowledge=relevant),
        predicted_labels=Labels(knowledge=retrieved),
        **kw,
    )


def test_retrieval_precision_and_recall_per_case_and_slice() -> None:
    results = [
        kb("a", ["k1", "k2"], ["k1", "k2"], category="faq"),  # p 1, r 1
        kb("b", ["k1", "k2"], ["k1", "x", "y", "z"], category="faq"),  # p 0.25, r 0.5
        kb("c", ["k3"], ["x"], category="policy"),  # p 0, r 0
    ]
    s = summarize_results(results)
    assert s.modules is not None
    assert s.modules.retrieval is not None
    rt = s.modules.retrieval
    assert rt.cases == 3
    assert rt.sources == ["labels"]
    assert rt.recall.mean == pytest.approx(0.5)
    assert rt.precision.mean == pytest.approx((1 + 0.25 + 0) / 3)
    assert rt.recall.low is not None
    assert rt.recall.high is not None
    assert rt.recall.low <= 0.5 <= rt.recall.high
    assert rt.hit_rate.passed == 2
    assert rt.hit_rate.n == 3
    assert rt.hit_rate.low is not None
    assert rt.by_category["faq"].recall.mean == pytest.approx(0.75)
    assert rt.by_category["policy"].recall.mean == 0.0
    # per case, worst first
    assert [c.case_id for c in rt.cases_worst] == ["c", "b", "a"]
    assert rt.cases_worst[1].hits == 1
    assert rt.cases_worst[1].precision == 0.25


def test_retrieval_at_k_cuts_the_list() -> None:
    settings = ModuleSettings.model_validate({"retrieval": {"tools": ["search"], "k": 1}})
    s = summarize_results([kb("b", ["k1", "k2"], ["x", "k1"])], modules=settings)
    assert s.modules is not None
    assert s.modules.retrieval is not None
    rt = s.modules.retrieval
    assert rt.k == 1
    assert rt.cases_worst[0].retrieved == ["x"]
    assert rt.precision.mean == 0.0
    assert rt.recall.mean == 0.0


def _search(result: Any, tool: str = "search_kb") -> TraceEvent:
    return TraceEvent(kind="tool", start=0, end=0, latency_ms=1, tool=tool, result=result)


def test_retrieval_from_the_retrieval_tools_results() -> None:
    settings = ModuleSettings.model_validate(
        {"retrieval": {"tools": ["search_kb"], "ids": "hits[].id"}}
    )
    r = res(
        "a",
        labels=Labels(knowledge=["kb-1", "kb-2"]),
        trace=[
            _search({"hits": [{"id": "kb-1"}, {"id": "kb-9"}]}),
            _search({"hits": [{"id": "kb-1"}]}),  # retrieved again: counted once
            _search({"hits": [{"id": "kb-2"}]}, tool="other_tool"),  # not the retrieval tool
            _search('{"hits": [{"id": "kb-2"}]}'),  # a JSON text result
        ],
    )
    s = summarize_results([r], modules=settings)
    assert s.modules is not None
    assert s.modules.retrieval is not None
    row = s.modules.retrieval.cases_worst[0]
    assert row.retrieved == ["kb-1", "kb-9", "kb-2"]
    assert row.recall == 1.0
    assert row.precision == pytest.approx(2 / 3)
    assert s.modules.retrieval.sources == ["tool results"]


def test_nothing_retrieved_is_recall_0_and_precision_not_measured() -> None:
    settings = ModuleSettings.model_validate({"retrieval": {"tools": ["search_kb"]}})
    s = summarize_results([res("a", labels=Labels(knowledge=["k"]))], modules=settings)
    assert s.modules is not None
    assert s.modules.retrieval is not None
    rt = s.modules.retrieval
    assert rt.recall.mean == 0.0
    assert rt.empty == 1
    assert rt.precision.n == 0
    assert rt.precision.mean is None


def test_unobservable_retrieval_is_unmeasured_with_a_warning() -> None:
    s = summarize_results([res("a", labels=Labels(knowledge=["k"]))])
    assert s.modules is not None
    assert s.modules.retrieval is not None
    assert s.modules.retrieval.unmeasured == 1
    assert s.modules.retrieval.recall.n == 0
    assert any("retrieval: 1 scored result(s)" in w for w in s.warnings)


def fb(case_id: str, wanted: bool, did: bool | None, **kw: Any) -> CaseResult:
    predicted = Labels(fallback=did) if did is not None else None
    return res(case_id, labels=Labels(fallback=wanted), predicted_labels=predicted, **kw)


def test_degradation_trigger_confusion_matrix() -> None:
    results = [
        fb("tp1", True, True),
        fb("tp2", True, True),
        fb("fn", True, False),
        fb("fp", False, True),
        fb("tn1", False, False),
        fb("tn2", False, False),
        fb("tn3", False, False),
        fb("err", True, False, status="error"),  # errors judge nothing
    ]
    s = summarize_results(results)
    assert s.modules is not None
    assert s.modules.fallback is not None
    f = s.modules.fallback
    assert (f.tp, f.fp, f.fn, f.tn) == (2, 1, 1, 3)
    assert (f.accuracy.passed, f.accuracy.n) == (5, 7)
    assert (f.precision.passed, f.precision.n) == (2, 3)
    assert (f.recall.passed, f.recall.n) == (2, 3)
    assert f.missed_cases == ["fn"]
    assert f.false_alarm_cases == ["fp"]
    assert s.rate("fallback_accuracy") == f.accuracy


def test_fallback_seen_from_a_handoff_tool_or_a_safe_default_reply() -> None:
    settings = ModuleSettings.model_validate(
        {"fallback": {"tools": ["handoff_to_human"], "replies": ["connect you with an agent"]}}
    )
    results = [
        fb("tool", True, None, calls=[ToolCall(name="handoff_to_human")]),
        fb("reply", True, None, text="I'll Connect you with an agent now."),
        fb("missed", True, None, text="Here is the answer."),
        fb("fine", False, None, calls=[ToolCall(name="get_balance")]),
    ]
    s = summarize_results(results, modules=settings)
    assert s.modules is not None
    assert s.modules.fallback is not None
    f = s.modules.fallback
    assert (f.tp, f.fp, f.fn, f.tn) == (2, 0, 1, 1)
    assert f.sources == ["replies", "tools"]
    # without settings or a reported label: not measured, and said so
    bare = summarize_results(results)
    assert bare.modules is not None
    assert bare.modules.fallback is not None
    assert bare.modules.fallback.unmeasured == 4
    assert bare.modules.fallback.accuracy.n == 0
    assert any("degradation triggers: 4" in w for w in bare.warnings)


def test_cascade_excludes_skill_and_retrieval_when_routing_failed() -> None:
    expected = Labels(route="knowledge_base", skill="faq.roaming", knowledge=["kb-1"])
    wrong_route = res(
        "misrouted",
        labels=expected,
        predicted_labels=Labels(route="skill", skill="billing.top_up"),
    )
    right = res(
        "routed",
        labels=expected,
        predicted_labels=Labels(route="knowledge_base", skill="faq.roaming", knowledge=["kb-1"]),
    )
    s = summarize_results([wrong_route, right])
    d = s.diagnosis
    assert (d.routing_accuracy.passed, d.routing_accuracy.n) == (1, 2)
    # the skill judgement of the misrouted result is excluded, not failed
    assert (d.skill_accuracy.passed, d.skill_accuracy.n) == (1, 1)
    assert s.modules is not None
    ex = s.modules.excluded
    assert set(ex) == {"skill_accuracy", "retrieval"}
    reason = "routing failed: expected knowledge_base, got skill"
    assert ex["skill_accuracy"].reasons == {reason: 1}
    assert ex["skill_accuracy"].cases == ["misrouted"]
    assert s.modules.retrieval is not None
    assert s.modules.retrieval.cases == 1
    assert s.modules.retrieval.recall.mean == 1.0


def test_without_the_cascade_rule_the_skill_would_have_failed() -> None:
    """The same misrouted result with the right route is measured (and fails the skill)."""
    r = res(
        "x",
        labels=Labels(route="kb", skill="faq"),
        predicted_labels=Labels(route="kb", skill="billing"),
    )
    s = summarize_results([r])
    assert (s.diagnosis.skill_accuracy.passed, s.diagnosis.skill_accuracy.n) == (0, 1)
    assert s.modules is None  # no module section without module data


def test_user_satisfaction_from_feedback() -> None:
    results = [
        res("a", feedback=Feedback(score=5, scale=(1, 5)), category="billing"),
        res("b", feedback=Feedback(score=4, scale=(1, 5)), category="billing"),
        res("c", feedback=Feedback(score=0), category="roaming"),  # thumbs down
        res("d", status="error", feedback=Feedback(score=1)),  # still the user's opinion
        res("e"),  # no feedback: unrated, not 0
    ]
    s = summarize_results(results)
    assert s.modules is not None
    assert s.modules.satisfaction is not None
    sat = s.modules.satisfaction
    assert sat.rated == 4
    assert sat.unrated == 1
    assert sat.score.mean == pytest.approx((1 + 0.75 + 0 + 1) / 4)
    assert (sat.satisfied.passed, sat.satisfied.n) == (3, 4)
    assert sat.unsatisfied_cases == ["c"]
    assert sat.by_category["billing"].passed == 2
    assert s.rate("user_satisfaction") == sat.satisfied


def test_feedback_outside_its_scale_is_refused() -> None:
    with pytest.raises(ValueError, match="outside its scale"):
        Feedback(score=6, scale=(1, 5))


def test_planning_grade_from_reviews() -> None:
    results = [res("a"), res("b", status="failed"), res("c"), res("err", status="error")]
    reviews = {("a", 0): 5, ("b", 0): 2, ("err", 0): 3, ("gone", 0): 4}
    s = summarize_results(results, reviews=reviews)
    assert s.modules is not None
    assert s.modules.planning is not None
    p = s.modules.planning
    assert p.reviewed == 2
    assert p.unreviewed == 1
    assert p.grade.mean == pytest.approx(3.5)
    assert (p.acceptable.passed, p.acceptable.n) == (1, 2)
    assert p.by_grade == {"2": 1, "5": 1}
    assert p.poor_cases == ["b"]
    assert p.stale == 2  # the errored result's review, and a case the run does not have
    assert any("planning review: 2 review(s)" in w for w in s.warnings)
    assert s.module_mean("planning_grade") == p.grade


@pytest.mark.parametrize(
    ("path", "parts"),
    [("id", ["id"]), ("hits[].id", ["hits", "[]", "id"]), ("[].doc", ["[]", "doc"])],
)
def test_ids_paths(path: str, parts: list[str]) -> None:
    assert parse_ids_path(path) == parts


@pytest.mark.parametrize("path", ["", "hits..id", "hits[0].id", "a b"])
def test_bad_ids_paths_are_refused(path: str) -> None:
    with pytest.raises(ValueError):
        parse_ids_path(path)


@pytest.mark.parametrize("skill_right", [True, False])
def test_an_excluded_judgement_is_neither_a_fail_nor_a_pass(skill_right: bool) -> None:
    """A misrouted result's skill and retrieval leave their metrics exactly as if it were not
    in the run, whether its skill and documents were right or wrong; routing counts it once."""
    expected = Labels(route="kb", skill="faq", knowledge=["k1"])
    right = Labels(route="kb", skill="faq", knowledge=["k1"])
    wrong = Labels(route="kb", skill="x", knowledge=["z"])
    others = [
        res("ok", labels=expected, predicted_labels=right),
        res("bad", labels=expected, predicted_labels=wrong),
    ]
    misrouted = res(
        "misrouted",
        labels=expected,
        predicted_labels=Labels(
            route="skill",
            skill="faq" if skill_right else "booking",
            knowledge=["k1"] if skill_right else ["z"],
        ),
    )
    without, with_it = summarize_results(others), summarize_results([*others, misrouted])
    assert with_it.diagnosis.skill_accuracy == without.diagnosis.skill_accuracy
    assert with_it.modules is not None
    assert without.modules is not None
    assert with_it.modules.retrieval is not None
    assert without.modules.retrieval is not None
    assert with_it.modules.retrieval.recall == without.modules.retrieval.recall
    assert with_it.modules.retrieval.precision == without.modules.retrieval.precision
    assert with_it.modules.retrieval.cases == 2
    assert with_it.diagnosis.routing_accuracy.n == 3  # the routing failure itself counts once
    assert with_it.diagnosis.routing_accuracy.passed == 2
    assert with_it.modules.excluded["skill_accuracy"].count == 1
    assert with_it.modules.excluded["retrieval"].count == 1
