"""Feedback and reviews added to a run directory after the run change its history row.

The row is written when the run ends; ``RUN_DIR/feedback.jsonl`` comes later. Reading the
history recomputes the metrics those files feed (user satisfaction, planning grade) from the
directory, keeps the value the run's end recorded beside it, and the command labels both.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.metrics import read_history, summarize

CASES = 4


def _run(tmp_path: Path) -> tuple[Path, Path]:
    cases = "".join(
        f"  - id: c{i}\n    input: hi {i}\n    expect: {{response_contains: [mock]}}\n"
        for i in range(CASES)
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(f"name: fb\ncases:\n{cases}", encoding="utf-8")
    run_dir, history = tmp_path / "run", tmp_path / "h.sqlite"
    out = CliRunner().invoke(
        cli,
        ["run", str(suite), "--agent", "mock:", "-o", str(run_dir), "--history", str(history)],
    )
    assert out.exit_code == 0, out.output
    return run_dir, history


def _feedback(run_dir: Path, scores: list[float]) -> None:
    lines = [json.dumps({"case_id": f"c{i}", "trial": 0, "score": s}) for i, s in enumerate(scores)]
    (run_dir / "feedback.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _history(history: Path, *args: str) -> str:
    out = CliRunner().invoke(cli, ["history", "--history", str(history), *args])
    assert out.exit_code == 0, out.output
    return out.output


def test_a_row_without_later_feedback_is_as_recorded(tmp_path: Path) -> None:
    _run_dir, history = _run(tmp_path)
    [row] = read_history(path=history)
    assert "user_satisfaction" not in row.metrics  # nothing measured: not stored, never 0
    assert row.recorded == {}
    assert row.note is None
    assert "after the run" not in _history(history)


def test_feedback_added_later_changes_the_row_and_both_values_are_shown(tmp_path: Path) -> None:
    run_dir, history = _run(tmp_path)
    _feedback(run_dir, [1, 1, 0, 0.5])  # two of four at or above 0.75 of the scale
    [row] = read_history(path=history)
    assert row.metrics["user_satisfaction"] == 0.5
    # what `report` / `gate` say of the same directory
    modules = summarize(run_dir).modules
    assert modules is not None
    assert modules.satisfaction is not None
    assert modules.satisfaction.satisfied.value == 0.5
    assert row.recorded == {"user_satisfaction": None}
    assert row.intervals["user_satisfaction"][0] < 0.5 < row.intervals["user_satisfaction"][1]
    text = _history(history, "--metric", "user_satisfaction")
    assert "50.0% *" in text
    assert "user_satisfaction 50.0% with the feedback / reviews added to" in text
    assert "(recorded at the run's end: –)" in text
    doc = json.loads(_history(history, "--json"))
    [run] = doc["groups"][0]["runs"]
    assert run["metrics"]["user_satisfaction"] == 0.5
    assert run["recorded"] == {"user_satisfaction": None}
    # later feedback replaces earlier: the row follows the file
    _feedback(run_dir, [1, 1, 1, 1])
    [row] = read_history(path=history)
    assert row.metrics["user_satisfaction"] == 1.0
    [row] = read_history(path=history, side_files=False)  # the stored row itself
    assert "user_satisfaction" not in row.metrics


def test_a_bad_feedback_file_leaves_the_row_as_recorded_and_says_why(tmp_path: Path) -> None:
    run_dir, history = _run(tmp_path)
    (run_dir / "feedback.jsonl").write_text('{"case_id": "c0", "score": 6, "scale": [1, 5]}\n')
    [row] = read_history(path=history)
    assert "user_satisfaction" not in row.metrics
    assert row.note is not None
    assert "feedback.jsonl:1: score" in row.note
    text = _history(history)
    assert "not applied" in text
    assert "Traceback" not in text


def test_a_directory_holding_another_run_is_not_read_into_the_row(tmp_path: Path) -> None:
    run_dir, history = _run(tmp_path)
    record = json.loads((run_dir / "run.json").read_text())
    record["run_id"] = "another"
    (run_dir / "run.json").write_text(json.dumps(record))
    _feedback(run_dir, [1, 1, 1, 1])
    [row] = read_history(path=history)
    assert "user_satisfaction" not in row.metrics
    assert row.note is not None
    assert "another run" in row.note
