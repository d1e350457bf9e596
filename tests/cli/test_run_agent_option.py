"""``run --agent``: a repeated ``--agent`` runs each agent, never "the last wins"."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results

SUITE = """\
name: one-agent
tools: []
cases:
  - id: hello
    input: hello
"""


def _suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return path


def test_a_repeated_agent_runs_each_and_the_same_one_twice_is_a_usage_error(
    tmp_path: Path,
) -> None:
    """``--agent`` twice used to keep the last one silently; now each runs (a matrix run,
    tests/cli/test_run_matrix.py), and the same spec twice without labels is refused."""
    run_dir = tmp_path / "run"
    args = ["run", str(_suite(tmp_path)), "--agent", "mock:", "--agent", "mock:echo"]
    result = CliRunner().invoke(cli, [*args, "-o", str(run_dir), "--no-cache", "--no-history"])
    assert result.exit_code == 0, result.output
    assert [r.text for r in iter_results(run_dir / "mock-echo")] == ["hello"]
    assert [r.text for r in iter_results(run_dir / "mock")] == ["This is a mock reply."]
    again = tmp_path / "again"
    args = ["run", str(_suite(tmp_path)), "--agent", "mock:", "--agent", "mock:"]
    result = CliRunner().invoke(cli, [*args, "-o", str(again), "--no-cache"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "--agent: mock: is given twice (label 'mock'); give each its own label: "
        "--agent LABEL=mock: (or label: in the suite's matrix)"
    ]
    assert "Traceback" not in result.output
    assert not again.exists()


def test_one_agent_from_the_environment_is_not_split_at_spaces(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(
        cli,
        ["run", str(_suite(tmp_path)), "-o", str(run_dir), "--no-cache"],
        env={"AGENTGAUGE_AGENT": "mock:?text=two words"},
    )
    assert result.exit_code == 0, result.output
    [r] = list(iter_results(run_dir))
    assert r.text == "two words"
