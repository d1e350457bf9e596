"""``agentgauge score -o DIR`` takes the run directory's lock, as ``run`` does (issue 10 part 5)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results, run_dir_lock

SUITE = """\
name: locked
cases:
  - id: hello
    input: hello
    expect: {behavior: answer}
"""


def _score(tmp_path: Path, run_dir: Path) -> tuple[int, str]:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    responses = tmp_path / "responses.jsonl"
    responses.write_text(json.dumps({"case_id": "hello", "text": "Hi there!"}) + "\n")
    args = ["score", str(suite), "--responses", str(responses), "-o", str(run_dir)]
    result = CliRunner().invoke(cli, args)
    return result.exit_code, result.output


def test_score_refuses_a_directory_a_run_is_writing_to(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    # what `agentgauge run -o run` holds from its start, before its first result is written
    with run_dir_lock(run_dir):
        code, out = _score(tmp_path, run_dir)
        assert code == 2, out
        assert "another agentgauge run is writing to this directory" in out
        assert "Traceback" not in out
        assert not (run_dir / "results.jsonl").exists()
        assert not (run_dir / "run.json").exists()
    # once the run has let go, score works
    code, out = _score(tmp_path, run_dir)
    assert code == 0, out
    assert [r.status for r in iter_results(run_dir)] == ["passed"]


def test_run_refuses_the_same_lock(tmp_path: Path) -> None:
    # the lock score now takes is the one run checks: neither can join the other
    run_dir = tmp_path / "run"
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    with run_dir_lock(run_dir):
        args = ["run", str(suite), "--agent", "mock:", "-o", str(run_dir), "--no-cache"]
        result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "another agentgauge run is writing" in result.output
