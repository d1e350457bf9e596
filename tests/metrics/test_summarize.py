"""Metrics by slice, skip-cascading, diagnosis, cost, latency and trials."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from agentgauge.metrics import summarize, summarize_results, write_summary
from agentgauge.metrics._acc import EXACT_LIMIT, LatencyAcc
from agentgauge.schema import CaseResult, Gates, Score

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


def res(case_id: str, status: str = "passed", **kw: Any) -> CaseResult:
    kw.setdefault("score", 1.0 if status == "passed" else 0.0)
    return CaseResult(case_id=case_id, status=status, **kw)  # type: ignore[arg-type]


def sc(name: str, passed: bool | None, value: float | None = None, **kw: Any) -> Score:
    return Score(
        name=name, passed=passed, value=value if value is not None else float(bool(passed)), **kw
    )


def test_pass_rate_excludes_errors_and_error_rate_counts_all() -> None:
    rs = [res("a"), res("b", "failed"), res("c", "error"), res("d")]
    s = summarize_results(rs)
    assert (s.overall.pass_rate.passed, s.overall.pass_rate.n) == (2, 3)
    assert (s.overall.error_rate.passed, s.overall.error_rate.n) == (1, 4)
    assert s.overall.results == 4
    assert s.cases == 4
    assert s.overall.pass_rate.low is not None
    assert s.overall.pass_rate.low < 2 / 3


def test_slices_by_category_difficulty_tag_and_tool() -> None:
    rs = [
        res("a", category="simple", difficulty="easy", tags=["x", "y"], expected_tools=["t1"]),
        res("b", "failed", category="simple", tags=["x"], expected_tools=["t1", "t2"]),
        res("c", category="complex", difficulty="hard"),
    ]
    s = summarize_results(rs)
    assert list(s.by_category) == ["complex", "simple"]
    assert s.by_category["simple"].pass_rate.value == 0.5
    assert s.by_difficulty["easy"].results == 1
    assert s.by_tag["x"].pass_rate.n == 2
    assert s.by_tag["y"].pass_rate.value == 1.0
    assert s.by_tool["t1"].pass_rate.n == 2
    assert s.by_tool["t2"].pass_rate.value == 0.0


def test_by_tool_counts_tools_expected_in_later_turns_once() -> None:
    rs = [
        # clarify first, then book in turn 1: the case belongs to book_flight's slice
        res("a", "failed", expected_behavior="clarify", later_expected_tools=["book_flight"]),
        res("b", expected_tools=["search"], later_expected_tools=["book_flight", "search"]),
    ]
    s = summarize_results(rs)
    assert sorted(s.by_tool) == ["book_flight", "search"]
    assert (s.by_tool["book_flight"].pass_rate.passed, s.by_tool["book_flight"].results) == (1, 2)
    assert s.by_tool["search"].results == 1  # in a slice once, however often it is expected


def test_tool_selection_confusion_from_scores_and_fallback() -> None:
    rs = [
        res("a", scores=[sc("tool_selection", True, expected="get_weather", actual="get_weather")]),
        res(
            "b",
            "failed",
            scores=[sc("tool_selection", False, expected="get_weather", actual="get_forecast")],
        ),
        # no tool_selection score: falls back to expected_tools vs calls
        res("c", "failed", expected_tools=["get_weather"], calls=[]),
        res("d", expected_behavior="answer", calls=[]),
        # nothing expected about tools: not counted
        res("e"),
    ]
    s = summarize_results(rs)
    acc = s.tool_selection.accuracy
    assert (acc.passed, acc.n) == (2, 4)
    cells = {(c.expected, c.actual): c.count for c in s.tool_selection.confusion}
    assert cells == {
        ("get_weather", "get_weather"): 1,
        ("get_weather", "get_forecast"): 1,
        ("get_weather", "<no tool>"): 1,
        ("<no tool>", "<no tool>"): 1,
    }


def test_skip_cascading_arguments_after_wrong_tool() -> None:
    rs = [
        # wrong tool: the argument failure is not counted, it is skipped
        res(
            "wrong-tool",
            "failed",
            scores=[sc("tool_selection", False), sc("arguments", False, value=0.0)],
        ),
        # the scorer itself skipped the arguments
        res("skipped", "failed", scores=[sc("tool_selection", True), sc("arguments", None, 0.0)]),
        res("ok", scores=[sc("tool_selection", True), sc("arguments", True)]),
        res(
            "bad-args",
            "failed",
            scores=[sc("tool_selection", True), sc("arguments", False, value=0.5)],
        ),
    ]
    s = summarize_results(rs)
    a = s.arguments_strict
    assert (a.passed, a.n, a.skipped) == (1, 2, 2)
    assert s.arguments_partial.n == 2
    assert s.arguments_partial.mean == pytest.approx(0.75)


def test_skip_cascading_memory_after_wrong_tool_in_that_turn() -> None:
    r = res(
        "m",
        "failed",
        scores=[
            sc("turn[0].arguments", True),
            sc("turn[1].tool_selection", False),
            sc("turn[1].arguments", False),
            sc("turn[2].tool_selection", True),
            sc("turn[2].arguments", False),
        ],
    )
    s = summarize_results([r])
    mem = s.diagnosis.memory_retention
    assert (mem.passed, mem.n, mem.skipped) == (0, 1, 1)
    assert set(s.diagnosis.retention_by_distance) == {"1", "2"}
    assert s.diagnosis.retention_by_distance["1"].skipped == 1
    # the turn scores combine into a case-level tool selection that failed
    assert s.tool_selection.accuracy.passed == 0


def test_memory_retention_by_distance() -> None:
    rs = [
        res("a", scores=[sc("turn[1].arguments", True), sc("turn[3].arguments", True)]),
        res("b", "failed", scores=[sc("turn[1].arguments", True), sc("turn[3].arguments", False)]),
    ]
    d = summarize_results(rs).diagnosis
    assert d.retention_by_distance["1"].value == 1.0
    assert d.retention_by_distance["3"].value == 0.5
    assert (d.memory_retention.passed, d.memory_retention.n) == (3, 4)


def test_explicit_memory_scores_take_precedence() -> None:
    r = res("a", scores=[sc("turn[1].arguments", False), sc("turn[1].memory", True)])
    d = summarize_results([r]).diagnosis
    assert (d.memory_retention.passed, d.memory_retention.n) == (1, 1)


def test_behaviour_accuracy_and_call_decision() -> None:
    rs = [
        res("a", expected_behavior="answer", behavior="answer"),
        res("b", "failed", expected_behavior="clarify", behavior="answer"),
        res("c", expected_behavior="refuse", behavior="refuse"),
        res("d", "failed", expected_behavior="no_tool", behavior="answer", calls=[{"name": "x"}]),  # type: ignore[list-item]
        res(
            "e",
            expected_behavior="tool_call",
            behavior="tool_call",
            expected_tools=["x"],
            calls=[{"name": "x"}],
        ),  # type: ignore[list-item]
    ]
    s = summarize_results(rs)
    assert (s.behavior.passed, s.behavior.n) == (2, 4)  # tool_call cases are not in it
    assert s.behavior_by_expected["tool_call"].value == 1.0
    assert s.behavior_by_expected["clarify"].value == 0.0
    dec = s.diagnosis.call_decision_accuracy
    assert (dec.passed, dec.n) == (4, 5)
    clar = s.diagnosis.clarification_rate
    assert (clar.passed, clar.n) == (0, 1)


def test_multi_turn_call_decision_and_clarification_judge_turn_0() -> None:
    # turn 0 asks which Portland (expected: clarify), turn 1 searches flights (expected)
    right = res(
        "portland",
        category="ambiguous",
        expected_behavior="clarify",
        behavior="tool_call",
        calls=[{"name": "search_flights"}],  # type: ignore[list-item]
        scores=[
            sc("turn[0].tool_selection", True, expected="<no tool>", actual="<no tool>"),
            sc("turn[0].behavior", True, expected="clarify", actual="clarify"),
            sc("turn[1].tool_selection", True, expected="search_flights", actual="search_flights"),
        ],
    )
    wrong = res(
        "portland-guess",
        "failed",
        category="ambiguous",
        expected_behavior="clarify",
        behavior="answer",
        calls=[{"name": "search_flights"}],  # type: ignore[list-item]
        scores=[
            sc("turn[0].tool_selection", False, expected="<no tool>", actual="search_flights"),
            sc("turn[0].behavior", False, expected="clarify", actual="tool_call"),
            sc("turn[1].tool_selection", False, expected="search_flights", actual="<no tool>"),
        ],
    )
    s = summarize_results([right, wrong])
    dec = s.diagnosis.call_decision_accuracy
    assert (dec.passed, dec.n) == (1, 2)
    clar = s.diagnosis.clarification_rate
    assert (clar.passed, clar.n) == (1, 2)


def test_task_completion_counts_multi_step_only() -> None:
    rs = [
        res("one", expected_tools=["a"]),
        res("two", "failed", expected_tools=["a", "b"]),
        res("turns", scores=[sc("turn[1].arguments", True)]),
    ]
    t = summarize_results(rs).task_completion
    assert (t.passed, t.n) == (1, 2)


def test_intents_from_calls_with_precision_and_recall() -> None:
    rs = [
        # multi-intent, aligned with expected tools: weather served, news missed
        res(
            "a",
            "failed",
            labels={"intents": ["weather", "news"]},  # type: ignore[arg-type]
            expected_tools=["get_weather", "get_news"],
            calls=[{"name": "get_weather"}],
        ),  # type: ignore[list-item]
        res(
            "b",
            labels={"intents": ["weather"]},  # type: ignore[arg-type]
            expected_tools=["get_weather"],
            calls=[{"name": "get_weather"}],
        ),  # type: ignore[list-item]
        # a chit-chat case where the agent wrongly called get_weather: a false positive
        res(
            "c",
            "failed",
            labels={"intents": ["chitchat"]},  # type: ignore[arg-type]
            expected_behavior="answer",
            behavior="tool_call",
            calls=[{"name": "get_weather"}],
        ),  # type: ignore[list-item]
    ]
    d = summarize_results(rs).diagnosis
    assert d.intent_source == "calls"
    by = {i.intent: i for i in d.intents}
    assert (by["weather"].tp, by["weather"].fp, by["weather"].fn) == (2, 1, 0)
    assert by["weather"].precision == pytest.approx(2 / 3)
    assert by["news"].recall == 0.0
    assert by["chitchat"].fn == 1
    assert (d.intent_accuracy.passed, d.intent_accuracy.n) == (1, 3)
    mi = d.multi_intent
    assert (mi.cases, mi.expected, mi.matched, mi.missed) == (1, 2, 1, 1)


def test_intents_and_route_from_predicted_labels() -> None:
    rs = [
        res(
            "a",
            labels={"intents": ["book"], "route": "travel"},  # type: ignore[arg-type]
            predicted_labels={"intents": ["book", "cancel"], "route": "travel"},
        ),  # type: ignore[arg-type]
        res(
            "b",
            labels={"intents": ["cancel"], "route": "travel"},  # type: ignore[arg-type]
            predicted_labels={"intents": ["cancel"], "route": "billing"},
        ),  # type: ignore[arg-type]
    ]
    d = summarize_results(rs).diagnosis
    assert d.intent_source == "predicted"
    by = {i.intent: i for i in d.intents}
    assert (by["cancel"].tp, by["cancel"].fp) == (1, 1)
    assert (d.routing_accuracy.passed, d.routing_accuracy.n) == (1, 2)


def test_skill_from_predicted_labels_or_a_skill_score() -> None:
    rs = [
        res("a", labels={"skill": "search"}, predicted_labels={"skill": "search"}),  # type: ignore[arg-type]
        res("b", labels={"skill": "book"}, scores=[sc("skill", False)]),  # type: ignore[arg-type]
        res("c", labels={"skill": "book"}),  # type: ignore[arg-type]  (nothing to compare)
    ]
    d = summarize_results(rs).diagnosis
    assert (d.skill_accuracy.passed, d.skill_accuracy.n) == (1, 2)


def test_cost_latency_and_budgets() -> None:
    rs = [
        res(
            "a",
            category="simple",
            latency_ms=1000,
            ttft_ms=300,
            model_calls=1,
            tool_calls=1,
            usage={"input_tokens": 100, "output_tokens": 10},
            cost_usd=0.01,
        ),  # type: ignore[arg-type]
        res(
            "b",
            category="simple",
            latency_ms=4000,
            ttft_ms=2500,
            model_calls=3,
            usage={"input_tokens": 300, "output_tokens": 30},
            cost_usd=0.03,
        ),  # type: ignore[arg-type]
        res("c", category="complex", latency_ms=9000, latency_budget_s=10, model_calls=2),
        res("d", "error", category="complex", latency_ms=0),
    ]
    gates = Gates(latency_budget_s={"simple": 3}, max_ttft_s=2)
    s = summarize_results(rs, gates=gates)
    assert s.cost.model_calls.total == 6
    assert s.cost.model_calls.mean == pytest.approx(1.5)
    assert s.cost.input_tokens.total == 400
    assert s.cost.cost_usd.n == 2
    assert s.cost.cost_usd.total == pytest.approx(0.04)
    lat = s.performance.latency
    assert (lat.n, lat.p50, lat.p95, lat.max) == (3, 4000, 9000, 9000)
    assert s.performance.by_category["simple"].p50 == 1000
    bv = s.performance.budget_violations
    assert (bv.passed, bv.n) == (1, 3)  # b over 3 s; c within its own 10 s budget
    by = s.performance.budget_violations_by_category
    assert {k: (v.passed, v.n) for k, v in by.items()} == {"complex": (0, 1), "simple": (1, 2)}
    tv = s.performance.ttft_violations
    assert (tv.passed, tv.n) == (1, 2)


def test_latency_histogram_beyond_exact_limit_is_close() -> None:
    acc = LatencyAcc()
    n = EXACT_LIMIT * 3
    for i in range(1, n + 1):
        acc.add(float(i))
    lat = acc.build()
    assert lat.approximate
    assert lat.max == n
    assert lat.p50 == pytest.approx(n / 2, rel=0.01)
    assert lat.p95 == pytest.approx(0.95 * n, rel=0.01)
    assert len(acc.buckets) < 1000


def test_trials_pass_at_k_pass_hat_k_and_flakiness() -> None:
    rs = [res("a", trial=t) for t in range(3)]
    rs += [res("b", "passed" if t == 0 else "failed", trial=t) for t in range(3)]
    rs += [res("c", "failed", trial=t) for t in range(3)]
    t = summarize_results(rs).trials
    assert t.trials == 3
    assert t.pass_at_k["1"] == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert t.pass_at_k["3"] == pytest.approx(2 / 3)
    assert t.pass_hat_k["3"] == pytest.approx(1 / 3)
    assert t.flaky_cases == ["b"]
    assert (t.flaky.passed, t.flaky.n) == (1, 3)


def test_forbidden_tools_and_worst_failures() -> None:
    rs = [
        res("x", "failed", score=0.5, explanation="half"),
        res(
            "y",
            "failed",
            score=0.0,
            explanation="bad",
            scores=[sc("turn[1].forbidden_tools", False)],
        ),
        res("z", "error", explanation="timeout"),
        res("ok"),
    ]
    s = summarize_results(rs)
    assert s.forbidden_tool_calls == 1
    assert s.forbidden_tool_cases == ["y"]
    assert [f.case_id for f in s.worst_failures] == ["z", "y", "x"]


def test_small_sample_warning_only_for_gated_slices() -> None:
    rs = [res(str(i)) for i in range(5)]
    assert summarize_results(rs).warnings == []
    gates = Gates(min_pass_rate=0.9, min_category_pass_rate={"happy_path": 0.9})
    warnings = summarize_results(rs, gates=gates).warnings
    assert len(warnings) == 2
    assert "only 5 scored results" in warnings[0]
    roomy = Gates(min_pass_rate=0.9, min_sample_size=5)
    assert summarize_results(rs, gates=roomy).warnings == []


def test_summarize_fixture_run_and_write_summary(tmp_path: Path) -> None:
    s = summarize(FIXTURES / "new")
    assert s.run is not None
    assert s.run.suite == "weather-demo"
    assert s.cases == 10
    assert (s.overall.pass_rate.passed, s.overall.pass_rate.n) == (6, 9)
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    for name in ("results.jsonl", "run.json"):
        (run_dir / name).write_bytes((FIXTURES / "new" / name).read_bytes())
    path = write_summary(run_dir)
    data = orjson.loads(path.read_bytes())
    assert data["version"] == 1
    assert data["overall"]["pass_rate"]["passed"] == 6


def test_confusion_labels_name_each_tool_once() -> None:
    r = res(
        "a",
        "failed",
        scores=[sc("tool_selection", False, expected="x", actual="y, y, z, y")],
    )
    cells = summarize_results([r]).tool_selection.confusion
    assert [(c.expected, c.actual) for c in cells] == [("x", "y, z")]


def test_single_trial_runs_keep_no_per_case_state() -> None:
    from agentgauge.schema import RunRecord

    run = RunRecord(run_id="r", suite="s", agent="a", started_at="t", agentgauge_version="0")
    rs = [res("a"), res("b", "failed"), res("c", "error")]
    s = summarize_results(rs, run=run)
    assert s.cases == 3
    assert s.trials.pass_at_k == {"1": pytest.approx(1 / 3)}
    assert s.warnings == []
    # a run.json that undercounts trials is reported, not silently trusted
    s = summarize_results([res("a"), res("a", trial=1)], run=run)
    assert any("one trial per case" in w for w in s.warnings)
    # with trials recorded, cases are counted by id
    s = summarize_results([res("a"), res("a", trial=1)], run=run.model_copy(update={"trials": 2}))
    assert s.cases == 1


def test_truncated_last_line_is_skipped_and_bad_lines_are_user_errors(tmp_path: Path) -> None:
    from agentgauge.errors import UserError

    good = (FIXTURES / "new" / "results.jsonl").read_bytes()
    (tmp_path / "results.jsonl").write_bytes(good + b'{"case_id": "cut", "sta')
    assert summarize(tmp_path).overall.results == 10
    (tmp_path / "results.jsonl").write_bytes(b'{"case_id": "x"}\n' + good)
    with pytest.raises(
        UserError, match=r"results.jsonl:1: status: required field is missing \(not a valid result"
    ):
        summarize(tmp_path)
