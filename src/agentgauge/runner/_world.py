"""A case's world during a run: built fresh for the trial, a snapshot after each user turn, and
what grading reads (the snapshots and the state the reference actions reach)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import UserError
from ..schema import Case, WorldRecord
from ..worlds import (
    State,
    World,
    WorldBuilder,
    WorldError,
    WorldOutcome,
    reference_states,
    wants_reference,
)
from ._tools import current_code_policy

__all__ = ["CaseWorldRun", "start_world"]


@dataclass
class CaseWorldRun:
    """The world of one case and trial, and its snapshots so far."""

    world: World
    initial: State
    turns: list[State] = field(default_factory=list)

    def end_turn(self) -> None:
        """Record the state at the end of a user turn."""
        self.turns.append(self.world.snapshot())

    def record(self) -> WorldRecord:
        """What the result keeps: the state now (the final one once the case is over)."""
        return WorldRecord(final=self.turns[-1] if self.turns else self.world.snapshot())

    def outcome(self, case: Case, builder: WorldBuilder) -> WorldOutcome:
        """The snapshots grading reads; the reference actions replayed on a fresh world when
        a turn compares its state with theirs."""
        if not wants_reference(case):
            return WorldOutcome(initial=self.initial, turns=self.turns)
        try:
            states, problem, errors = reference_states(
                builder.build(case, current_code_policy.get()), case
            )
        except (WorldError, UserError) as exc:
            states, problem, errors = None, f"the reference world failed: {exc}", []
        return WorldOutcome(
            initial=self.initial,
            turns=self.turns,
            reference=states,
            reference_problem=problem,
            reference_errors=errors,
        )


def start_world(
    case: Case, builder: WorldBuilder | None
) -> tuple[CaseWorldRun | None, Exception | None]:
    """A fresh world for one trial of ``case`` (None without a suite world), or the error that
    makes the case an error (its state unusable, its class failing)."""
    if builder is None:
        return None, None
    try:
        world = builder.build(case, current_code_policy.get())
    except (WorldError, UserError) as exc:
        return None, exc
    return CaseWorldRun(world=world, initial=world.snapshot()), None
