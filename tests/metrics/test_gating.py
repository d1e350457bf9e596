"""Gate checks: thresholds, zero tolerance, regressions and significance."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.metrics import compare, evaluate_gates, gate_run, load_gates_file, summarize
from agentgauge.schema import Gates

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


def _names(report: object) -> dict[str, bool]:
    return {c.name: c.passed for c in report.checks}  # type: ignore[attr-defined]


def test_thresholds() -> None:
    s = summarize(FIXTURES / "new")
    gates = Gates(
        min_pass_rate=0.6,
        min_category_pass_rate={"no_tool": 0.9, "happy_path": 0.9, "missing": 0.5},
        min_tool_selection_accuracy=0.9,
        max_error_rate=0.05,
        max_latency_s={"p50": 2, "p95": 3},
        max_category_latency_s={"no_tool": {"max": 1}},
        forbid_forbidden_tool_calls=False,
    )
    report = evaluate_gates(s, gates)
    assert _names(report) == {
        "pass rate": True,
        "pass rate [happy_path]": False,
        "pass rate [missing]": False,
        "pass rate [no_tool]": True,
        "tool selection accuracy": False,
        "error rate": False,
        "latency p50": True,
        "latency p95": False,
        "latency [no_tool] max": True,
    }
    assert not report.passed
    failed = {c.name: c for c in report.failed}
    assert "66.7%" not in failed["pass rate [happy_path]"].actual
    assert failed["pass rate [happy_path]"].actual.startswith("60.0% [")
    assert "nothing was measured" in failed["pass rate [missing]"].message
    assert report.warnings  # every gated slice here is far below 200 cases


def test_forbidden_tool_zero_tolerance() -> None:
    base = evaluate_gates(summarize(FIXTURES / "base"), Gates())
    assert base.passed
    new = evaluate_gates(summarize(FIXTURES / "new"), Gates())
    assert not new.passed
    assert "delete-account" in new.failed[0].message


def test_regression_and_significance() -> None:
    s = summarize(FIXTURES / "new")
    cmp = compare(FIXTURES / "base", FIXTURES / "new")
    gates = Gates(max_regression_points=2, forbid_forbidden_tool_calls=False)
    report = evaluate_gates(s, gates, cmp)
    assert _names(report)["regression: task_completion"] is False
    assert _names(report)["regression: pass_rate"] is True
    # the task-completion drop rests on one case: not significant, so it does not fail
    lenient = gates.model_copy(update={"require_significance": True})
    report = evaluate_gates(s, lenient, cmp)
    assert report.passed
    check = next(c for c in report.checks if c.name == "regression: task_completion")
    assert "not statistically significant" in check.message
    # regressions are only checked when a baseline is given
    assert all(not c.name.startswith("regression") for c in evaluate_gates(s, gates).checks)


def test_gate_run_reads_gates_file(tmp_path: Path) -> None:
    f = tmp_path / "gates.yaml"
    f.write_text("gates:\n  min_pass_rate: 0.5\n  forbid_forbidden_tool_calls: false\n")
    _, report, cmp = gate_run(FIXTURES / "new", gates_file=f)
    assert report.passed
    assert cmp is None
    assert [c.name for c in report.checks] == ["pass rate"]


def test_bad_gates_file_is_a_user_error(tmp_path: Path) -> None:
    f = tmp_path / "gates.yaml"
    f.write_text("min_pass_rate: 2\n")
    with pytest.raises(UserError, match="invalid gates"):
        load_gates_file(f)
    f.write_text("min_pass_rat: 0.5\n")
    with pytest.raises(UserError, match="min_pass_rat"):
        load_gates_file(f)
    with pytest.raises(UserError, match="cannot read"):
        load_gates_file(tmp_path / "missing.yaml")
