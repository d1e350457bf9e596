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
        # a case of the fixture run has its own latency_budget_s: a budget is always checked
        "latency budget violations": True,
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
    assert [c.name for c in new.failed] == ["forbidden tool calls"]
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
    assert [c.name for c in report.checks] == ["pass rate", "latency budget violations"]


def test_bad_gates_file_is_a_user_error(tmp_path: Path) -> None:
    f = tmp_path / "gates.yaml"
    f.write_text("min_pass_rate: 2\n")
    with pytest.raises(UserError, match=r"gates.yaml:1: min_pass_rate: .*less than or equal to 1"):
        load_gates_file(f)
    f.write_text("gates:\n  max_error_rate: 0.1\n  min_pass_rat: 0.5\n")
    with pytest.raises(UserError) as info:
        load_gates_file(f)
    assert info.value.problems == [
        f"{f}:3: gates.min_pass_rat: unknown field 'min_pass_rat' (did you mean 'min_pass_rate'?)"
    ]
    f.write_text("min_pass_rate: [\n")
    with pytest.raises(UserError, match=r"gates.yaml:2: invalid YAML"):
        load_gates_file(f)
    with pytest.raises(UserError, match="no such file"):
        load_gates_file(tmp_path / "missing.yaml")


def test_gates_come_from_the_suite_recorded_in_run_json(tmp_path: Path) -> None:
    import json
    import shutil

    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: weather-demo\n"
        "gates:\n  min_pass_rate: 0.99\n  forbid_forbidden_tool_calls: false\n"
        "  latency_budget_s: {happy_path: 1}\n"
    )
    run = tmp_path / "run"
    shutil.copytree(FIXTURES / "new", run)
    record = json.loads((run / "run.json").read_text())
    record["suite_path"] = str(suite)
    (run / "run.json").write_text(json.dumps(record))
    summary, report, _ = gate_run(run)
    assert [c.name for c in report.checks] == ["pass rate", "latency budget violations"]
    assert not report.passed
    # the suite's per-category latency budget was applied while summarizing
    assert summary.performance.budget_violations.n == 5
    # a suite file that has gone away is an error (the defaults alone would pass this run) ...
    suite.unlink()
    with pytest.raises(UserError, match="is gone"):
        gate_run(run)
    # ... unless the gates are given
    _, report, _ = gate_run(run, gates=Gates())
    # one case's own latency_budget_s is still checked with the default gates
    assert [c.name for c in report.checks] == ["latency budget violations", "forbidden tool calls"]


def test_empty_run_fails_minimums_but_not_maxima(tmp_path: Path) -> None:
    (tmp_path / "results.jsonl").write_text("")
    s = summarize(tmp_path)
    assert s.overall.pass_rate.value is None
    report = evaluate_gates(s, Gates(min_pass_rate=0.5, max_latency_s={"p95": 3}))
    assert _names(report) == {"pass rate": False, "latency p95": True, "forbidden tool calls": True}
