"""Trends per metric: change against the previous run and the mean, and the band flag."""

from __future__ import annotations

import pytest

from agentgauge.errors import UserError
from agentgauge.metrics import HistoryEntry, default_metrics, metric_trend, resolve_metric


def runs(metric: str, values: list[float | None]) -> list[HistoryEntry]:
    return [
        HistoryEntry(
            run_id=f"r{i}",
            suite="demo",
            agent="mock:a",
            git_commit=None,
            started_at=f"2026-11-{i + 1:02d}",
            run_dir="/r",
            cases=10,
            results=10,
            metrics={metric: v},
        )
        for i, v in enumerate(values)
    ]


def test_a_drop_outside_the_band_is_flagged_as_a_regression() -> None:
    t = metric_trend(runs("pass_rate", [0.80, 0.82, 0.81, 0.79, 0.50]), "pass_rate", window=3)
    assert t.latest == 0.50
    assert t.previous == 0.79
    assert t.change == pytest.approx(-0.29)
    assert t.window == 3
    assert t.mean == pytest.approx(0.8066667, abs=1e-6)  # the 3 runs before the latest
    assert t.change_vs_mean == pytest.approx(0.50 - 0.8066667, abs=1e-6)
    assert t.outside == "below"
    assert t.regressed
    assert t.sparkline == "███▇▁"


def test_a_value_inside_the_band_is_not_flagged() -> None:
    t = metric_trend(runs("pass_rate", [0.80, 0.82, 0.81, 0.805]), "pass_rate")
    assert t.low is not None
    assert t.high is not None
    assert t.low < 0.805 < t.high
    assert t.outside is None
    assert not t.regressed
    # a steady metric: any move is outside its (zero-width) band; none is not
    assert metric_trend(runs("pass_rate", [0.8, 0.8, 0.8, 0.8]), "pass_rate").outside is None
    assert metric_trend(runs("pass_rate", [0.8, 0.8, 0.8, 0.9]), "pass_rate").outside == "above"


def test_lower_is_better_metrics_regress_upwards() -> None:
    up = metric_trend(runs("latency_p95_ms", [900, 950, 920, 2000]), "latency_p95_ms")
    assert (up.outside, up.regressed) == ("above", True)
    down = metric_trend(runs("error_rate", [0.2, 0.21, 0.19, 0.0]), "error_rate")
    assert (down.outside, down.regressed) == ("below", False)


def test_too_few_runs_draw_no_band_and_missing_values_are_skipped() -> None:
    t = metric_trend(runs("pass_rate", [0.8, 0.2]), "pass_rate")
    assert (t.change, t.low, t.outside) == (pytest.approx(-0.6), None, None)
    gap = metric_trend(runs("pass_rate", [0.8, None, 0.6]), "pass_rate")
    assert gap.previous == 0.8
    assert gap.sparkline == "█ ▁"
    first = metric_trend(runs("pass_rate", [0.7]), "pass_rate")
    assert (first.latest, first.previous, first.change, first.window) == (0.7, None, None, 0)


def test_metric_names_resolve_to_scorers() -> None:
    entries = runs("scorers.judge.groundedness", [0.5])
    entries += runs("scorers.judge.tone", [0.5]) + runs("scorers.similarity", [0.5])
    assert resolve_metric("groundedness", entries) == ["scorers.judge.groundedness"]
    assert resolve_metric("judge.tone", entries) == ["scorers.judge.tone"]
    assert resolve_metric("similarity", entries) == ["scorers.similarity"]
    assert resolve_metric("pass_rate", entries) == ["pass_rate"]
    with pytest.raises(UserError, match=r"--metric nope: not recorded .*judge\.groundedness"):
        resolve_metric("nope", entries)
    # the default view: headline metrics measured, then the judges (not every check)
    both = runs("pass_rate", [0.5]) + entries
    assert default_metrics(both) == [
        "pass_rate",
        "scorers.judge.groundedness",
        "scorers.judge.tone",
    ]


def test_a_module_rate_trend_says_which_runs_it_compared() -> None:
    """user_satisfaction measured in r0, r1, r3, r4 (r2 had no feedback): the latest, r4, is
    compared with r3 and with the mean of r0, r1 and r3, never with r2's missing value."""
    t = metric_trend(
        runs("user_satisfaction", [0.7, 0.8, None, 0.75, 0.4]), "user_satisfaction", window=3
    )
    assert (t.latest_run, t.previous_run, t.mean_runs) == ("r4", "r3", ("r0", "r1", "r3"))
    assert t.compared == (
        "run r4 against run r3 and the mean of 3 run(s) before it (r0 to r3): each value over "
        "its own run's results, not paired case by case and not a significance test"
    )
    alone = metric_trend(runs("user_satisfaction", [None, 0.5]), "user_satisfaction")
    assert alone.compared == "run r1 only: no earlier run measured it"
    gone = metric_trend(runs("user_satisfaction", [0.5, None]), "user_satisfaction")
    assert (gone.change, gone.compared) == (None, "run r1 did not measure it: nothing compared")
