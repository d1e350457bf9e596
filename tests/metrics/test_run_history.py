"""Run history in SQLite, and the sparkline."""

from __future__ import annotations

import shutil
from pathlib import Path

from agentgauge.metrics import history_path, read_history, sparkline, write_summary

FIXTURES = Path(__file__).resolve().parents[1] / "report" / "fixtures"


def test_write_summary_records_runs(tmp_path: Path) -> None:
    for name in ("base", "new"):
        shutil.copytree(FIXTURES / name, tmp_path / name)
        write_summary(tmp_path / name)
        write_summary(tmp_path / name)  # recording twice replaces the row
    assert history_path().exists()
    entries = read_history()
    assert [e.run_id for e in entries] == ["base", "new"]
    assert entries[0].metrics["pass_rate"] == 5 / 9
    assert entries[1].git_commit == "2" * 40
    assert read_history(suite="other") == []
    assert [e.run_id for e in read_history(limit=1)] == ["new"]


def test_history_is_optional(tmp_path: Path) -> None:
    shutil.copytree(FIXTURES / "new", tmp_path / "new")
    write_summary(tmp_path / "new", record=False)
    assert read_history() == []


def test_sparkline() -> None:
    assert sparkline([0.0, 0.5, 1.0]) == "▁▅█"
    assert sparkline([1.0, None, 1.0]) == "▅ ▅"
    assert sparkline([]) == ""


def test_runs_without_run_json_are_not_recorded(tmp_path: Path) -> None:
    from agentgauge.metrics import record_run

    shutil.copy(FIXTURES / "new" / "results.jsonl", tmp_path / "results.jsonl")
    assert record_run(tmp_path) is None
    assert read_history() == []
