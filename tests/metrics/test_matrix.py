"""metrics.compare_matrix: per-agent stats, pairwise McNemar with Holm, ranking, percentiles."""

from __future__ import annotations

import random
from array import array
from pathlib import Path

import pytest
from pydantic import ValidationError

from agentgauge.errors import UserError
from agentgauge.metrics import (
    COMPARISON_FILE,
    MODULE_METRICS,
    MatrixComparison,
    compare_matrix,
    quantile_interval,
    read_matrix,
    write_comparison,
)
from agentgauge.runner import RunConfig, parse_agents, run_matrix
from agentgauge.schema import Matrix, MatrixEntry, agent_label
from matrix_helpers import words_suite


def matrix(tmp_path: Path, words: int, *agents: str) -> Path:
    out = tmp_path / "out"
    config = RunConfig(progress=False, cache=False)
    run_matrix(words_suite(tmp_path, words), config, parse_agents(agents), out)
    return out


def test_two_agents_side_by_side(tmp_path: Path) -> None:
    out = matrix(tmp_path, 8, "mock:", "echo=mock:echo")
    c = compare_matrix(out)
    mock, echo = c.agents
    assert (mock.label, echo.label) == ("mock", "echo")
    assert (mock.quality.pass_rate.passed, echo.quality.pass_rate.passed) == (1, 8)
    assert echo.quality.pass_rate.low is not None
    assert echo.quality.pass_rate.low < 8 / 9 < echo.quality.pass_rate.high  # type: ignore[operator]
    assert (echo.rank, mock.rank) == (1, 2)
    assert c.ranking == ["echo", "mock"]
    assert set(echo.quality.modules) == {key for key, _, _ in MODULE_METRICS}
    assert echo.cost.model_calls.mean == 1.0
    assert echo.cost.input_tokens.mean is not None
    assert echo.performance.p50.n == 9
    assert c.scenarios == ["echo", "fixed"]
    assert echo.scenarios["echo"].pass_rate.passed == 8
    assert mock.scenarios["fixed"].pass_rate.passed == 1
    assert echo.scenarios["echo"].tokens.n == 8
    [pair] = c.pairs
    assert (pair.a_only, pair.b_only, pair.shared_cases) == (1, 8, 9)
    assert pair.p_value == pytest.approx(2 * (1 + 9) / 2**9)
    assert pair.p_adjusted == pair.p_value  # one pair: nothing to adjust
    assert pair.significant
    assert pair.better == "echo"
    delta = pair.delta("pass_rate")
    assert delta is not None
    assert delta.delta == pytest.approx(7 / 9)
    assert delta.low is not None
    assert delta.low > 0
    assert c.warnings == []  # "different agents" is what a matrix is about


def test_holm_adjustment_over_three_pairs(tmp_path: Path) -> None:
    """p = 0.039 for one pair is significant; among three pairs Holm makes it 0.117."""
    out = matrix(tmp_path, 8, "echo=mock:echo", "a=mock:", "b=mock:")
    c = compare_matrix(out)
    by = {(p.a, p.b): p for p in c.pairs}
    assert set(by) == {("echo", "a"), ("echo", "b"), ("a", "b")}
    assert by[("echo", "a")].p_value == pytest.approx(0.0390625)
    assert by[("echo", "a")].p_adjusted == pytest.approx(3 * 0.0390625)
    assert not by[("echo", "a")].significant
    assert by[("a", "b")].p_adjusted == 1.0
    assert c.significant_pairs() == []


def test_a_larger_difference_survives_holm(tmp_path: Path) -> None:
    out = matrix(tmp_path, 12, "echo=mock:echo", "a=mock:", "b=mock:")
    c = compare_matrix(out)
    significant = {(p.a, p.b, p.better) for p in c.significant_pairs()}
    assert significant == {("echo", "a", "echo"), ("echo", "b", "echo")}


def test_comparison_json_round_trip_and_read_matrix(tmp_path: Path) -> None:
    out = matrix(tmp_path, 2, "mock:", "mock:echo")
    computed = read_matrix(out)  # no comparison.json yet: computed
    assert not (out / COMPARISON_FILE).exists()
    write_comparison(out, computed)
    again = read_matrix(out)
    assert again == computed
    (out / COMPARISON_FILE).write_text('{"agents": 3}')
    with pytest.raises(UserError, match="not a valid matrix comparison"):
        read_matrix(out)
    with pytest.raises(UserError, match="not a matrix folder"):
        read_matrix(out / "mock")
    assert MatrixComparison().agents == []


def test_quantile_interval_brackets_the_percentile() -> None:
    values = array("d", [float(i) for i in range(1, 101)])
    p50 = quantile_interval(values, 0.5, 0.95)
    assert p50.value == 50.0
    assert (p50.low, p50.high) == (40.0, 60.0)
    p95 = quantile_interval(values, 0.95, 0.95)
    assert p95.value == 95.0
    assert p95.low is not None
    assert p95.high is not None
    assert p95.low < 95.0 < p95.high <= 100.0
    assert quantile_interval(array("d"), 0.5, 0.95).value is None
    one = quantile_interval(array("d", [7.0]), 0.95, 0.95)
    assert (one.value, one.low, one.high) == (7.0, 7.0, 7.0)


def test_quantile_interval_covers_the_true_median() -> None:
    """Over 400 seeded samples of 200 uniform values, the 95 % interval of the median holds
    the true median (0.5) about 95 % of the time; a too-narrow interval would fall short."""
    rng = random.Random(1)
    hits = 0
    for _ in range(400):
        sample = array("d", sorted(rng.random() for _ in range(200)))
        q = quantile_interval(sample, 0.5, 0.95)
        assert q.low is not None
        assert q.high is not None
        hits += q.low <= 0.5 <= q.high
    assert 0.92 <= hits / 400 <= 0.99


def test_matrix_labels_and_entries() -> None:
    assert agent_label("openai:gpt-4o-mini") == "openai-gpt-4o-mini"
    assert agent_label("mock:") == "mock"
    assert agent_label("python:/abs/path/agent.py:run") == "python-abs-path-agent.py-run"
    m = Matrix(agents=["mock:", MatrixEntry(agent="mock:", label="other", temperature=0.5)])
    assert [e.name for e in m.entries()] == ["mock", "other"]
    with pytest.raises(ValidationError, match="give each a label of its own"):
        Matrix(agents=["mock:", "mock:"])
    with pytest.raises(ValidationError, match="label"):
        MatrixEntry(agent="mock:", label="../escape")
    with pytest.raises(ValidationError):
        Matrix(agents=[])
    with pytest.raises(UserError, match="is given twice"):
        parse_agents(["mock:", "mock:"])
    with pytest.raises(UserError, match="may hold only letters"):
        parse_agents(["bad label=mock:"])
    members = parse_agents(["small=local:smollm2", "mock:?text=a=b"])
    assert [(m.label, m.agent) for m in members] == [
        ("small", "local:smollm2"),
        ("mock-text-a-b", "mock:?text=a=b"),
    ]


def test_tokens_per_scenario_leave_out_results_whose_usage_is_unknown(tmp_path: Path) -> None:
    """A traced result without token counts (usage_recorded false) is not a 0-token result."""
    from agentgauge.io import ResultsWriter
    from agentgauge.metrics._matrix import _extra_pass
    from agentgauge.schema import CaseResult, Usage

    writer = ResultsWriter(tmp_path, fresh=True)
    writer.write(
        CaseResult(
            case_id="a",
            trial=0,
            status="passed",
            category="lookup",
            usage=Usage(input_tokens=80, output_tokens=20),
        )
    )
    writer.write(CaseResult(case_id="b", trial=0, status="passed", category="lookup"))
    writer.write(
        CaseResult(case_id="c", trial=0, status="passed", category="lookup", usage_recorded=False)
    )
    writer.close()
    _, tokens = _extra_pass(tmp_path, 0.95)
    assert tokens["lookup"].n == 2  # a (100) and b (a recorded 0); c is unknown
    assert tokens["lookup"].mean == 50.0
