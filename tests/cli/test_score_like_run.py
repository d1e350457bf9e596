"""`agentgauge score` scores exactly as `agentgauge run` does, the suite's scorers: included: a
made-up answer that `run` catches (an unsupported number) fails under `score` too."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results, read_record

# a golden set: each case has the reference answer, and the suite checks replies' numbers
SUITE = """\
name: golden-weather
scorers:
  - scorer: numeric_grounding
cases:
  - id: oslo
    input: It was 12 degrees in Oslo this morning. How warm was it?
    expect: {behavior: answer, reference: It was 12 degrees.}
  - id: bergen
    input: Bergen had 9 degrees. How warm was it there?
    expect: {behavior: answer, reference: It was 9 degrees.}
"""
ANSWERS = {"oslo": "It was 12 degrees.", "bergen": "It was 31 degrees."}  # bergen: made up


def _verdicts(run_dir: Path) -> dict[str, tuple[str, list[tuple[str, bool | None]]]]:
    return {
        r.case_id: (r.status, [(s.name, s.passed) for s in r.scores]) for r in iter_results(run_dir)
    }


def test_score_fails_the_made_up_answer_that_run_fails(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    script = tmp_path / "agent.jsonl"
    script.write_text("".join(json.dumps({"text": ANSWERS[c]}) + "\n" for c in ("oslo", "bergen")))
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        "".join(json.dumps({"case_id": c, "text": t}) + "\n" for c, t in ANSWERS.items())
    )
    runner = CliRunner()
    flags = ["--max-concurrency", "1", "--no-progress", "--no-cache"]
    ran = runner.invoke(
        cli, ["run", str(suite), "--agent", f"mock:{script}", "-o", str(tmp_path / "run"), *flags]
    )
    scored = runner.invoke(
        cli, ["score", str(suite), "--responses", str(responses), "-o", str(tmp_path / "score")]
    )
    assert ran.exit_code == 0, ran.output
    assert scored.exit_code == 0, scored.output
    by_run, by_score = _verdicts(tmp_path / "run"), _verdicts(tmp_path / "score")
    assert by_run["bergen"][0] == "failed"
    assert ("numeric_grounding", False) in by_run["bergen"][1]
    assert by_score == by_run
    assert by_score["oslo"][0] == "passed"
    # both record the suite the same way
    assert read_record(tmp_path / "score").suite_hash == read_record(tmp_path / "run").suite_hash
