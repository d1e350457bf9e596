"""``agentgauge compare``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


def test_compare_text_and_json() -> None:
    runner = CliRunner()
    args = ["compare", str(FIXTURES / "base"), str(FIXTURES / "new")]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "3 fixed, 2 broken" in result.output
    assert "broken: book-trip, delete-account" in result.output
    assert "exact McNemar p = 1" in result.output
    assert "to detect a 5-point change" in result.output
    data = json.loads(runner.invoke(cli, [*args, "--json", "--detect", "10"]).output)
    assert data["counts"]["fixed"] == 3
    assert data["sample_size"]["points"] == 10


def test_compare_missing_run_is_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["compare", str(tmp_path), str(FIXTURES / "new")])
    assert result.exit_code == 2


def _run(suite: Path, agent: str, out: Path) -> Path:
    args = ["run", str(suite), "--agent", agent, "-o", str(out), "--no-history", "--no-progress"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code in (0, 1), result.output
    return out


def test_a_matrix_folder_gets_the_member_hint(tmp_path: Path) -> None:
    """Regression: 'OUT/results.jsonl: no such results file'."""
    from matrix_helpers import words_suite

    out = tmp_path / "out"
    suite = words_suite(tmp_path, words=1)
    args = ["run", str(suite), "--agent", "a=mock:", "--agent", "b=mock:echo", "-o", str(out)]
    assert CliRunner().invoke(cli, [*args, "--no-history"]).exit_code == 0
    single = _run(suite, "mock:", tmp_path / "single")
    for pair in ((out, single), (single, out)):
        result = CliRunner().invoke(cli, ["compare", *map(str, pair)])
        assert result.exit_code == 2, result.output
        [line] = result.output.splitlines()
        assert line == (
            f"{out}: a matrix folder (one run per agent: a, b), not a run; compare two of its "
            f"members, e.g. agentgauge compare {out}/a {out}/b (the members' own comparison is "
            f"{out}/comparison.md, agentgauge report {out})"
        )
    assert CliRunner().invoke(cli, ["compare", f"{out}/a", f"{out}/b"]).exit_code == 0


def test_runs_sharing_no_case_are_refused_not_compared(tmp_path: Path) -> None:
    """Regression: runs of two different suites exited 0 with 'McNemar p = 1' on 0 cases."""
    from matrix_helpers import words_suite

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base = _run(words_suite(tmp_path / "a", words=2), "mock:echo", tmp_path / "base")
    other = words_suite(tmp_path / "b", words=2, name="other")
    other.write_text(other.read_text().replace("id: say-", "id: tell-").replace("mock-only", "x"))
    new = _run(other, "mock:echo", tmp_path / "new")
    result = CliRunner().invoke(cli, ["compare", str(base), str(new)])
    assert result.exit_code == 2, result.output
    [line] = result.output.splitlines()
    assert line == (
        f"{new}: shares no case with {base} (3 case(s) only in the base, 3 only in the new run; "
        "the runs are of different suites ('words' and 'other')): nothing to compare; compare "
        "two runs of the same suite"
    )
    assert "McNemar" not in result.output


def test_different_suites_sharing_cases_are_compared_with_a_warning(tmp_path: Path) -> None:
    from matrix_helpers import words_suite

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    base = _run(words_suite(tmp_path / "a", words=2), "mock:echo", tmp_path / "base")
    new = _run(words_suite(tmp_path / "b", words=2, name="other"), "mock:", tmp_path / "new")
    result = CliRunner().invoke(cli, ["compare", str(base), str(new)])
    assert result.exit_code == 0, result.output
    assert (
        "warning: the runs are of different suites ('words' and 'other'); only the cases with "
        "the same id are paired" in result.output
    )
    assert "3 paired cases" in result.output
