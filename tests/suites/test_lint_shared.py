"""Lint on real datasets (skipped when ../shared/data is absent): no false errors, real findings."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import check_suite, lint_suite
from agentgauge.io.importers import ImportOptions, import_suite

pytestmark = pytest.mark.shared_data


def test_bfcl_live_multiple_findings(shared_data: Path) -> None:
    suite = import_suite("bfcl", [shared_data / "bfcl-v4" / "BFCL_v4_live_multiple.json"])
    findings = lint_suite(suite)
    assert [f for f in findings if f.severity == "error"] == []
    by_case = {(f.case_id, f.code) for f in findings}
    # BFCL's own ground truth calls transfer_to_human_agent with 'question'; the tool takes
    # 'statement'
    assert ("live_multiple_964-207-0", "unknown-argument") in by_case
    assert ("live_multiple_964-207-0", "missing-argument") in by_case


def test_imported_when2call_validates(shared_data: Path, tmp_path: Path) -> None:
    source = shared_data / "when2call" / "when2call_test_llm_judge.jsonl"
    out = tmp_path / "w2c"
    result = CliRunner().invoke(cli, ["import", "when2call", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    check = check_suite(out)
    assert check.problems == []
    assert check.loaded is not None
    assert len(check.loaded.suite.cases) == 300
    assert not check.failed()
    assert "weak-expectation" in {f.code for f in check.findings}


def test_limit_option_keeps_lint_quiet_on_clean_cases(shared_data: Path) -> None:
    suite = import_suite(
        "bfcl",
        [shared_data / "bfcl-v4" / "BFCL_v4_parallel.json"],
        ImportOptions(limit=20),
    )
    codes = {f.code for f in lint_suite(suite)}
    assert codes <= {"category-mix", "unused-tool", "optional-required"}
