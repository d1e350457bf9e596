"""Copying a suite's code files beside a suite written from it (``generate``, ``redteam``).

A suite someone else wrote names its fakes and its Python world; a command that writes a new
suite from it copies those files next to the new one. Each file must pass the location rule of
suite code first (a ``.py`` file inside the suite's folder: no absolute path, no ``..``, no
symlink out of it), so the copy never reads outside the source folder nor writes outside the
destination one. Nothing is imported."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import UserError
from ._code import FileKind, SuiteCodePolicy

if TYPE_CHECKING:
    from ..schema import Suite

__all__ = ["copy_suite_code", "suite_code_files"]


def _file_refs(suite: Suite) -> list[tuple[str, FileKind]]:
    """``(ref, kind)`` of every code file the suite names: tool fakes (the tools' and the cases'
    own ``tool_results``) and the Python world class."""
    refs: list[tuple[str, FileKind]] = [
        (t.simulation.function, "tool function")
        for t in suite.tools
        if t.simulation is not None and t.simulation.function
    ]
    for case in suite.cases:
        for given in case.tool_results.values():
            sims = given if isinstance(given, list) else [given]
            refs += [(s.function, "tool function") for s in sims if s.function]
    if suite.world is not None and suite.world.class_ is not None:
        refs.append((suite.world.class_, "world class"))
    return refs


def suite_code_files(suite: Suite, root: Path | None = None) -> list[str]:
    """The code files ``suite`` names, relative to its folder, sorted. With ``root`` (the
    suite's folder) each must pass the location rule (SuiteCodeRefused otherwise); without it
    the names are only spelled out (for a header that lists them)."""
    files = []
    policy = SuiteCodePolicy(root=root.resolve(), allowed=False) if root is not None else None
    for ref, kind in _file_refs(suite):
        if policy is not None:
            target = policy.locate_function(ref, kind)
            files.append(target.file.relative_to(policy.root).as_posix())
            continue
        name = ref.rpartition(":")[0]
        files.append(name if name.endswith(".py") else name.replace(".", "/") + ".py")
    return sorted(set(files))


def copy_suite_code(files: Sequence[str], source_dir: Path | None, dest_dir: Path) -> list[Path]:
    """Copy ``files`` (relative, as :func:`suite_code_files` gives them) from ``source_dir`` to
    ``dest_dir``; a file that would be read or written outside its folder is refused."""
    copied: list[Path] = []
    if source_dir is None:
        return copied
    top, out = source_dir.resolve(), dest_dir.resolve()
    for rel in files:
        src, dst = (top / rel).resolve(), (out / rel).resolve()
        if not (src.is_relative_to(top) and dst.is_relative_to(out)):
            raise UserError(f"{rel}: suite code must be a file inside the suite's folder")
        if src.is_file() and src != dst:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            copied.append(dest_dir / rel)
    return copied
