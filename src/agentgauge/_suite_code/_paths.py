"""Paths a run directory names, and the files agentgauge writes in one: confined to it.

A run directory is input like a suite (a CI artifact, a colleague's folder). Two rules keep what
it holds from making agentgauge write elsewhere:

- a path *read from* one of its files (a matrix member's ``run_dir`` in matrix.json) must be a
  plain relative name that stays inside the folder (no ``..``, no absolute path, no symlink
  pointing out): :func:`confined_child`;
- a file agentgauge writes *in* it (results.jsonl, run.json, the lock, summary.json, matrix.json
  ...) must be a regular file or not exist yet: a symlink planted in its place (pointing at
  ``~/.bashrc``), a FIFO (which would hang the run) or a device is refused, and the file is
  opened without following a symlink (:func:`open_regular`), so a link swapped in after the
  check is refused too.
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
from pathlib import Path
from typing import IO, Literal

from ..errors import PathRefused

__all__ = ["PathRefused", "confined_child", "field_where", "open_regular", "writable_file"]


def confined_child(root: Path, rel: str, what: str) -> Path:
    """``root / rel`` when ``rel`` is a relative path that stays inside ``root`` (also once
    symlinks are resolved); else :class:`PathRefused` naming ``what`` (``matrix.json:
    members[2].run_dir``)."""
    if not rel or rel != rel.strip() or "\x00" in rel or "\\" in rel:
        raise PathRefused(f"{what}: refused: {rel!r} is not a folder name")
    path = Path(rel)
    if path.is_absolute() or rel.startswith("~"):
        raise PathRefused(f"{what}: refused: {rel!r} is an absolute path; it must name a folder "
                          f"inside {root}")  # fmt: skip
    if ".." in path.parts:
        raise PathRefused(f"{what}: refused: {rel!r} leaves {root} ('..')")
    full = root / path
    here = root.resolve()
    if not full.resolve().is_relative_to(here):
        raise PathRefused(
            f"{what}: refused: {rel!r} resolves to {full.resolve()}, outside {here} (a symlink "
            "out of it)"
        )
    return full


def writable_file(path: Path) -> Path:
    """``path`` when agentgauge may write it: absent, or a regular file (not a symlink, a
    FIFO, a device or a folder); else :class:`PathRefused`."""
    try:
        st = path.lstat()
    except FileNotFoundError:
        return path
    except OSError as exc:
        raise PathRefused(f"{path}: cannot check this file ({exc.strerror})") from None
    if not stat.S_ISREG(st.st_mode):
        raise PathRefused(f"{path}: refused: {_kind(st.st_mode)}, not a regular file; "
                          "agentgauge writes only regular files in a run directory")  # fmt: skip
    return path


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symlink"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def open_regular(path: Path, mode: Literal["wb", "ab", "xb"]) -> IO[bytes]:
    """Open ``path`` for writing (``wb`` truncate, ``ab`` append, ``xb`` create a new file)
    without following a symlink and without blocking on a FIFO; anything but a regular file is
    :class:`PathRefused`."""
    writable_file(path)
    flags = os.O_WRONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    flags |= {"wb": 0, "ab": os.O_APPEND, "xb": os.O_EXCL}[mode]
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno in _REFUSED_ERRNOS:
            raise PathRefused(f"{path}: refused: not a regular file ({exc.strerror})") from None
        raise
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise PathRefused(f"{path}: refused: {_kind(st.st_mode)}, not a regular file")
        if mode == "wb":
            os.ftruncate(fd, 0)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "ab" if mode == "ab" else "wb")
    except BaseException:
        os.close(fd)
        raise


#: errors of opening a symlink with O_NOFOLLOW (ELOOP, EMLINK on some systems) or a FIFO that
#: nobody reads with O_NONBLOCK (ENXIO)
_REFUSED_ERRNOS = frozenset({errno.ELOOP, errno.EMLINK, errno.ENXIO})


def field_where(path: Path, field: str) -> str:
    """``path:line: field`` for a field of a small JSON file agentgauge wrote (run.json,
    matrix.json): the line of the field's last key, looked for after its parents' (an index
    ``members[2]`` skips to the third ``"run_dir":`` after ``"members":``); ``path: field`` when
    it is not found."""
    tokens = field.replace("]", "").replace("[", ".").split(".")
    from ..errors import UserError
    from ..files import read_bytes

    try:  # read with the input limits (a FIFO or a huge file put in its place is not read)
        lines = read_bytes(path, str(path)).decode("utf-8", "replace").splitlines()
    except (OSError, UserError):
        return f"{path}: {field}"
    at, skip = 0, 0
    for token in tokens:
        if token.isdigit():
            skip = int(token)
            continue
        needle = f'"{token}":'
        hits = (i for i in range(at, len(lines)) if needle in lines[i])
        found = next(itertools.islice(hits, skip, None), -1)
        if found < 0:
            return f"{path}: {field}"
        at, skip = found, 0
    return f"{path}:{at + 1}: {field}"
