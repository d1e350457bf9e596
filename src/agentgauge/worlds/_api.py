"""The World protocol: what a case's tools act on, and what grading reads.

A world is built fresh for each case and trial (:class:`WorldFactory`), answers the tool calls
it knows (:meth:`World.apply`: a result for the agent, or an error, and the writes the call made)
and shows its state as plain JSON (:meth:`World.snapshot`). Grading reads snapshots only
(:class:`WorldOutcome`), so nothing graded can change what it grades.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ..errors import WorldError
from ..schema import JsonValue, StateWrite, ToolCall

__all__ = ["State", "World", "WorldError", "WorldOutcome", "WorldReply"]

#: a snapshot of a world: plain JSON (collection name -> {key: record} for a declarative one)
State = dict[str, JsonValue]


@dataclass(frozen=True, kw_only=True, slots=True)
class WorldReply:
    """The answer to one call: the result the agent sees, or ``error`` (the agent sees
    ``{"error": error}``), and what the call changed."""

    result: JsonValue = None
    error: str | None = None
    writes: tuple[StateWrite, ...] = ()


@runtime_checkable
class World(Protocol):
    """A stateful back-end a case's tools act on."""

    @property
    def tool_names(self) -> frozenset[str]:
        """The tools this world answers."""
        ...

    def apply(self, call: ToolCall) -> WorldReply:
        """Answer ``call`` (a tool of :attr:`tool_names`), changing the state as it says."""
        ...

    def snapshot(self) -> State:
        """The current state as plain JSON (a copy: changing it changes nothing)."""
        ...


class WorldFactory(Protocol):
    """Builds the world of one case: the initial state with the case's own state or patch."""

    def __call__(self, start: State) -> World: ...


@dataclass(frozen=True, kw_only=True)
class WorldOutcome:
    """What grading reads of a case's world: snapshots, never the world itself."""

    #: the state the case started from
    initial: State
    #: the state after each user turn that was played (the last one is the final state)
    turns: Sequence[State]
    #: the state the reference actions reach after each turn (None: not computed)
    reference: Sequence[State] | None = None
    #: why the reference could not be computed (a turn without concrete reference calls)
    reference_problem: str | None = None
    #: errors the reference actions got from the world (a reference that does not apply)
    reference_errors: Sequence[str] = field(default_factory=tuple)

    def after(self, turn: int) -> State | None:
        """The state after ``turn`` (None: the turn was not reached)."""
        return self.turns[turn] if turn < len(self.turns) else None
