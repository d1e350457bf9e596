"""Paired comparison of two runs: changes, McNemar, paired bootstrap, sample sizes."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from agentgauge.metrics import compare
from agentgauge.metrics._stats import mcnemar_exact
from agentgauge.schema import CaseResult

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


def _write(run_dir: Path, rows: list[tuple[str, int, str]]) -> Path:
    run_dir.mkdir(parents=True)
    with open(run_dir / "results.jsonl", "wb") as fh:
        for cid, trial, status in rows:
            r = CaseResult(case_id=cid, trial=trial, status=status)  # type: ignore[arg-type]
            fh.write(orjson.dumps(r.model_dump(mode="json")) + b"\n")
    return run_dir


def test_compare_fixture_runs() -> None:
    cmp = compare(FIXTURES / "base", FIXTURES / "new")
    assert cmp.paired == 9
    assert cmp.counts == {
        "fixed": 3,
        "broken": 2,
        "unchanged_pass": 3,
        "unchanged_fail": 1,
        "new": 1,
        "removed": 0,
    }
    assert [c.case_id for c in cmp.fixed] == ["ambiguous-where", "chitchat-joke", "weather-lyon"]
    assert [c.case_id for c in cmp.broken] == ["book-trip", "delete-account"]
    assert cmp.new_cases == ["weather-oslo"]
    assert cmp.broken[1].explanation.startswith("forbidden_tools")
    assert cmp.mcnemar_p == pytest.approx(mcnemar_exact(3, 2))
    pr = cmp.delta("pass_rate")
    assert pr is not None
    assert pr.base is not None
    assert pr.new is not None
    assert (pr.base, pr.new) == (pytest.approx(5 / 9), pytest.approx(6 / 9))
    assert pr.low is not None
    assert pr.high is not None
    assert pr.low < pr.delta < pr.high
    assert pr.p_value == cmp.mcnemar_p
    # arguments: weather-nice is skipped in both runs (wrong tool), so 4 cases pair up
    args = cmp.delta("argument_accuracy")
    assert args is not None
    assert args.n == 4
    assert cmp.sample_size is not None
    assert cmp.sample_size.paired_cases


def test_identical_runs_have_zero_delta(tmp_path: Path) -> None:
    rows = [("a", 0, "passed"), ("b", 0, "failed"), ("c", 0, "error")]
    base = _write(tmp_path / "base", rows)
    new = _write(tmp_path / "new", rows)
    cmp = compare(base, new)
    assert cmp.mcnemar_p == 1.0
    for d in cmp.deltas:
        if d.delta is not None:
            assert (d.delta, d.low, d.high) == (0.0, 0.0, 0.0)
    assert cmp.counts["unchanged_fail"] == 2  # an error is not a pass


def test_trials_stay_with_their_case(tmp_path: Path) -> None:
    base = _write(
        tmp_path / "base",
        [("a", 0, "passed"), ("a", 1, "failed"), ("b", 0, "passed"), ("b", 1, "passed")],
    )
    new = _write(
        tmp_path / "new",
        [("a", 1, "passed"), ("a", 0, "passed"), ("b", 0, "passed"), ("b", 1, "failed")],
    )
    cmp = compare(base, new)
    # a case passes only when all its trials pass
    assert [c.case_id for c in cmp.fixed] == ["a"]
    assert [c.case_id for c in cmp.broken] == ["b"]
    assert cmp.fixed[0].base == "1/2"
    assert cmp.fixed[0].new == "2/2"
    pr = cmp.delta("pass_rate")
    assert pr is not None
    assert pr.delta == 0.0


def test_significant_change_is_detected(tmp_path: Path) -> None:
    base = _write(
        tmp_path / "base", [(f"c{i}", 0, "failed" if i < 14 else "passed") for i in range(40)]
    )
    new = _write(tmp_path / "new", [(f"c{i}", 0, "passed") for i in range(40)])
    cmp = compare(base, new)
    assert cmp.counts["fixed"] == 14
    assert cmp.mcnemar_p == pytest.approx(2 / 2**14)
    pr = cmp.delta("pass_rate")
    assert pr is not None
    assert pr.low is not None
    assert pr.low > 0


def test_mean_metrics_are_compared_in_their_units(tmp_path: Path) -> None:
    def write(run_dir: Path, latency: float, cost: float | None) -> Path:
        run_dir.mkdir()
        with open(run_dir / "results.jsonl", "wb") as fh:
            for i in range(30):
                r = CaseResult(
                    case_id=f"c{i}",
                    status="passed",
                    latency_ms=latency + i,
                    cost_usd=cost,
                    usage={"input_tokens": 100, "output_tokens": 10},  # type: ignore[arg-type]
                )
                fh.write(orjson.dumps(r.model_dump(mode="json")) + b"\n")
        return run_dir

    cmp = compare(write(tmp_path / "a", 1000.0, 0.01), write(tmp_path / "b", 1500.0, None))
    lat = cmp.delta("latency_ms")
    assert lat is not None
    assert lat.unit == "ms"
    assert lat.delta == pytest.approx(500.0)
    assert (lat.low, lat.high) == (pytest.approx(500.0), pytest.approx(500.0))
    assert lat.p_value is None
    tokens = cmp.delta("tokens")
    assert tokens is not None
    assert tokens.delta == 0
    cost = cmp.delta("cost_usd")
    assert cost is not None
    assert cost.delta is None  # the new run reported no cost
