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
    assert [c["name"] for c in report["checks"]] == [
        "pass rate",
        "latency budget violations",
        "regression: pass_rate",
    ]
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
    assert "gates.yaml:1: min_pass_rate: Input should be less than or equal to 1" in result.output
    result = runner.invoke(cli, ["gate", str(FIXTURES / "new"), "--baseline", str(tmp_path)])
    assert result.exit_code == 2
    assert runner.invoke(cli, ["gate"]).exit_code == 2


def test_gate_refuses_when_the_suite_with_its_gates_is_gone(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: demo\ngates: {min_pass_rate: 0.9}\ncases:\n"
        "  - {id: a, input: hi, expect: {behavior: refuse}}\n"
    )
    run_dir = tmp_path / "run"
    runner = CliRunner()
    ran = runner.invoke(cli, ["run", str(suite), "--agent", "mock:", "-o", str(run_dir)])
    assert ran.exit_code == 0, ran.output
    assert runner.invoke(cli, ["gate", str(run_dir)]).exit_code == 1  # 0% < 90%
    suite.unlink()
    # the defaults alone (only the forbidden-tool check) would pass this run
    result = runner.invoke(cli, ["gate", str(run_dir)])
    assert result.exit_code == 2
    assert "is gone" in result.output
    assert "--gates" in result.output
    gates = tmp_path / "gates.yaml"
    gates.write_text("min_pass_rate: 0.9\n")
    assert runner.invoke(cli, ["gate", str(run_dir), "--gates", str(gates)]).exit_code == 1
