"""A matrix refuses members that can never run before any member runs (issue 22, item 8)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.runner import read_manifest
from matrix_helpers import words_suite


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_an_unknown_spec_among_good_ones_stops_the_matrix_before_any_run(tmp_path: Path) -> None:
    """Regression: the good member ran, the command exited 1 and suggested a --resume that
    failed the same way."""
    out = tmp_path / "out"
    history = tmp_path / "h.sqlite"
    code, output = invoke(
        "run", str(words_suite(tmp_path)), "--agent", "nosuch:x", "--agent", "mock:echo",
        "-o", str(out), "--history", str(history),
    )  # fmt: skip
    assert code == 2, output
    [line] = output.splitlines()
    assert line.startswith("--agent nosuch:x: unknown provider spec 'nosuch:x'")
    assert line.endswith("(no member was run)")
    assert "--resume" not in output
    assert not out.exists()  # no manifest, no member's run directory
    assert not history.exists()


def test_every_bad_member_is_named_one_line_each(tmp_path: Path) -> None:
    code, output = invoke(
        "run", str(words_suite(tmp_path)), "--agent", "mock:echo",
        "--agent", f"python:{tmp_path / 'gone.py'}:agent", "--agent", "python:no_colon",
        "-o", str(tmp_path / "out"),
    )  # fmt: skip
    assert code == 2, output
    lines = output.splitlines()
    assert lines == [
        f"--agent python:{tmp_path / 'gone.py'}:agent: python:{tmp_path / 'gone.py'}: "
        "no such file (no member was run)",
        "--agent python:no_colon: python:no_colon: expected 'python:package.module:function' "
        "or 'python:path/to/file.py:function' (no member was run)",
    ]


def test_a_bad_member_of_the_suites_matrix_is_named_by_file_and_line(tmp_path: Path) -> None:
    extra = "matrix:\n  agents:\n    - mock:echo\n    - {agent: 'nosuch:x', label: down}\n"
    suite = words_suite(tmp_path, words=1, extra=extra)
    out = tmp_path / "out"
    code, output = invoke("run", str(suite), "-o", str(out))
    assert code == 2, output
    [line] = output.splitlines()
    assert line.startswith(f"{suite}:5: matrix.agents[1].agent: unknown provider spec 'nosuch:x'")
    assert not out.exists()


def test_good_members_still_run_and_a_resume_refuses_a_member_that_can_never_finish(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    code, output = invoke(
        "run", str(words_suite(tmp_path)), "--agent", "mock:echo", "--agent", "quiet=mock:",
        "-o", str(out), "--no-history",
    )  # fmt: skip
    assert code == 0, output
    assert [m.state for m in read_manifest(out).members] == ["done", "done"]
    # a matrix folder written before this check, holding a member with an unknown spec
    manifest = json.loads((out / "matrix.json").read_text())
    manifest["members"].append(
        {**manifest["members"][0], "label": "down", "agent": "nosuch:x", "run_dir": "down",
         "state": "failed", "error": "unknown provider spec 'nosuch:x'"}
    )  # fmt: skip
    (out / "matrix.json").write_text(json.dumps(manifest))
    code, output = invoke("run", "--resume", str(out), "--no-history")
    assert code == 2, output
    [line] = output.splitlines()
    assert line.startswith("--agent nosuch:x: unknown provider spec 'nosuch:x'")
    assert line.endswith(f"({out} cannot finish this member: start a new run without it)")
