"""Gates on any scorer by name: mean on its own scale, pass rate, zero tolerance, regression."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.metrics import evaluate_gates, gate_run, load_gates_file, summarize_results
from agentgauge.schema import CaseResult, Gates, Score, ScorerGate


def res(case_id: str, scores: list[Score], status: str = "passed", **kw: Any) -> CaseResult:
    return CaseResult(
        case_id=case_id,
        status=status,  # type: ignore[arg-type]
        score=1.0 if status == "passed" else 0.0,
        scores=scores,
        **kw,
    )


def grounded(case_id: str, five: int) -> CaseResult:
    """A result whose groundedness judge gave ``five`` on its 1..5 scale."""
    value = (five - 1) / 4
    return res(case_id, [Score(name="judge.groundedness", value=value, passed=five >= 4)])


def safety(case_id: str, ok: bool) -> CaseResult:
    return res(case_id, [Score(name="safety", value=float(ok), passed=ok)])


def _check(gates: Gates, results: list[CaseResult], name: str) -> tuple[bool, str, str]:
    report = evaluate_gates(summarize_results(results, gates=gates), gates)
    c = next(c for c in report.checks if c.name == name)
    assert report.passed == all(x.passed for x in report.checks)
    return c.passed, c.actual, c.message


def test_min_mean_on_the_judge_scale_fails_below_and_passes_above() -> None:
    gates = Gates(scorers={"groundedness": ScorerGate(min_mean=4.5)})
    low = [grounded(f"c{i}", s) for i, s in enumerate([5, 5, 4, 3])]  # mean 4.25
    ok, actual, message = _check(gates, low, "judge.groundedness mean")
    assert not ok
    assert actual.startswith("4.25 [")
    assert "(n=4)" in actual
    assert "0.25 below the minimum 4.5" in message
    high = [grounded(f"c{i}", s) for i, s in enumerate([5, 5, 5, 4])]  # mean 4.75
    assert _check(gates, high, "judge.groundedness mean")[0]


def test_the_scale_can_be_given_and_defaults_to_0_1_for_other_scorers() -> None:
    rs = [
        res(f"c{i}", [Score(name="similarity", value=v, passed=v > 0.5)])
        for i, v in enumerate([0.9, 0.7, 0.5])
    ]  # mean 0.7
    assert not _check(
        Gates(scorers={"similarity": ScorerGate(min_mean=0.8)}), rs, "similarity mean"
    )[0]
    assert _check(Gates(scorers={"similarity": ScorerGate(min_mean=0.6)}), rs, "similarity mean")[0]
    # on a 0..100 scale the same mean is 70
    hundred = ScorerGate(min_mean=75, scale=(0, 100))
    ok, actual, _ = _check(Gates(scorers={"similarity": hundred}), rs, "similarity mean")
    assert not ok
    assert actual.startswith("70.00 [")


def test_zero_tolerance_fails_on_one_violation() -> None:
    gates = Gates(scorers={"safety": ScorerGate(max_failures=0)})
    clean = [safety(f"c{i}", True) for i in range(5)]
    assert _check(gates, clean, "safety failures")[0]
    one_bad = [*clean, safety("leaky", False)]
    ok, actual, message = _check(gates, one_bad, "safety failures")
    assert not ok
    assert actual == "1 of 6"
    assert "leaky" in message


def test_min_pass_rate_of_a_scorer() -> None:
    gates = Gates(scorers={"safety": ScorerGate(min_pass_rate=0.9)})
    rs = [safety(f"c{i}", i != 0) for i in range(5)]  # 80 %
    ok, actual, _ = _check(gates, rs, "safety pass rate")
    assert not ok
    assert actual.startswith("80.0% [")


def test_a_gated_scorer_that_never_ran_fails_every_check() -> None:
    gates = Gates(
        scorers={"judge.relevance": ScorerGate(min_mean=4, min_pass_rate=0.5, max_failures=0)}
    )
    rs = [safety("c0", True)]
    report = evaluate_gates(summarize_results(rs, gates=gates), gates)
    assert not report.passed
    assert {c.name for c in report.failed} == {
        "judge.relevance mean",
        "judge.relevance pass rate",
        "judge.relevance failures",
    }
    assert all(c.actual.startswith("n/a") for c in report.failed)


def test_skipped_scores_are_neither_passes_nor_failures() -> None:
    gates = Gates(scorers={"safety": ScorerGate(max_failures=0, min_pass_rate=1.0)})
    rs = [safety("c0", True), res("c1", [Score(name="safety", value=0.0, passed=None)])]
    summary = summarize_results(rs, gates=gates)
    stats = summary.scorers["safety"]
    assert (stats.pass_rate.passed, stats.pass_rate.n, stats.pass_rate.skipped) == (1, 1, 1)
    assert stats.mean.n == 1
    assert evaluate_gates(summary, gates).passed


def test_turn_scores_combine_into_one_per_result() -> None:
    rs = [
        res(
            "c0",
            [
                Score(name="turn[0].safety", value=1.0, passed=True),
                Score(name="turn[1].safety", value=0.0, passed=False),
            ],
        )
    ]
    s = summarize_results(rs).scorers["safety"]
    assert (s.pass_rate.passed, s.pass_rate.n, s.failures) == (0, 1, 1)


def test_small_sample_warning_names_the_scorer() -> None:
    gates = Gates(scorers={"safety": ScorerGate(max_failures=0)}, min_sample_size=10)
    report = evaluate_gates(summarize_results([safety("c0", True)], gates=gates), gates)
    assert any("scorer safety: only 1 scored results" in w for w in report.warnings)


def _run(path: Path, results: list[CaseResult]) -> Path:
    path.mkdir()
    body = b"".join(orjson.dumps(r.model_dump(mode="json")) + b"\n" for r in results)
    (path / "results.jsonl").write_bytes(body)
    return path


def test_relative_regression_against_the_baseline_even_above_the_minimum(tmp_path: Path) -> None:
    base = _run(tmp_path / "base", [grounded(f"c{i}", 5) for i in range(10)])  # 5.0
    worse = [grounded(f"c{i}", 5 if i < 7 else 4) for i in range(10)]  # 4.7: -6 %
    new = _run(tmp_path / "new", worse)
    gate = ScorerGate(min_mean=4.5, max_regression=0.02)
    _, report, _ = gate_run(new, gates=Gates(scorers={"groundedness": gate}), baseline=base)
    checks = {c.name: c for c in report.checks}
    assert checks["judge.groundedness mean"].passed  # 4.7 is above the 4.5 minimum
    regression = checks["regression: judge.groundedness"]
    assert not regression.passed
    assert "-6.0%" in regression.actual
    assert not report.passed
    same = _run(tmp_path / "same", [grounded(f"c{i}", 5) for i in range(10)])
    _, ok, _ = gate_run(same, gates=Gates(scorers={"groundedness": gate}), baseline=base)
    assert ok.passed


def test_through_the_gate_command_and_a_gates_file(tmp_path: Path) -> None:
    rs = [grounded(f"c{i}", s) for i, s in enumerate([5, 4, 3])]
    rs.append(safety("c-unsafe", False))
    run = _run(tmp_path / "run", rs)
    gates = tmp_path / "gates.yaml"
    gates.write_text(
        "forbid_forbidden_tool_calls: false\n"
        "scorers:\n"
        "  groundedness: {min_mean: 4.5}\n"
        "  safety: {max_failures: 0}\n"
    )
    result = CliRunner().invoke(cli, ["gate", str(run), "--gates", str(gates), "--json"])
    assert result.exit_code == 1, result.output
    failed = {c["name"] for c in json.loads(result.output)["checks"] if not c["passed"]}
    assert failed == {"judge.groundedness mean", "safety failures"}
    gates.write_text("scorers:\n  groundedness: {min_mean: 3.5}\n  safety: {max_failures: 1}\n")
    result = CliRunner().invoke(cli, ["gate", str(run), "--gates", str(gates)])
    assert result.exit_code == 0, result.output
    assert "judge.groundedness mean: 4.00" in result.output


def test_bad_scorer_gate_is_a_one_line_error(tmp_path: Path) -> None:
    f = tmp_path / "gates.yaml"
    f.write_text("scorers:\n  safety: {max_failure: 0}\n")
    with pytest.raises(UserError) as info:
        load_gates_file(f)
    assert "gates.yaml:2: scorers.safety.max_failure: unknown field" in str(info.value)
