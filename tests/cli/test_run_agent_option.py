"""``run --agent`` names one agent: a repeated ``--agent`` is a usage error, not "the last wins"."""

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


def test_a_repeated_agent_is_a_usage_error(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = ["run", str(_suite(tmp_path)), "--agent", "mock:", "--agent", "mock:echo"]
    result = CliRunner().invoke(cli, [*args, "-o", str(run_dir), "--no-cache"])
    assert result.exit_code == 2  # before: 0, and the run used mock:echo alone
    lines = result.output.strip().splitlines()
    assert lines == [
        "--agent given 2 times (mock:, mock:echo); a run tests one agent: run each agent on its "
        "own and compare the runs with 'agentgauge compare'"
    ]
    assert "Traceback" not in result.output
    assert not run_dir.exists()


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
