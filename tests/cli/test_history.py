"""``agentgauge history``."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.metrics import write_summary

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


def test_history_empty_then_trend(tmp_path: Path) -> None:
    runner = CliRunner()
    empty = runner.invoke(cli, ["history"])
    assert empty.exit_code == 0
    assert "no runs recorded" in empty.output
    for name in ("base", "new"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
        write_summary(tmp_path / name)
    result = runner.invoke(cli, ["history", "--suite", "weather-demo"])
    assert result.exit_code == 0, result.output
    assert "55.6%" in result.output
    assert "66.7%" in result.output
    assert "▁█" in result.output
    result = runner.invoke(cli, ["history", "--metric", "latency_p95_ms", "--limit", "1"])
    assert "4100" in result.output
    assert runner.invoke(cli, ["history", "--metric", "nope"]).exit_code == 2
