"""The paths a loaded suite names, what agentgauge does with each (reads it, or writes there) and
the verdict of the suite policy — what ``validate`` lists. Nothing is opened or created.

A suite names the folders a run writes (``OUT/<label>/`` of each matrix member: a label may
hold only letters, digits, ``.``, ``_`` and ``-``, so it is one folder inside the run's output;
the default output ``runs/<suite name>-<time>`` has the name made safe) and files it reads
(``tool_files``, ``case_files``, a world's ``state_file``, a ``mock:`` script, a ``local:``
model file). A read file is
listed with where it is; one outside the suite's folder is said so (it is read, never written).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .._suite_code import Verdict, spec_refs
from ..schema import agent_label, valid_label

if TYPE_CHECKING:
    from ..suites import LoadedSuite

__all__ = ["PathUse", "suite_path_uses"]


@dataclass(frozen=True, kw_only=True, slots=True)
class PathUse:
    """One path the suite names: where, what is done with it, and the verdict."""

    file: str
    line: int | None
    field: str
    action: Literal["writes", "reads"]
    #: the path as agentgauge would use it (``OUT/far/`` for a member's run folder)
    path: str
    verdict: Verdict
    #: what to know about it (``outside the suite's folder``), or the refusal
    note: str | None = None

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file


def _read(root: Path, name: str, base: Path) -> tuple[str, str | None]:
    """The file ``name`` (relative to ``base``) and a note when it is outside ``root``."""
    path = Path(name).expanduser()
    full = (path if path.is_absolute() else base / path).resolve()
    inside = full.is_relative_to(root)
    return str(full), None if inside else "outside the suite's folder (read only)"


def suite_path_uses(loaded: LoadedSuite, root: Path) -> Iterator[PathUse]:
    """Every path ``loaded`` names (``root``: the suite's folder, resolved). Files of
    ``tool_files`` / ``case_files`` are relative to the suite's folder, a ``mock:`` or
    ``local:`` file to the current folder (as the provider opens it)."""
    from .._messages import format_path

    suite, origin = loaded.suite, loaded.origin

    def use(
        sub: tuple[str | int, ...],
        action: Literal["writes", "reads"],
        path: str,
        verdict: Verdict = "allowed",
        note: str | None = None,
    ) -> PathUse:
        at = (*origin.path, *sub)
        return PathUse(
            file=origin.file,
            line=origin.locator.line(at),
            field=format_path(at),
            action=action,
            path=path,
            verdict=verdict,
            note=note,
        )

    for i, entry in enumerate(suite.matrix.entries() if suite.matrix else ()):
        label = entry.label or agent_label(entry.agent)
        ok = valid_label(label)
        note = None if ok else f"'{label}' is not a folder name"
        yield use(
            ("matrix", "agents", i), "writes", f"OUT/{label}/", "allowed" if ok else "refused", note
        )
    if suite.world is not None and suite.world.state_file:
        full, note = _read(root, suite.world.state_file, root)
        yield use(("world", "state_file"), "reads", full, "allowed", note)
    # the loaded suite holds the cases and tools of its files: their origins name the files
    for key, origins in (("tool_files", loaded.tool_origins), ("case_files", loaded.case_origins)):
        files = dict.fromkeys(o.file for o in origins if o.file != loaded.file)
        for i, name in enumerate(files):
            full, note = _read(root, name, Path.cwd())
            yield use((key, i), "reads", full, "allowed", note)
    for ref in spec_refs(suite):
        prefix, _, rest = ref.spec.partition(":")
        target = rest.partition("?")[0]
        if (prefix == "mock" and target not in ("", "echo")) or (
            prefix == "local" and target not in ("", "smollm2")
        ):
            full, note = _read(root, target, Path.cwd())
            yield use(ref.field, "reads", full, "allowed", note)
