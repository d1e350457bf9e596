"""The diagnosis rates (intent recognition, clarification, tool-call decision, memory retention)
in a comparison and a matrix run: each is paired per case on the summary's own verdicts, tested
with compare's exact McNemar, Holm-adjusted over the pairs of that rate in a matrix, shown in the
console and Markdown tables and starred on the dashboard only when significant (the run
folders: tests/metrics/diagnosis_pair_runs.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from diagnosis_pair_runs import RATES, N  # tests/metrics is on sys.path
from diagnosis_pair_runs import matrix as _matrix
from diagnosis_pair_runs import run_dir as _run

from agentgauge.metrics import (
    MetricDelta,
    compare,
    compare_matrix,
    module_pair_tests,
    summarize,
)
from agentgauge.report import (
    comparison_lines,
    dashboard_from_runs,
    matrix_dashboard,
    matrix_lines,
    render_matrix_markdown,
)


def _stars(page: str, label: str) -> list[str]:
    """The titles of the ★ marks on the dashboard's card row ``label``."""
    rows = re.findall(
        rf'<div class="agd-row[^"]*"[^>]*><dt>{re.escape(label)}</dt><dd>(.*?)</dd></div>', page
    )
    assert rows, f"no {label!r} row on the dashboard"
    return [t for row in rows for t in re.findall(r'agd-star" title="([^"]*)"', row)]


def test_the_summary_counts_what_the_fixture_says(tmp_path: Path) -> None:
    summary = summarize(_run(tmp_path / "w8", "wrong_8"))
    for metric in RATES:
        rate = summary.rate(metric)
        assert rate is not None
        assert (rate.passed, rate.n) == (N[metric] - 8, N[metric]), metric


def test_compare_pairs_each_diagnosis_rate(tmp_path: Path) -> None:
    right, far, near = (_run(tmp_path / a, a) for a in ("right", "wrong_8", "wrong_2"))
    cmp = compare(right, far)
    for metric in RATES:
        d = cmp.delta(metric)
        assert d is not None, metric
        assert (d.base, d.new, d.n) == (1.0, pytest.approx(1 - 8 / N[metric]), N[metric]), metric
        assert d.p_value == pytest.approx(2 / 2**8), metric  # 8 discordant cases, one way
    assert cmp.mcnemar_p == 1.0  # the pass rate: every case passed in both
    assert "  memory_retention: 100.0% -> 20.0% (-80.0 pts [" in "\n".join(comparison_lines(cmp))
    assert any(
        line.startswith("  intent_accuracy:") and line.endswith("McNemar p = 0.00781)")
        for line in comparison_lines(cmp)
    )
    close = compare(right, near)
    for metric in RATES:
        d = close.delta(metric)
        assert d is not None, metric
        assert (d.new, d.p_value) == (pytest.approx(1 - 2 / N[metric]), pytest.approx(0.5)), metric


def test_a_significant_diagnosis_difference_is_reported_and_starred(tmp_path: Path) -> None:
    c = compare_matrix(_matrix(tmp_path, "right", "wrong_8"))
    [pair] = c.pairs
    assert not pair.significant  # the pass rate: no difference
    md = render_matrix_markdown(c)
    lines = matrix_lines(c)
    page = matrix_dashboard(c)
    for metric, label in RATES.items():
        t = pair.module(metric)
        assert t is not None, metric
        assert t.p_value == pytest.approx(2 / 2**8)
        assert t.p_adjusted == t.p_value  # one pair
        assert (t.significant, t.better, t.note) == (True, "right", None), metric
        assert t.delta == pytest.approx(-8 / N[metric])
        [row] = [r for r in md.splitlines() if r.startswith(f"| wrong_8 vs right | {label} |")]
        assert row.startswith(f"| wrong_8 vs right | {label} | {N[metric]} | -")
        assert row.endswith("| 0.00781 | 0.00781 | right better |")
        assert any(
            f"right is significantly better than wrong_8 on {label} (exact McNemar" in line
            for line in lines
        ), label
        [star] = _stars(page, label)
        assert f"{metric} significantly higher than wrong_8: McNemar p = 0.00781" in star


def test_an_insignificant_diagnosis_difference_gets_no_star_and_no_better(
    tmp_path: Path,
) -> None:
    c = compare_matrix(_matrix(tmp_path, "right", "wrong_2"))
    [pair] = c.pairs
    page = matrix_dashboard(c)
    md = render_matrix_markdown(c)
    for metric, label in RATES.items():
        t = pair.module(metric)
        assert t is not None, metric
        assert t.p_value == pytest.approx(0.5)
        assert (t.significant, t.better) == (False, None), metric
        assert _stars(page, label) == []
        [row] = [r for r in md.splitlines() if r.startswith(f"| wrong_2 vs right | {label} |")]
        assert row.endswith("| 0.5 | 0.5 | no significant difference |")
    assert not any("significantly better" in line for line in matrix_lines(c))
    assert "wrong_2 better" not in md
    assert "right better" not in md


def test_holm_over_three_pairs_takes_the_star_away(tmp_path: Path) -> None:
    """wrong_8 against wrong_2: p = 0.031 alone, 0.0625 after Holm over the three pairs."""
    c = compare_matrix(_matrix(tmp_path, "right", "wrong_8", "wrong_2"))
    for metric, label in RATES.items():
        by = {(p.a, p.b): p.module(metric) for p in c.pairs}
        close = by[("wrong_8", "wrong_2")]
        assert close is not None
        assert close.p_value == pytest.approx(2 / 2**6)
        assert close.p_adjusted == pytest.approx(2 * 2 / 2**6)
        assert (close.significant, close.better) == (False, None)
        # right beats wrong_8 but not wrong_2: nobody beats both others, no star
        assert _stars(matrix_dashboard(c), label) == []


def test_dashboard_of_plain_runs_stars_the_same_way(tmp_path: Path) -> None:
    out = _matrix(tmp_path, "right", "wrong_8", "wrong_2")
    two = dashboard_from_runs([("right", out / "right"), ("wrong_8", out / "wrong_8")])
    near = dashboard_from_runs([("right", out / "right"), ("wrong_2", out / "wrong_2")])
    for label in RATES.values():
        [star] = _stars(two, label)
        assert "McNemar p = 0.00781" in star
        assert _stars(near, label) == []


def test_a_rate_one_agent_never_measured_is_unknown_not_zero(tmp_path: Path) -> None:
    c = compare_matrix(_matrix(tmp_path, "right", "forgetful"))
    [pair] = c.pairs
    t = pair.module("memory_retention")
    assert t is not None
    assert (t.n, t.delta, t.p_value, t.p_adjusted, t.significant) == (0, None, None, None, False)
    assert t.note is not None
    assert t.note.startswith("unknown")
    md = render_matrix_markdown(c)
    [row] = [r for r in md.splitlines() if "| memory retention |" in r and " vs " in r]
    assert row.startswith("| forgetful vs right | memory retention | 0 | – | – | – | unknown")
    assert "0.0%" not in row
    assert _stars(matrix_dashboard(c), "memory retention") == []
    memory = c.agent("forgetful")
    assert memory is not None
    assert memory.quality.modules["memory_retention"].n == 0


def test_too_few_shared_cases_is_said_so() -> None:
    """Five cases all one way give p = 0.0625: no difference could be significant at 0.05."""
    d = MetricDelta(metric="intent_accuracy", base=1.0, new=0.0, delta=-1.0, n=5, p_value=0.0625)
    [[t]] = module_pair_tests([("a", "b", [d])], 0.05)
    assert not t.significant
    assert t.note == (
        "not enough pairs: 5 shared case(s), too few for any difference to be significant at 0.05"
    )
    enough = d.model_copy(update={"n": 6, "p_value": 0.03125})
    [[t6]] = module_pair_tests([("a", "b", [enough])], 0.05)
    assert (t6.significant, t6.better, t6.note) == (True, "a", None)
