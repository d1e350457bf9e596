"""The git commit and dirty flag read from ``.git`` without a git process (``agentgauge._git``),
checked against git itself in temporary repositories, and recorded in ``run.json``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge._git import git_state
from agentgauge.cli import cli
from git_helpers import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")

SUITE = """\
name: tiny
tools:
  - name: get_weather
    description: Weather of a city.
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
cases:
  - id: c1
    input: Weather in Paris?
    expect:
      tool_calls:
        - name: get_weather
          arguments: {city: Paris}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "suites").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "suites" / "suite.yaml").write_text(SUITE, encoding="utf-8")
    (root / "README").write_text("hello\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD")


def test_a_clean_checkout_gives_its_commit_and_not_dirty(repo: Path) -> None:
    state = git_state(repo / "suites" / "suite.yaml")
    assert state is not None
    assert (state.commit, state.dirty, state.root) == (head(repo), False, repo.resolve())


def test_changed_deleted_staged_files_are_dirty_untracked_ones_are_not(repo: Path) -> None:
    suites = repo / "suites"
    (suites / "notes.txt").write_text("untracked\n", encoding="utf-8")
    assert git_state(suites).dirty is False  # type: ignore[union-attr]
    readme = repo / "README"
    readme.write_text("hello, changed\n", encoding="utf-8")
    assert git_state(suites).dirty is True  # type: ignore[union-attr]
    git(repo, "add", "README")  # staged: the working tree matches the index, not the commit
    assert git_state(suites).dirty is True  # type: ignore[union-attr]
    git(repo, "commit", "-qm", "second")
    state = git_state(suites)
    assert state is not None
    assert (state.commit, state.dirty) == (head(repo), False)
    readme.unlink()
    assert git_state(suites).dirty is True  # type: ignore[union-attr]
    git(repo, "checkout", "--", "README")
    git(repo, "reset", "-q", "--soft", "HEAD~1")  # the index now differs from the commit
    assert git_state(suites).dirty is True  # type: ignore[union-attr]


def test_same_size_edit_with_the_same_mtime_is_still_seen(repo: Path) -> None:
    """An edit that keeps size and mtime (racy: written in the same instant as the index) is
    caught by hashing the contents."""
    readme = repo / "README"
    st = readme.stat()
    readme.write_text("HELLO\n", encoding="utf-8")
    import os

    os.utime(readme, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert git_state(repo).dirty is True  # type: ignore[union-attr]


def test_packed_refs_packed_objects_detached_head_and_worktrees(repo: Path, tmp_path: Path) -> None:
    for i in range(20):  # many versions of one file: the pack stores deltas
        (repo / "README").write_text("line\n" * (i + 1), encoding="utf-8")
        git(repo, "commit", "-qam", f"c{i}")
    git(repo, "gc", "-q", "--aggressive")
    assert not list((repo / ".git" / "refs" / "heads").iterdir())  # only packed-refs now
    assert git_state(repo) == git_state(repo)
    state = git_state(repo)
    assert state is not None
    assert (state.commit, state.dirty) == (head(repo), False)
    git(repo, "checkout", "-q", "HEAD~3")
    assert git_state(repo).commit == head(repo)  # type: ignore[union-attr]
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", str(other), "main")
    state = git_state(other / "suites")
    assert state is not None
    assert (state.root, state.commit, state.dirty) == (other.resolve(), head(other), False)
    (other / "README").write_text("edited in the worktree\n", encoding="utf-8")
    assert git_state(other).dirty is True  # type: ignore[union-attr]
    assert git_state(repo).dirty is False  # type: ignore[union-attr]


def test_no_repository_and_no_commit_give_none(tmp_path: Path) -> None:
    assert git_state(tmp_path) is None
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "f").write_text("x", encoding="utf-8")
    assert git_state(tmp_path) is None  # a branch without a commit yet


def test_an_unreadable_index_leaves_dirty_unknown_not_clean(repo: Path) -> None:
    (repo / ".git" / "index").write_bytes(b"DIRC\0\0\0\x09garbage")
    state = git_state(repo)
    assert state is not None
    assert (state.commit, state.dirty) == (head(repo), None)


def test_run_records_the_suite_repository_commit_and_dirty_flag(repo: Path, tmp_path: Path) -> None:
    """Regression: run.json's git_commit was always null."""
    suite = repo / "suites" / "suite.yaml"
    out = tmp_path / "run"
    args = ["run", str(suite), "--agent", "mock:echo", "-o", str(out), "--no-progress"]
    history = tmp_path / "h.sqlite"
    result = CliRunner().invoke(cli, [*args, "--history", str(history)])
    assert result.exit_code in (0, 1), result.output
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert (record["git_commit"], record["git_dirty"]) == (head(repo), False)
    code = CliRunner().invoke(
        cli, ["history", "--history", str(history), "--metric", "pass_rate", "--json"]
    )
    [group] = json.loads(code.output)["groups"]
    assert group["runs"][0]["git_commit"] == head(repo)
    assert group["runs"][0]["git_dirty"] is False
    md = CliRunner().invoke(cli, ["report", str(out), "--format", "markdown"])
    assert f"commit `{head(repo)[:12]}`" in md.output
    (repo / "README").write_text("changed\n", encoding="utf-8")
    out2 = tmp_path / "run2"
    CliRunner().invoke(cli, [*args[:-3], "-o", str(out2), "--no-progress", "--no-history"])
    record = json.loads((out2 / "run.json").read_text(encoding="utf-8"))
    assert (record["git_commit"], record["git_dirty"]) == (head(repo), True)
    md = CliRunner().invoke(cli, ["report", str(out2), "--format", "markdown"])
    assert "(uncommitted changes)" in md.output


def test_score_records_the_commit_too(repo: Path, tmp_path: Path) -> None:
    responses = tmp_path / "responses.jsonl"
    responses.write_text(
        json.dumps(
            {"case_id": "c1", "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
        )
        + "\n",
        encoding="utf-8",
    )
    out = tmp_path / "scored"
    result = CliRunner().invoke(
        cli,
        ["score", str(repo / "suites" / "suite.yaml"), "--responses", str(responses),
         "-o", str(out), "--no-history"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads((out / "run.json").read_text(encoding="utf-8"))
    assert (record["git_commit"], record["git_dirty"]) == (head(repo), False)
