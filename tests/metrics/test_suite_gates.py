"""Reading a suite's gates without parsing its cases."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.metrics._files import suite_gates
from agentgauge.schema import RunRecord

#: a recorded run (9 results, pass rate 55.6%, latency p95 4.1 s) that passes the default gates
BASE_RUN = Path(__file__).resolve().parents[1] / "report" / "fixtures" / "base"


def _run(path: Path) -> RunRecord:
    return RunRecord(
        run_id="r",
        suite="s",
        suite_path=str(path),
        agent="mock:",
        started_at="t",
        agentgauge_version="0",
    )


def test_block_gates_between_other_top_level_keys(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\n"
        "gates:\n"
        "  # comment inside the block\n"
        "  min_pass_rate: 0.8\n"
        "\n"
        "  max_latency_s: {p95: 3}\n"
        "cases:\n"
        "  - {id: a, input: hi, expect: {behavior: answer}}\n"
        "  - id: b\n"
        "    input: 'gates: not this one'\n"
    )
    gates = suite_gates(_run(suite))
    assert gates is not None
    assert gates.min_pass_rate == 0.8
    assert gates.max_latency_s == {"p95": 3}


def test_flow_gates_and_folder_suite(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text('name: s\n"gates": {max_error_rate: 0.1}\n')
    gates = suite_gates(_run(tmp_path))
    assert gates is not None
    assert gates.max_error_rate == 0.1


def test_no_gates_section(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: s\ncases:\n  - id: gates\n    input: 'gates:'\n")
    assert suite_gates(_run(suite)) is None


def test_json_suite(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps({"name": "s", "gates": {"min_pass_rate": 0.5}, "cases": []}))
    gates = suite_gates(_run(suite))
    assert gates is not None
    assert gates.min_pass_rate == 0.5


def test_invalid_gates_name_the_file_line_and_field(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: s\ngates:\n  min_pass_rate: 7\n")
    with pytest.raises(UserError, match=r"suite\.yaml:3: gates\.min_pass_rate: "):
        suite_gates(_run(suite))


# ---- `agentgauge gate RUN_DIR` with the gates of the suite recorded in run.json ----


def _gate(tmp_path: Path, suite_path: str | Path) -> Result:
    """``agentgauge gate`` on a copy of BASE_RUN whose run.json names ``suite_path``."""
    run = tmp_path / "run"
    if not run.exists():
        shutil.copytree(BASE_RUN, run)
    record = json.loads((run / "run.json").read_text())
    record["suite_path"] = str(suite_path)
    (run / "run.json").write_text(json.dumps(record))
    return CliRunner().invoke(cli, ["gate", str(run)])


def _one_line_error(result: Result) -> str:
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


def test_gate_fast_path_applies_the_suite_gates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_full_load(*_: object, **__: object) -> None:
        raise AssertionError("the suite was loaded whole")

    monkeypatch.setattr("agentgauge.io.open_suite", no_full_load)
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: weather-demo\n"
        "gates:\n  min_pass_rate: 0.99\n"
        "cases:\n  - {id: a, input: hi, expect: {behavior: answer}}\n"
    )
    failed = _gate(tmp_path, suite)
    assert failed.exit_code == 1, failed.output
    assert "FAIL pass rate" in failed.output
    suite.write_text(suite.read_text().replace("0.99", "0.5"))
    assert _gate(tmp_path, suite).exit_code == 0


def test_gate_with_an_unclosed_flow_mapping_is_a_usage_error(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    # the default gates alone pass this run: a silent fallback would exit 0
    suite.write_text("name: weather-demo\ngates: {min_pass_rate: 0.99\n")
    line = _one_line_error(_gate(tmp_path, suite))
    assert line.startswith(f"{suite}:3: invalid YAML: ")
    assert "gates cannot be read" in line
    assert "--gates FILE" in line


def test_gate_with_a_wrong_type_names_the_field(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: weather-demo\ngates:\n  min_pass_rate: high\n")
    line = _one_line_error(_gate(tmp_path, suite))
    assert line.startswith(f"{suite}:3: gates.min_pass_rate: Input should be a valid number")
    # gates that are not a mapping at all are no better than no gates
    suite.write_text("name: weather-demo\ngates: 0.99\n")
    assert _one_line_error(_gate(tmp_path, suite)).startswith(f"{suite}:2: gates: ")


def test_gate_names_the_gates_problem_among_others(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: weather-demo\ncases:\n  - {id: a, input: hi, bogus: 1}\n"
        "gates:\n  max_error_rate: lots\n"
    )
    line = _one_line_error(_gate(tmp_path, suite))
    assert line.startswith(f"{suite}:5: gates.max_error_rate: ")
    assert f"1 more problem(s): agentgauge validate {suite}" in line


def test_gate_with_a_yaml_alias_loads_the_whole_suite(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    # the anchor is outside the gates block, so the block alone does not parse
    suite.write_text(
        "name: weather-demo\n"
        "defaults: {timeout_s: &slowest 3}\n"
        "gates:\n  max_latency_s: {p95: *slowest}\n"
    )
    result = _gate(tmp_path, suite)
    assert result.exit_code == 1, result.output
    assert "FAIL latency p95: 4.10 s (required ≤ 3 s)" in result.output
    suite.write_text(suite.read_text().replace("&slowest 3", "&slowest 5"))
    assert _gate(tmp_path, suite).exit_code == 0


def test_gate_with_a_flow_style_yaml_suite(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text('{"name": "weather-demo",\n "gates": {"min_pass_rate": 0.99}}\n')
    result = _gate(tmp_path, suite)
    assert result.exit_code == 1, result.output
    assert "FAIL pass rate" in result.output


def test_gate_with_folder_and_json_suites(tmp_path: Path) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "suite.json").write_text('{"name": "s", "gates": {"min_pass_rate": 0.99}}')
    assert _gate(tmp_path, folder).exit_code == 1
    (folder / "suite.json").write_text('{"name": "s", "gates": {"min_pass_rate": 0.99}')
    line = _one_line_error(_gate(tmp_path, folder))
    assert line.startswith(f"{folder / 'suite.json'}:1: invalid JSON: ")
    (folder / "suite.json").unlink()
    (folder / "suite.yml").write_text("name: s\ngates: {min_pass_rate: 0.99}\n")
    assert _gate(tmp_path, folder).exit_code == 1
    # a suite folder left without its suite file is as gone as a deleted suite file
    (folder / "suite.yml").unlink()
    assert "holds no suite file any more" in _one_line_error(_gate(tmp_path, folder))


def test_gate_on_bfcl_data_and_case_files_uses_the_defaults(tmp_path: Path) -> None:
    bfcl = tmp_path / "BFCL_v3_simple.json"  # JSON lines, as BFCL ships them: not one document
    bfcl.write_text('{"id": "simple_0", "question": []}\n{"id": "simple_1", "question": []}\n')
    assert _gate(tmp_path, bfcl).exit_code == 0
    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"id": "a", "input": "hi"}\n')
    assert _gate(tmp_path, cases).exit_code == 0


def test_gate_warns_when_a_relative_suite_path_is_not_found(tmp_path: Path) -> None:
    result = _gate(tmp_path, "no/such/suite.yaml")
    assert result.exit_code == 0, result.output
    assert "warning: the suite no/such/suite.yaml named in run.json is not in the current" in (
        result.output
    )


def test_gate_warns_when_run_json_names_no_suite(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(BASE_RUN, run)
    record = json.loads((run / "run.json").read_text())
    record["suite_path"] = None  # run or scored from Python with a Suite object
    (run / "run.json").write_text(json.dumps(record))
    result = CliRunner().invoke(cli, ["gate", str(run)])
    assert result.exit_code == 0, result.output
    assert "warning: run.json names no suite file, so only the default gates" in result.output
    gates = tmp_path / "gates.yaml"
    gates.write_text("min_pass_rate: 0.1\n")
    result = CliRunner().invoke(cli, ["gate", str(run), "--gates", str(gates)])
    assert "names no suite file" not in result.output


def test_report_refuses_unreadable_suite_gates(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: weather-demo\ngates: {min_pass_rate: 0.99\n")
    _gate(tmp_path, suite)
    result = CliRunner().invoke(cli, ["report", str(tmp_path / "run")])
    assert _one_line_error(result).startswith(f"{suite}:3: invalid YAML: ")
