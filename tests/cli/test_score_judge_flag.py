"""``agentgauge score --judge SPEC``: the judge of the suite's judge scorers, as ``run --judge``
(over the suite's defaults.judge, recorded in run.json) (issue 22, item 12)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.runner import read_record

JUDGE = """\
import json


def grade(inp):
    return json.dumps({"reasoning": "as configured", "verdict": "VERDICT"})
"""

SUITE = """\
name: judged
scorers:
  - scorer: rubric
    args: {name: polite, criteria: The reply is polite., scale: pass_fail}
cases:
  - {id: a, input: Where is my order?}
  - {id: b, input: And the other one?}
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for verdict in ("pass", "fail"):
        text = JUDGE.replace("VERDICT", verdict)
        (tmp_path / f"{verdict}_judge.py").write_text(text, encoding="utf-8")
    (tmp_path / "suite.yaml").write_text(SUITE, encoding="utf-8")
    rows = [{"case_id": c, "text": "Thanks for asking, here it is."} for c in ("a", "b")]
    (tmp_path / "responses.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    return tmp_path


def score(
    folder: Path, out: str, *flags: str, env: dict[str, str] | None = None
) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli,
        ["score", str(folder / "suite.yaml"), "-r", str(folder / "responses.jsonl"),
         "-o", str(folder / out), "--no-history", *flags],
        env=env,
    )  # fmt: skip
    return result.exit_code, result.output


def polite(run_dir: Path) -> list[bool | None]:
    return [s.passed for r in iter_results(run_dir) for s in r.scores if "polite" in s.name]


def test_score_takes_the_judge_from_the_command_line(folder: Path) -> None:
    """Regression: score had no --judge (only the suite's defaults.judge)."""
    spec = f"python:{folder / 'pass_judge.py'}:grade?thread=0"
    code, output = score(folder, "passing", "--judge", spec)
    assert code == 0, output
    assert polite(folder / "passing") == [True, True]
    assert read_record(folder / "passing").judge == spec
    failing = f"python:{folder / 'fail_judge.py'}:grade?thread=0"
    code, output = score(folder, "failing", "--judge", failing)
    assert code == 0, output
    assert polite(folder / "failing") == [False, False]
    assert read_record(folder / "failing").judge == failing


def test_the_flag_wins_over_the_suites_judge_and_reads_the_environment(folder: Path) -> None:
    suite = folder / "suite.yaml"
    # the suite's own judge is suite code (needs the opt-in); the caller's is not
    suite.write_text(
        SUITE.replace(
            "name: judged\n", "name: judged\ndefaults: {judge: 'python:pass_judge.py:grade'}\n"
        )
    )
    code, output = score(folder, "suite", "--allow-suite-code")
    assert code == 0, output
    assert polite(folder / "suite") == [True, True]
    failing = f"python:{folder / 'fail_judge.py'}:grade?thread=0"
    code, output = score(folder, "flag", "--judge", failing)
    assert code == 0, output
    assert polite(folder / "flag") == [False, False]
    code, output = score(folder, "env", env={"AGENTGAUGE_JUDGE": failing})
    assert code == 0, output
    assert polite(folder / "env") == [False, False]
    assert read_record(folder / "env").judge == failing


def test_without_any_judge_the_scorer_is_a_usage_error(folder: Path) -> None:
    code, output = score(folder, "none")
    assert code == 2
    assert "needs a judge: pass --judge SPEC or set defaults.judge" in output
