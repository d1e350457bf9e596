"""Progress of the long judge jobs, ``calibrate`` and ``compare --judge``, on stderr as ``run``
shows it; quiet when stderr is no terminal, with ``--quiet`` or ``--no-progress``
(issue 22, item 11)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.cli._options import progress_factory
from matrix_helpers import words_suite


def labels(tmp_path: Path) -> Path:
    rows = [
        {
            "task": "equivalence_answer",
            "inputs": {"question": "Capital of France?", "reference": "Paris",
                       "agent_output": answer},
            "label": label,
        }
        for answer, label in (
            ("Paris.", "equivalent"), ("Lyon.", "different"), ("Paris", "equivalent")
        )
    ]  # fmt: skip
    path = tmp_path / "labels.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def calibrate(path: Path, *flags: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        cli, ["calibrate", "--labels", str(path), "--judge", "mock:judge", "--no-cache", *flags]
    )
    return result.exit_code, result.stdout, result.stderr


def test_calibrate_shows_progress_on_stderr_when_asked(tmp_path: Path) -> None:
    """Regression: a 60 s calibration printed nothing until the end."""
    code, out, err = calibrate(labels(tmp_path), "--progress")
    assert code == 0, out + err
    assert "agentgauge: 3/3 examples, 0 errors" in err
    assert "agentgauge:" not in out  # the report itself is untouched
    assert "equivalence_answer: n=3" in out


@pytest.mark.parametrize("flags", [(), ("--quiet",), ("--progress", "-q"), ("--no-progress",)])
def test_calibrate_is_quiet_off_a_terminal_and_when_told(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    code, out, err = calibrate(labels(tmp_path), *flags)
    assert code == 0, out + err
    assert "agentgauge:" not in err
    code, out, _ = calibrate(labels(tmp_path), *flags, "--json")
    json.loads(out)  # no progress mixed into the JSON


def test_compare_judge_shows_progress(tmp_path: Path) -> None:
    suite = words_suite(tmp_path, words=4)
    for agent, out in (("mock:echo", "base"), ("mock:", "new")):
        args = ["run", str(suite), "--agent", agent, "-o", str(tmp_path / out), "--no-history"]
        assert CliRunner().invoke(cli, [*args, "--no-progress"]).exit_code == 0
    args = ["compare", str(tmp_path / "base"), str(tmp_path / "new"), "--judge", "mock:judge"]
    result = CliRunner().invoke(cli, [*args, "--no-judge-cache", "--progress"])
    assert result.exit_code == 0, result.output
    assert "agentgauge: 5/5 cases, 0 errors" in result.stderr
    assert "pairwise judge mock:judge:" in result.stdout
    quiet = CliRunner().invoke(cli, [*args, "--no-judge-cache"])
    assert quiet.exit_code == 0, quiet.output
    assert "agentgauge:" not in quiet.stderr


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_is_on_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stderr", Terminal())
    assert progress_factory(None, False, label="judging", unit="cases") is not None
    assert progress_factory(None, True, label="judging", unit="cases") is None
    assert progress_factory(False, False, label="judging", unit="cases") is None
    plain = io.StringIO()
    monkeypatch.setattr("sys.stderr", plain)
    assert progress_factory(None, False, label="judging", unit="cases") is None
    shown = progress_factory(True, False, label="judging", unit="cases")
    assert shown is not None
    bar = shown(2)
    bar.advance("ok")
    bar.advance("error")
    bar.close()
    assert plain.getvalue().startswith("agentgauge: 2/2 cases, 1 errors, ")
