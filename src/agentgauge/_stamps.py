"""Stamps of files on disk, for cache keys that must change when code or a model file does."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

__all__ = ["file_stamps"]


def file_stamps(paths: Iterable[Path], root: Path) -> bytes:
    """``name:size:mtime;`` of each file, in name order, names relative to ``root``.

    Size and modification time (not contents) make it cheap enough for every run: an edit
    changes the mtime. A file that cannot be read is left out.
    """
    out = []
    for path in sorted(paths):
        try:
            st = path.stat()
        except OSError:
            continue
        name = path.relative_to(root).as_posix()
        out.append(f"{name}:{st.st_size}:{st.st_mtime_ns};")
    return "".join(out).encode()
