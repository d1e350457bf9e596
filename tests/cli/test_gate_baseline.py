"""``agentgauge gate RUN --baseline BASE`` without a regression rule: a significant regression
fails by default, and the gate says what it compared (issue 22, item 4)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from matrix_helpers import words_suite


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def run(suite: Path, agent: str, out: Path) -> Path:
    code, output = invoke(
        "run", str(suite), "--agent", agent, "-o", str(out), "--no-history", "--no-progress"
    )
    assert code == 0, output
    return out


@pytest.fixture
def runs(tmp_path: Path) -> tuple[Path, Path]:
    """mock:echo passes 12 of 13 cases, mock: passes 1 (its 12 broken cases: McNemar p < 0.001)."""
    suite = words_suite(tmp_path, words=12)
    return run(suite, "mock:echo", tmp_path / "good"), run(suite, "mock:", tmp_path / "bad")


def test_a_significant_drop_fails_without_any_regression_rule(runs: tuple[Path, Path]) -> None:
    """Regression: a baseline with no max_regression_points was compared with nothing; a
    92 % -> 8 % drop printed no line and passed."""
    good, bad = runs
    code, output = invoke("gate", str(bad), "--baseline", str(good))
    assert code == 1, output
    lines = output.splitlines()
    assert lines[0] == "gate: FAILED"
    assert lines[1] == (
        f"  compared with the baseline {good}: 13 paired cases (1 fixed, 12 broken, "
        "0 unchanged; exact McNemar p = 0.00342)"
    )
    assert lines[2].startswith(
        "  regression rule: the default: any statistically significant drop fails "
        "(exact McNemar p < 0.05; no max_regression_points set); metrics: pass_rate,"
    )
    assert "  note: different agents: mock:echo (base) and mock: (new)" in lines
    fail = next(line for line in lines if "regression: pass_rate" in line)
    assert fail.startswith("  FAIL regression: pass_rate: -84.6 pts")
    assert fail.endswith("(required no significant drop)")
    assert "pass_rate moved -84.6 points against the baseline (statistically significant" in output


def test_an_improvement_passes_and_still_says_what_it_compared(runs: tuple[Path, Path]) -> None:
    good, bad = runs
    code, output = invoke("gate", str(good), "--baseline", str(bad))
    assert code == 0, output
    assert f"compared with the baseline {bad}: 13 paired cases (12 fixed, 1 broken" in output
    assert "  ok   regression: pass_rate: +84.6 pts" in output


def test_a_drop_that_is_not_significant_passes_with_a_note(tmp_path: Path) -> None:
    suite = words_suite(tmp_path, words=2)  # echo passes 2 of 3, mock: 1 of 3: p = 1
    good = run(suite, "mock:echo", tmp_path / "good")
    bad = run(suite, "mock:", tmp_path / "bad")
    code, output = invoke("gate", str(bad), "--baseline", str(good), "--json")
    assert code == 0, output
    report = json.loads(output)
    check = next(c for c in report["checks"] if c["name"] == "regression: pass_rate")
    assert check["passed"] is True
    assert check["message"].endswith("(not statistically significant; not failing)")
    assert report["compared"]["default_rule"] is True
    assert (report["compared"]["paired"], report["compared"]["broken"]) == (3, 2)


def test_an_explicit_rule_is_named_and_applied_as_before(
    runs: tuple[Path, Path], tmp_path: Path
) -> None:
    good, bad = runs
    gates = tmp_path / "gates.yaml"
    gates.write_text("max_regression_points: 90\nregression_metrics: [pass_rate]\n")
    code, output = invoke("gate", str(bad), "--baseline", str(good), "--gates", str(gates))
    assert code == 0, output  # an 84.6-point drop is within 90
    assert "  regression rule: max_regression_points 90; metrics: pass_rate" in output
    assert "  ok   regression: pass_rate: -84.6 pts" in output
    gates.write_text("max_regression_points: 5\nregression_metrics: [pass_rate]\n")
    code, output = invoke("gate", str(bad), "--baseline", str(good), "--gates", str(gates))
    assert code == 1, output
    assert "(required drop ≤ 5 pts)" in output


def test_a_baseline_sharing_no_case_fails_instead_of_passing(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    ours = run(words_suite(tmp_path / "a", words=2), "mock:echo", tmp_path / "ours")
    other_suite = words_suite(tmp_path / "b", words=2, name="other")
    text = other_suite.read_text().replace("id: say-", "id: tell-").replace("mock-only", "only")
    other_suite.write_text(text)  # another suite: no case id in common
    other = run(other_suite, "mock:echo", tmp_path / "other")
    code, output = invoke("gate", str(ours), "--baseline", str(other))
    assert code == 1, output
    assert f"compared with the baseline {other}: 0 paired cases" in output
    assert "  FAIL regression: baseline: n/a (0 paired cases)" in output
    assert f"the baseline {other} shares no case with this run" in output
