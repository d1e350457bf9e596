"""``agentgauge report`` in every format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


@pytest.mark.parametrize(
    ("fmt", "needle"),
    [
        ("console", "pass rate 66.7%"),
        ("markdown", "<!-- agentgauge-report -->"),
        ("junit", "<testsuites"),
        ("json", '"version": 1'),
        ("csv", "id,trial,category,expected,actual,status,score,explanation"),
    ],
)
def test_report_formats_on_stdout(fmt: str, needle: str) -> None:
    result = CliRunner().invoke(cli, ["report", str(FIXTURES / "new"), "--format", fmt])
    assert result.exit_code == 0, result.output
    assert needle in result.output


def test_report_to_file_with_baseline(tmp_path: Path) -> None:
    out = tmp_path / "comment.md"
    args = ["report", str(FIXTURES / "new"), "--format", "markdown", "-o", str(out)]
    result = CliRunner().invoke(cli, [*args, "--baseline", str(FIXTURES / "base")])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "**Against the baseline**" in text
    assert "Fixed: `ambiguous-where`" in text


def test_report_json_to_file(tmp_path: Path) -> None:
    out = tmp_path / "summary.json"
    args = ["report", str(FIXTURES / "base"), "--format", "json", "-o", str(out)]
    assert CliRunner().invoke(cli, args).exit_code == 0
    assert json.loads(out.read_text())["overall"]["pass_rate"]["n"] == 9


def test_report_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(cli, ["report", str(tmp_path / "x")]).exit_code == 2
    args = ["report", str(FIXTURES / "new"), "--format", "pdf"]
    assert runner.invoke(cli, args).exit_code == 2


@pytest.mark.parametrize("fmt", ["json", "csv", "junit"])
def test_baseline_with_a_format_that_cannot_show_it_is_a_usage_error(fmt: str) -> None:
    args = ["report", str(FIXTURES / "new"), "--format", fmt, "--baseline", str(FIXTURES / "base")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert "--baseline" in result.output
