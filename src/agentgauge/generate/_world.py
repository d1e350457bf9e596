"""A suite's world in generated cases: which values its records make real (an ``order_id``
that exists, a customer's own e-mail), the state a case's reference calls reach, and the state
checks that follow from it.

The reference calls of a generated case are applied to a fresh world from the suite's start
(declarative worlds need no code; a Python world's class runs only with the user's
``--allow-suite-code``). A call the world refuses is not a goal: the case is not built. What the
calls wrote becomes ``expect.state``: a check per written value and ``same_as_reference``, so a
write to anything else fails too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .._suite_code import SuiteCodePolicy
from ..errors import UserError
from ..schema import Case, JsonValue, StateWrite, Suite, ToolCall, WorldSpec
from ..worlds import WorldBuilder, WorldError, state_writes

__all__ = ["Outcome", "WorldContext", "state_expect", "world_keys"]

#: state checks written per case at most (``same_as_reference`` covers the rest)
_MAX_CHECKS: Final = 6


def _records(coll: Any) -> list[tuple[str, dict[str, Any]]]:
    if isinstance(coll, dict):
        return [(str(k), v) for k, v in coll.items() if isinstance(v, dict)]
    if isinstance(coll, list):
        return [(str(r.get("id", i)), r) for i, r in enumerate(coll) if isinstance(r, dict)]
    return []


def _collection_for(param: str, state: Mapping[str, Any]) -> str | None:
    """The collection an ``X_id`` parameter points into: ``orders`` for ``order_id``."""
    m = re.fullmatch(r"(.+?)_?(?:id|ids|key)", param, re.IGNORECASE)
    if m is None:
        return None
    stem = m.group(1).lower()
    for name in (stem + "s", stem, stem + "es", stem.removesuffix("y") + "ies"):
        if name in state:
            return name
    return None


def world_keys(suite: Suite) -> dict[tuple[str, str], list[str]]:
    """(tool, parameter) -> values that name real records of the world's starting state."""
    world = suite.world
    if world is None:
        return {}
    state = world.state
    out: dict[tuple[str, str], list[str]] = {}
    for tool in suite.tools:
        op = world.operations.get(tool.name)
        if op is not None and op.op != "insert":
            key = op.key or world.key_field(op.collection)
            recs = _records(state.get(op.collection))
            out[(tool.name, key)] = [
                k for k, r in recs if all(r.get(f) == v for f, v in op.require.items())
            ]
        own_key = (op.key or world.key_field(op.collection)) if op is not None else None
        for param in tool.properties():
            if (tool.name, param) in out or param == own_key:
                continue  # an insert's own key must be new
            coll = _collection_for(param, state)
            if coll is not None:
                out[(tool.name, param)] = [k for k, _ in _records(state[coll])]
                continue
            if op is not None and op.op in ("insert", "update"):
                continue  # a value written is the user's, not one the state already holds
            found = _field_values(param, state)
            if found:
                out[(tool.name, param)] = found
    return {k: v for k, v in out.items() if v}


def _field_values(param: str, state: Mapping[str, Any]) -> list[str]:
    """String values of a record field named ``param`` (a customer's ``email``)."""
    for coll in state.values():
        values = [r[param] for _, r in _records(coll) if isinstance(r.get(param), str)]
        if values:
            return list(dict.fromkeys(values))
    return []


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What a case's reference calls did to a fresh world: the writes, or the world's refusal."""

    writes: tuple[StateWrite, ...] = ()
    refused: str | None = None


class WorldContext:
    """The suite's world for generation: which tools it answers, and the outcome of calls."""

    def __init__(self, spec: WorldSpec, policy: SuiteCodePolicy | None) -> None:
        self.spec = spec
        self._builder = WorldBuilder(spec, policy)
        self.problem: str | None = None
        try:
            self._builder.load(policy)
            probe = self._builder.build(_PROBE)
            self.tools = probe.tool_names
        except (UserError, WorldError) as exc:
            self.problem = str(exc).splitlines()[0]
            self.tools = frozenset()

    @property
    def usable(self) -> bool:
        return self.problem is None

    def writes(self, tool: str) -> bool | None:
        """Whether a declarative operation of ``tool`` writes (None: a Python world, unknown)."""
        if not self.spec.declarative:
            return None
        op = self.spec.operations.get(tool)
        return op is not None and op.op in ("insert", "update", "delete")

    def outcome(self, calls: Sequence[ToolCall]) -> Outcome:
        """Apply ``calls`` to a fresh world: what they wrote, or why one was refused."""
        world = self._builder.build(_PROBE)
        before = world.snapshot()
        for call in calls:
            if call.name not in world.tool_names:
                continue
            try:
                reply = world.apply(call)
            except WorldError as exc:
                return Outcome(refused=f"{call.name}: {exc}")
            if reply.error is not None:
                return Outcome(refused=f"{call.name}: {reply.error}")
        return Outcome(writes=tuple(state_writes(before, world.snapshot())))


_PROBE: Final = Case(id="generate-probe", input="-")


def state_expect(writes: Sequence[StateWrite]) -> dict[str, JsonValue] | None:
    """``expect.state`` for these writes: a check per written value (the first few) and the
    whole state as the reference calls leave it. None: nothing was written."""
    if not writes:
        return None
    checks: list[JsonValue] = []
    for w in writes[:_MAX_CHECKS]:
        if w.op == "delete":
            checks.append({"path": w.path, "absent": True})
        else:
            checks.append({"path": w.path, "equals": w.after})
    return {"checks": checks, "same_as_reference": True}
