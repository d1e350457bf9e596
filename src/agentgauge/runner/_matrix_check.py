"""The members of a matrix checked before any of them runs: a member whose agent spec names no
provider, or a ``python:`` file that is not there, stops the whole matrix with one line per
member (exit 2) instead of running the others and leaving a run that no ``--resume`` can finish.

What can only be found by starting the agent (a missing API key, a server that does not answer,
an import error in the agent's module) is still recorded on that member as ``failed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from ..errors import UserError
from ..providers import spec_problem

__all__ = ["Member", "member_problem", "refuse_bad_members"]


class Member(Protocol):
    """What the check reads of a matrix member (``_matrix.MatrixMember``, which imports this
    module): its agent spec and where it was named (``command line`` or ``suite``)."""

    @property
    def agent(self) -> str: ...

    @property
    def source(self) -> str: ...


def member_problem(spec: str) -> str | None:
    """Why the agent ``spec`` cannot run, as far as can be told without starting it (None: no
    problem found). Nothing is imported or created."""
    problem = spec_problem(spec)
    if problem is not None:
        return problem
    prefix, _, rest = spec.partition(":")
    if prefix != "python":
        return None
    target = rest.partition("?")[0]
    where, sep, attr = target.rpartition(":")
    if not sep or not where or not attr:
        return (
            f"python:{target}: expected 'python:package.module:function' or "
            "'python:path/to/file.py:function'"
        )
    is_file = where.endswith(".py") or "/" in where or "\\" in where
    if is_file and not Path(where).expanduser().is_file():
        return f"python:{where}: no such file"
    return None


def refuse_bad_members(
    members: Sequence[Member], suite_path: Path, *, resume: Path | None = None
) -> None:
    """Raise a UserError naming every member whose agent cannot run (see the module docstring):
    ``--agent SPEC: ...`` for the command line's, ``file:line: matrix.agents[i].agent: ...``
    for the suite's. ``resume``: the matrix folder being continued."""
    bad = [(m, p) for m in members if (p := member_problem(m.agent)) is not None]
    if not bad:
        return
    if resume is not None:
        tail = f" ({resume} cannot finish this member: start a new run without it)"
    else:
        tail = " (no member was run)"
    lines = []
    suite_index = {id(m): i for i, m in enumerate(m for m in members if m.source == "suite")}
    for m, problem in bad:
        if m.source == "suite":
            where = _suite_field(suite_path, suite_index[id(m)])
        else:
            where = f"--agent {m.agent}"
        lines.append(f"{where}: {problem}{tail}")
    raise UserError(lines[0], problems=lines)


def _suite_field(suite_path: Path, index: int) -> str:
    """``file:line: matrix.agents[i].agent`` of the suite's ``index``-th matrix member."""
    from ..suites import read_suite

    field = f"matrix.agents[{index}]"
    try:
        loaded = read_suite(suite_path)
    except UserError:
        return f"{suite_path}: {field}"
    agents = loaded.suite.matrix.agents if loaded.suite.matrix is not None else []
    sub: tuple[str | int, ...] = ("matrix", "agents", index)
    if index < len(agents) and not isinstance(agents[index], str):
        sub += ("agent",)
        field += ".agent"
    return f"{loaded.origin.where(*sub)}: {field}"
