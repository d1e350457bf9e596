"""``--judge-samples K`` on ``run`` and ``score``: K judge calls per judged question instead of
the suite's ``judge_samples``, a majority verdict that can differ from one sample's, and K in
run.json (kept on resume, and in the run history)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.metrics import read_history
from agentgauge.runner import RunConfig, read_record

# a judge that disagrees with itself: its first sample (seed 0) passes, the next two fail
JUDGE = """\
import json
from pathlib import Path


def grade(inp):
    with open(Path(__file__).with_name("calls.txt"), "a") as f:
        f.write(f"{inp.config.seed}\\n")
    label = "pass" if inp.config.seed == 0 else "fail"
    return json.dumps({"reasoning": f"sample {inp.config.seed}", "verdict": label})
"""

SUITE = """\
name: sampled
defaults: {judge: "python:judge.py:grade?thread=0", judge_samples: 1}
tools:
  - name: lookup
    description: find the order
    parameters: {type: object, properties: {}}
scorers:
  - scorer: rubric
    judge_samples: 1
    args: {name: polite, criteria: The reply is polite., scale: pass_fail}
cases:
  - {id: a, input: Where is my order?}
  - {id: b, input: And the other one?}
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    (tmp_path / "judge.py").write_text(JUDGE, encoding="utf-8")
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    rows = [{"case_id": c, "text": "Thanks for asking, here it is."} for c in ("a", "b")]
    (tmp_path / "responses.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def _calls(tmp_path: Path) -> list[str]:
    calls = tmp_path / "calls.txt"
    out = calls.read_text().split() if calls.exists() else []
    calls.unlink(missing_ok=True)
    return out


def _score(tmp_path: Path, suite: Path, out: str, *flags: str) -> None:
    result = CliRunner().invoke(
        cli,
        ["score", str(suite), "-r", str(tmp_path / "responses.jsonl"), "-o", str(tmp_path / out),
         "--allow-suite-code", *flags],
    )  # fmt: skip
    assert result.exit_code == 0, result.output


def _polite(run_dir: Path) -> list[tuple[bool | None, float | None, bool]]:
    return [
        (s.passed, s.agreement, s.uncertain)
        for r in iter_results(run_dir)
        for s in r.scores
        if s.name == "judge.polite"
    ]


def test_score_judge_samples_changes_the_calls_and_the_verdict(
    tmp_path: Path, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _score(tmp_path, suite, "one")
    assert _calls(tmp_path) == ["0", "0"]  # the suite's one sample per case
    assert _polite(tmp_path / "one") == [(True, None, False)] * 2
    assert "judge_samples" not in read_record(tmp_path / "one").options
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "fresh-cache"))
    _score(tmp_path, suite, "three", "--judge-samples", "3")
    assert sorted(_calls(tmp_path)) == ["0", "0", "1", "1", "2", "2"]
    # pass, fail, fail: the majority fails, with 2 of 3 agreeing
    assert _polite(tmp_path / "three") == [(False, pytest.approx(2 / 3), False)] * 2
    assert read_record(tmp_path / "three").options["judge_samples"] == 3
    [row] = [r for r in read_history() if r.run_dir == str((tmp_path / "three").resolve())]
    assert row.judge_samples == 3


def test_run_judge_samples_is_recorded_and_kept_on_resume(tmp_path: Path, suite: Path) -> None:
    flags = ["--no-cache", "--no-progress", "--allow-suite-code", "--max-concurrency", "1"]
    run_dir = tmp_path / "r"
    result = CliRunner().invoke(
        cli,
        ["run", str(suite), "--agent", "mock:echo", "-o", str(run_dir), "--judge-samples", "2",
         *flags],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert len(_calls(tmp_path)) == 4  # 2 cases x 2 samples
    assert read_record(run_dir).options["judge_samples"] == 2
    resumed = RunConfig.from_record(read_record(run_dir), run_dir, judge="mock:judge")
    assert resumed.judge_samples == 2
    # pass, fail: a tie goes to the failing verdict, and is uncertain
    assert _polite(run_dir) == [(False, 0.5, True)] * 2
    again = CliRunner().invoke(
        cli, ["run", "--resume", str(run_dir), "--judge-samples", "3", *flags]
    )
    assert again.exit_code == 2
    assert "--judge-samples cannot be changed on resume" in again.output
    bad = CliRunner().invoke(cli, ["run", str(suite), "--judge-samples", "0"])
    assert bad.exit_code == 2
