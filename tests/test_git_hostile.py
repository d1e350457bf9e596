"""A hostile repository around a suite (it came with the suite): ``agentgauge._git`` reads its
``.git`` files with limits — a FIFO or device is never opened for a blocking read, a file or an
object past its size limit is given up on — so ``run`` records ``git_commit`` / ``git_dirty``
as unknown instead of hanging or running out of memory."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from agentgauge._git import MAX_OBJECT_BYTES, _Objects, _Unreadable, git_state
from git_helpers import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git program")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "suite.yaml").write_text("name: s\n", encoding="utf-8")
    (root / "notes.txt").write_text("hello\n", encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    return root


def _replace(path: Path, shape: str) -> None:
    path.unlink()
    if shape == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("shape", ["fifo", "dev-zero"])
def test_a_special_head_gives_no_commit_and_no_hang(repo: Path, shape: str) -> None:
    assert git_state(repo / "suite.yaml") is not None
    _replace(repo / ".git" / "HEAD", shape)
    assert git_state(repo / "suite.yaml") is None


@pytest.mark.timeout(60)
@pytest.mark.parametrize("shape", ["fifo", "dev-zero"])
def test_a_special_index_gives_unknown_dirty(repo: Path, shape: str) -> None:
    commit = git(repo, "rev-parse", "HEAD")
    _replace(repo / ".git" / "index", shape)
    state = git_state(repo)
    assert state is not None
    assert (state.commit, state.dirty) == (commit, None)


@pytest.mark.timeout(60)
def test_a_tracked_file_replaced_by_a_fifo_is_a_change_never_read(repo: Path) -> None:
    state = git_state(repo)
    assert state is not None
    assert state.dirty is False
    (repo / "notes.txt").unlink()
    os.mkfifo(repo / "notes.txt")
    state = git_state(repo)
    assert state is not None
    assert state.dirty is True


def test_a_loose_object_that_inflates_past_the_limit_is_given_up(tmp_path: Path) -> None:
    """A compressed bomb: a few hundred KB that inflate to more than the object limit."""
    oid = bytes(range(20))
    folder = tmp_path / "objects" / oid.hex()[:2]
    folder.mkdir(parents=True)
    packer = zlib.compressobj(1)
    chunk = b"\0" * (1 << 20)
    parts = [packer.compress(b"blob %d\0" % (MAX_OBJECT_BYTES * 2))]
    parts += [packer.compress(chunk) for _ in range(MAX_OBJECT_BYTES * 2 // len(chunk))]
    (folder / oid.hex()[2:]).write_bytes(b"".join([*parts, packer.flush()]))
    with pytest.raises(_Unreadable, match="larger than"):
        _Objects(tmp_path / "objects").read(oid)
    small = zlib.compress(b"blob 2\0hi")
    (folder / oid.hex()[2:]).write_bytes(small)
    assert _Objects(tmp_path / "objects").read(oid) == (3, b"hi")


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.timeout(120)
def test_run_in_a_repository_with_a_fifo_head_finishes(repo: Path) -> None:
    """Was a hang: ``agentgauge run`` of a suite whose .git/HEAD is a FIFO never started."""
    (repo / "suite.yaml").write_text(
        "name: s\ncases:\n  - {id: a, input: hi, expect: {behavior: no_tool}}\n", encoding="utf-8"
    )
    _replace(repo / ".git" / "HEAD", "fifo")
    args = ["run", "suite.yaml", "--agent", "mock:", "-o", "out", "--no-progress", "--no-history"]
    done = subprocess.run(
        [sys.executable, "-m", "agentgauge", *args, "--no-cache"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=100,
        preexec_fn=_limited,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert '"git_commit": null' in (repo / "out" / "run.json").read_text()
