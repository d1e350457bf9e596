"""Module rates in a matrix run's pairwise tests: each module's per-case verdicts (the summary's
own, cascade rule included) tested with compare's exact McNemar, Holm-adjusted over the pairs
of that module; the reports say which difference is significant and the dashboard stars only
those, naming the test.

Every agent passes every case, so the pass rate separates nobody; only routing differs:
``right`` routes 10/10, ``wrong_2`` 8/10, ``wrong_8`` 2/10.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentgauge.metrics import MatrixComparison, compare, compare_matrix, module_pair_tests
from agentgauge.report import (
    dashboard_from_runs,
    matrix_dashboard,
    matrix_lines,
    render_matrix_markdown,
)
from agentgauge.runner import RunConfig, parse_agents, run_matrix

AGENTS = Path(__file__).resolve().parent / "module_pair_agents.py"
CASES = 10


def _suite(tmp_path: Path) -> Path:
    cases = "".join(
        f"  - id: c{i}\n    input: q{i}\n    expect: {{response_contains: [ok]}}\n"
        "    labels: {route: skill, skill: billing}\n"
        for i in range(CASES)
    )
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: routes\ncases:\n{cases}", encoding="utf-8")
    return path


def _matrix(tmp_path: Path, *names: str) -> tuple[Path, MatrixComparison]:
    out = tmp_path / "out"
    agents = [f"{n}=python:{AGENTS}:{n}" for n in names]
    config = RunConfig(progress=False, cache=False)
    run_matrix(_suite(tmp_path), config, parse_agents(agents), out)
    return out, compare_matrix(out)


def _routing_stars(page: str) -> list[str]:
    """The titles of the ★ marks on the dashboard's routing row."""
    rows = re.findall(r'<div class="agd-row[^"]*"[^>]*><dt>routing</dt><dd>(.*?)</dd></div>', page)
    return [t for row in rows for t in re.findall(r'agd-star" title="([^"]*)"', row)]


def test_compare_pairs_the_module_verdicts_with_the_cascade(tmp_path: Path) -> None:
    out, _ = _matrix(tmp_path, "right", "wrong_8")
    cmp = compare(out / "right", out / "wrong_8")  # base right, new wrong_8
    routing = cmp.delta("routing_accuracy")
    assert routing is not None
    assert (routing.base, routing.new, routing.n) == (1.0, 0.2, CASES)
    assert routing.p_value == pytest.approx(2 / 2**8)  # 8 discordant cases, all one way
    skill = cmp.delta("skill_accuracy")
    assert skill is not None
    # the cascade rule: wrong_8's skill is excluded on its 8 misrouted cases, not failed
    assert (skill.n, skill.base, skill.new, skill.p_value) == (2, 1.0, 1.0, 1.0)
    assert cmp.delta("user_satisfaction") is None  # no feedback: no row, never a 0
    assert cmp.mcnemar_p == 1.0  # every case passed in both


def test_a_significant_module_difference_is_reported_and_starred(tmp_path: Path) -> None:
    _, c = _matrix(tmp_path, "right", "wrong_8")
    [pair] = c.pairs
    assert not pair.significant  # the pass rate: no difference
    t = pair.module("routing_accuracy")
    assert t is not None
    assert t.p_value == pytest.approx(2 / 2**8)
    assert t.p_adjusted == t.p_value  # one pair
    assert t.significant
    assert t.better == "right"
    assert t.delta == pytest.approx(-0.8)
    skill = pair.module("skill_accuracy")
    assert skill is not None
    assert not skill.significant
    assert skill.better is None
    md = render_matrix_markdown(c)
    assert "Pairwise by module (exact McNemar" in md
    assert "| wrong_8 vs right | routing | 10 |" in md
    assert any(
        "right is significantly better than wrong_8 on routing (exact McNemar" in line
        for line in matrix_lines(c)
    )
    [star] = _routing_stars(matrix_dashboard(c))
    assert "routing_accuracy significantly higher than wrong_8: McNemar p = 0.00781" in star


def test_a_difference_holm_does_not_support_gets_no_star(tmp_path: Path) -> None:
    """wrong_2 against wrong_8: p = 0.031 alone, 0.0625 after Holm over the three pairs."""
    _, c = _matrix(tmp_path, "right", "wrong_8", "wrong_2")
    by = {(p.a, p.b): p.module("routing_accuracy") for p in c.pairs}
    close = by[("wrong_8", "wrong_2")]
    assert close is not None
    assert close.p_value == pytest.approx(2 / 2**6)
    assert close.p_adjusted == pytest.approx(2 * 2 / 2**6)
    assert not close.significant
    assert close.better is None
    far = by[("right", "wrong_8")]
    assert far is not None
    assert far.significant
    near = by[("right", "wrong_2")]
    assert near is not None
    assert near.p_value == pytest.approx(0.5)
    assert not near.significant
    assert "| wrong_2 vs wrong_8 | routing | 10 |" in render_matrix_markdown(c)
    # nobody beats both others significantly: no star on the routing row
    assert _routing_stars(matrix_dashboard(c)) == []


def test_an_insignificant_module_difference_gets_no_star(tmp_path: Path) -> None:
    _, c = _matrix(tmp_path, "right", "wrong_2")
    [pair] = c.pairs
    t = pair.module("routing_accuracy")
    assert t is not None
    assert t.p_value == pytest.approx(0.5)
    assert not t.significant
    assert not any("significantly better" in line for line in matrix_lines(c))
    page = matrix_dashboard(c)
    assert "<dt>routing</dt>" in page  # the row is shown, with both values
    assert _routing_stars(page) == []


def test_dashboard_of_plain_runs_stars_the_same_way(tmp_path: Path) -> None:
    out, _ = _matrix(tmp_path, "right", "wrong_8", "wrong_2")
    runs = out
    two = dashboard_from_runs([("right", runs / "right"), ("wrong_8", runs / "wrong_8")])
    [star] = _routing_stars(two)
    assert "McNemar p = 0.00781" in star
    near = dashboard_from_runs([("right", runs / "right"), ("wrong_2", runs / "wrong_2")])
    assert _routing_stars(near) == []


def test_module_pair_tests_holm_per_module() -> None:
    from agentgauge.metrics import MetricDelta

    def d(metric: str, p: float, delta: float) -> MetricDelta:
        return MetricDelta(metric=metric, base=0.5, new=0.5 + delta, delta=delta, n=20, p_value=p)

    pairs = [
        ("a", "b", [d("routing_accuracy", 0.01, 0.3), d("pass_rate", 0.9, 0.0)]),
        ("a", "c", [d("routing_accuracy", 0.03, -0.2), d("skill_accuracy", 0.04, -0.1)]),
        ("b", "c", [d("routing_accuracy", 0.2, 0.0)]),
    ]
    ab, ac, bc = module_pair_tests(pairs, 0.05)
    [r_ab] = ab
    assert (r_ab.p_adjusted, r_ab.better) == (pytest.approx(0.03), "b")
    r_ac, s_ac = ac
    assert r_ac.p_adjusted == pytest.approx(0.06)
    assert not r_ac.significant
    assert s_ac.p_adjusted == pytest.approx(0.04)
    assert s_ac.better == "a"
    [r_bc] = bc
    assert not r_bc.significant  # no difference is never significant


def _feedback(run_dir: Path, happy: int) -> None:
    lines = [
        f'{{"case_id": "c{i}", "trial": 0, "score": {1 if i < happy else 0}}}' for i in range(CASES)
    ]
    (run_dir / "feedback.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_feedback_in_one_run_only_is_not_compared_and_never_a_zero(tmp_path: Path) -> None:
    out, _ = _matrix(tmp_path, "right", "wrong_8")
    _feedback(out / "right", 10)
    cmp = compare(out / "right", out / "wrong_8")
    d = cmp.delta("user_satisfaction")
    assert d is not None
    assert (d.base, d.new, d.delta, d.p_value) == (None, None, None, None)
    assert (
        "user_satisfaction: not compared: the new run measured no user satisfaction on the "
        "shared cases (unknown, not 0)" in cmp.warnings
    )
    _feedback(out / "wrong_8", 1)  # the run folder's feedback.jsonl, read as the summary reads it
    d = compare(out / "right", out / "wrong_8").delta("user_satisfaction")
    assert d is not None
    assert (d.base, d.new, d.n) == (1.0, 0.1, CASES)
    assert d.p_value == pytest.approx(2 / 2**9)
    c = compare_matrix(out)
    t = c.pairs[0].module("user_satisfaction")
    assert t is not None
    assert t.significant
    assert t.better == "right"
