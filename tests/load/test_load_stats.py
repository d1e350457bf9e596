"""What a load run counts: error kinds, percentiles, intervals, the quality ratio against the
unloaded baseline, and the thresholds (each shown failing and passing)."""

from __future__ import annotations

import pytest

from agentgauge.load import error_kind, evaluate, make_plan, percentile
from agentgauge.load._stats import Sample, step_stats, totals, windows
from agentgauge.runner import SessionResult
from agentgauge.schema import LoadProfile, parse_threshold


def _result(
    case: str = "a",
    status: str = "passed",
    error: str | None = None,
    latency: float = 100.0,
    ttft: float | None = None,
    tokens: int = 10,
) -> SessionResult:
    return SessionResult(
        case_id=case,
        trial=0,
        status=status,
        error=error,
        latency_ms=latency,
        ttft_ms=ttft,
        input_tokens=tokens,
        output_tokens=tokens,
        cost_usd=None,
        model_calls=1,
        retries=0,
    )


def _sample(end: float, phase: str = "load", **kw: object) -> Sample:
    return Sample(phase, end - 0.1, end, 1.0, None, _result(**kw), (1.0, 2.0))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        ("provider error: openai:x: HTTP 429: over capacity", "429"),
        ("provider error: openai:x: HTTP 503: down (after 3 attempts)", "5xx"),
        ("provider error: openai:x: HTTP 400: bad request", "4xx"),
        ("provider error: openai:x: HTTP 408: slow", "timeout"),
        ("timeout after 5s", "timeout"),
        ("provider error: openai:x: connection failed: ConnectError: refused", "transport"),
        ("scorer crashed: ValueError: boom", "other"),
        (None, None),
    ],
)
def test_errors_are_counted_by_kind(error: str | None, kind: str | None) -> None:
    assert error_kind(error) == kind


def test_percentiles_interpolate_between_ranks() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 50) == pytest.approx(50.5)
    assert percentile(values, 95) == pytest.approx(95.05)
    assert percentile([7.0], 99) == 7.0


def _plan(**data: object):  # type: ignore[no-untyped-def]
    return make_plan(LoadProfile.model_validate({"users": 2, "duration": "4s", **data}))


def test_intervals_count_sessions_where_they_end() -> None:
    plan = _plan()
    samples = [
        _sample(0.5),
        _sample(0.7, status="failed"),
        _sample(1.2, latency=300.0),
        _sample(3.9, status="error", error="HTTP 429"),
        _sample(0.1, phase="baseline"),
    ]
    ws = windows(samples, plan, 4.0, started=[0.4, 0.6, 1.1, 3.8], dropped=[2.5])
    assert [w.sessions for w in ws] == [2, 1, 0, 1]
    assert [w.started for w in ws] == [2, 1, 0, 1]
    assert [w.dropped for w in ws] == [0, 0, 1, 0]
    assert ws[0].pass_rate == 0.5
    assert ws[3].errors_by_kind == {"429": 1}
    assert ws[3].error_rate == 1.0
    assert ws[1].latency_ms is not None
    assert ws[1].latency_ms.p95 == 300.0
    assert ws[0].tokens_per_min == pytest.approx(40 * 60)
    assert ws[0].cost_usd == pytest.approx(2 * (10 * 1 + 10 * 2) / 1e6)
    assert all(w.target == 2 for w in ws)


def test_a_short_last_piece_joins_the_interval_before_it() -> None:
    ws = windows([_sample(4.05)], _plan(), 4.1)
    assert len(ws) == 4
    assert ws[-1].sessions == 1
    assert ws[-1].end_s == pytest.approx(4.1)


def test_quality_ratio_compares_with_the_same_cases_unloaded() -> None:
    base = [_sample(0, "baseline", case="a"), _sample(0, "baseline", case="b", status="failed")]
    # under load: a ran 3 times (2 passed), b once (failed), plus an error (not an answer)
    load = [
        _sample(1, case="a"),
        _sample(1, case="a"),
        _sample(1, case="a", status="failed"),
        _sample(1, case="b", status="failed"),
        _sample(1, case="a", status="error", error="timeout after 1s"),
    ]
    t = totals(base + load, 0.0, 2.0)
    assert t.baseline_pass_rate == 0.5
    assert t.expected_pass_rate == pytest.approx(3 / 4)  # a passed unloaded, 3 of 4 answers
    assert t.pass_rate == pytest.approx(2 / 4)
    assert t.quality_ratio == pytest.approx((2 / 4) / (3 / 4))
    assert t.error_rate == pytest.approx(1 / 5)


def _verdict(threshold: str, samples: list[Sample]) -> bool:
    t = totals(samples, 0.0, 1.0)
    (v,) = evaluate([parse_threshold(threshold)], t)
    return v.passed


def test_each_load_gate_fails_a_bad_run_and_passes_a_good_one() -> None:
    slow = [_sample(0.5, latency=900.0) for _ in range(20)]
    fast = [_sample(0.5, latency=90.0) for _ in range(20)]
    assert not _verdict("p95<500", slow)
    assert _verdict("p95<500", fast)
    failing = fast[:18] + [_sample(0.5, status="error", error="HTTP 503")] * 2
    assert not _verdict("error_rate<0.05", failing)
    assert _verdict("error_rate<0.05", fast)
    base = [_sample(0, "baseline")]
    worse = base + [_sample(0.5, status="failed")] * 5 + [_sample(0.5)] * 5
    assert not _verdict("quality_ratio>0.9", worse)
    assert _verdict("quality_ratio>0.9", base + fast)
    ttft = [_sample(0.5, ttft=50.0)] * 3
    assert _verdict("ttft_p95<100", ttft)
    assert not _verdict("ttft_p95<10", ttft)


def test_an_unmeasured_gate_fails() -> None:
    (v,) = evaluate(
        [parse_threshold("quality_ratio>0.5")], totals([_sample(0.5)], 0, 1), "no baseline"
    )
    assert not v.passed
    assert "no baseline" in v.explanation
    (v,) = evaluate([parse_threshold("p95<500")], totals([], 0, 1))
    assert not v.passed


def test_a_step_holds_only_when_its_budget_holds_and_a_session_ended_in_it() -> None:
    plan = make_plan(
        LoadProfile.model_validate(
            {"step": {"start": 1, "max": 3, "every": "1s", "budget": ["error_rate<0.1"]}}
        )
    )
    samples = [_sample(0.5), _sample(0.6), _sample(1.5, status="error", error="HTTP 429")]
    assert step_stats(plan, samples, 0).held
    broke = step_stats(plan, samples, 1)
    assert not broke.held
    assert broke.broken_by == ["error_rate<0.1"]
    empty = step_stats(plan, samples, 2)
    assert not empty.held
    assert "no session finished within the step" in empty.broken_by


def test_each_interval_has_its_own_quality_ratio() -> None:
    base = [_sample(0, "baseline", case="a")]
    samples = [
        *base,
        _sample(0.5, case="a"),
        _sample(1.5, case="a", status="failed"),
        _sample(1.6, case="a"),
    ]
    ws = windows(samples, _plan(), 2.0)
    assert ws[0].quality_ratio == 1.0
    assert ws[1].quality_ratio == 0.5
    assert windows(samples[1:], _plan(), 2.0)[0].quality_ratio is None  # no baseline
