"""``agentgauge gate``: exit 0 pass, 1 fail, 2 usage error."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


def test_gate_passes_with_exit_0() -> None:
    result = CliRunner().invoke(cli, ["gate", str(FIXTURES / "base")])
    assert result.exit_code == 0, result.output
    assert "gate: PASSED" in result.output


def test_gate_fails_with_exit_1() -> None:
    result = CliRunner().invoke(cli, ["gate", str(FIXTURES / "new")])
    assert result.exit_code == 1
    assert "FAIL forbidden tool calls" in result.output
    assert "delete-account" in result.output


def test_gate_with_gates_file_and_baseline(tmp_path: Path) -> None:
    gates = tmp_path / "gates.yaml"
    gates.write_text(
        "min_pass_rate: 0.5\nforbid_forbidden_tool_calls: false\nmax_regression_points: 2\n"
        "regression_metrics: [pass_rate]\n"
    )
    args = ["gate", str(FIXTURES / "new"), "--gates", str(gates)]
    result = CliRunner().invoke(cli, [*args, "--baseline", str(FIXTURES / "base"), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [c["name"] for c in report["checks"]] == ["pass rate", "regression: pass_rate"]
    # the same run gated against itself as a stricter floor fails
    gates.write_text("min_pass_rate: 0.9\n")
    assert CliRunner().invoke(cli, args).exit_code == 1


def test_gate_usage_errors_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(cli, ["gate", str(tmp_path / "no-run")])
    assert missing.exit_code == 2
    assert "no such run directory" in missing.output
    bad = tmp_path / "gates.yaml"
    bad.write_text("min_pass_rate: 1.5\n")
    result = runner.invoke(cli, ["gate", str(FIXTURES / "new"), "--gates", str(bad)])
    assert result.exit_code == 2
    assert "invalid gates" in result.output
    result = runner.invoke(cli, ["gate", str(FIXTURES / "new"), "--baseline", str(tmp_path)])
    assert result.exit_code == 2
    assert runner.invoke(cli, ["gate"]).exit_code == 2
