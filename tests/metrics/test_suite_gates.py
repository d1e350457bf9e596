"""Reading a suite's gates without parsing its cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.metrics._files import suite_gates
from agentgauge.schema import RunRecord


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


def test_invalid_gates_name_the_file(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: s\ngates:\n  min_pass_rate: 7\n")
    with pytest.raises(UserError, match=r"suite\.yaml: invalid gates"):
        suite_gates(_run(suite))
