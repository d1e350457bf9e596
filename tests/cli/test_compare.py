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
