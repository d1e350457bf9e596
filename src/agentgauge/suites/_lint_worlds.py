"""Lint checks of a suite's world and of the cases graded on it (docs/worlds.md).

A state expectation with no world to grade, an operation of a tool the suite does not have or of
a collection the state lacks, a check of a collection no case starts with, reference actions that
cannot be written down or that the world refuses from the case's start.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ..errors import UserError
from ..files import PathElem
from ..schema import Case, Expectation, Suite, WorldSpec, parse_path
from ..worlds import (
    TableWorld,
    WorldBuilder,
    WorldError,
    builtin_world,
    reference_calls,
    replay,
    wants_reference,
)

__all__ = ["WorldFinding", "world_findings"]


@dataclass(frozen=True)
class WorldFinding:
    severity: Literal["error", "warning"]
    code: str
    #: the field, inside the suite document (``case`` None) or inside the case
    path: tuple[PathElem, ...]
    message: str
    #: the index of the case the finding is about (None: the suite's ``world``)
    case: int | None = None


def _expectations(case: Case) -> Iterator[tuple[tuple[PathElem, ...], Expectation]]:
    if case.expect is not None:
        yield ("expect",), case.expect
    for i, t in enumerate(case.turns):
        if t.expect is not None:
            yield ("turns", i, "expect"), t.expect


def _operations(suite: Suite, world: WorldSpec) -> Iterator[WorldFinding]:
    tools = suite.tool_map()
    for name, op in world.operations.items():
        at: tuple[PathElem, ...] = ("world", "operations", name)
        tool = tools.get(name)
        if tool is None and suite.tools_from is None:
            yield WorldFinding("error", "world-unknown-tool", at,
                               f"no tool '{name}' in the suite's tools")  # fmt: skip
        if world.state_file is None and op.collection not in world.state:
            yield WorldFinding(
                "error", "world-unknown-collection", (*at, "collection"),
                f"no collection '{op.collection}' in world.state (give it, empty: {{}})",
            )  # fmt: skip
        if tool is not None and tool.simulation is not None:
            yield WorldFinding(
                "warning", "world-shadowed-simulation", at,
                f"the world answers '{name}': the tool's own simulation is never used",
            )  # fmt: skip
        args = [op.key or world.key_field(op.collection)] if op.op != "find" else []
        args += list(op.fields.values()) if op.fields else []
        props = tool.properties() if tool is not None else {}
        for arg in args if props else ():
            if arg not in props and not (op.op == "insert" and op.key is None):
                yield WorldFinding(
                    "warning", "world-unknown-argument", at,
                    f"'{arg}' is not a parameter of tool '{name}'",
                )  # fmt: skip


def _case(case: Case, index: int, suite: Suite) -> Iterator[WorldFinding]:
    world = suite.world
    graded = [(at, e) for at, e in _expectations(case) if e.state is not None]
    if world is None:
        for at, _ in graded:
            yield WorldFinding("error", "no-world", (*at, "state"),
                               "the suite has no world to check this state on", index)  # fmt: skip
        if case.world is not None:
            yield WorldFinding("error", "no-world", ("world",),
                               "the suite has no world for this state", index)  # fmt: skip
        return
    for name, entry in case.tool_results.items():
        sims = entry if isinstance(entry, list) else [entry]
        if any(s.world for s in sims) and world.declarative and name not in world.operations:
            yield WorldFinding("error", "world-unknown-tool", ("tool_results", name),
                               f"'world: true', but the world has no operation '{name}'",
                               index)  # fmt: skip
    tools = suite.tool_map()
    for at, e in graded:
        assert e.state is not None
        for k, ref in enumerate(e.state.reference or ()):
            if ref.name not in tools and suite.tools_from is None:
                yield WorldFinding("error", "world-unknown-tool",
                                   (*at, "state", "reference", k, "name"),
                                   f"no tool '{ref.name}' in the suite's tools", index)  # fmt: skip
    if not wants_reference(case):
        return
    try:
        calls = reference_calls(case)
    except WorldError as exc:  # no concrete reference values
        at = next(at for at, e in graded if e.state is not None and e.state.same_as_reference)
        yield WorldFinding("error", "no-reference", (*at, "state"), str(exc), index)
        return
    if not world.declarative or world.state_file is not None:
        return  # a Python world's reference runs in the run (suite code is not run by lint)
    try:
        ref_world = WorldBuilder(world).build(case)
        assert isinstance(ref_world, TableWorld)
        _, errors = replay(ref_world, calls)
    except WorldError as exc:
        yield WorldFinding("error", "bad-world-state", ("world",), str(exc), index)
        return
    for err in errors:
        yield WorldFinding("warning", "reference-fails", ("expect",),
                           f"the reference actions fail from the case's start: {err}",
                           index)  # fmt: skip


def _unknown_collections(case: Case, index: int, world: WorldSpec) -> Iterator[WorldFinding]:
    if not world.declarative or world.state_file is not None:
        return
    known = set(world.state)
    if case.world is not None:
        known |= set(case.world.state or {}) | set(case.world.patch)
    for at, e in _expectations(case):
        if e.state is None:
            continue
        paths: list[tuple[tuple[PathElem, ...], str]] = [
            (("checks", i, "path"), c.path) for i, c in enumerate(e.state.checks)
        ]
        paths += [(("unchanged", i), p) for i, p in enumerate(e.state.unchanged)]
        for sub, path in paths:
            head = parse_path(path)[0]
            if head not in known:
                yield WorldFinding(
                    "warning", "world-unknown-collection", (*at, "state", *sub),
                    f"'{head}' is not a collection of the world's state", index,
                )  # fmt: skip


def world_findings(suite: Suite) -> Iterator[WorldFinding]:
    """Every world problem of ``suite``, the suite's ``world`` first, then case by case."""
    if suite.world is not None and suite.world.builtin is not None:
        try:
            builtin_world(suite.world.builtin)
        except UserError as exc:
            yield WorldFinding("error", "world-unknown-builtin", ("world", "builtin"), str(exc))
    if suite.world is not None:
        yield from _operations(suite, suite.world)
    for i, case in enumerate(suite.cases):
        yield from _case(case, i, suite)
        if suite.world is not None:
            yield from _unknown_collections(case, i, suite.world)
