"""A case's world during a run: built fresh for the trial, a snapshot after each user turn, and
what grading reads (the snapshots and the state the reference actions reach)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .._suite_code import SuiteCodePolicy
from ..errors import UserError
from ..schema import Case, Message, ToolCall, WorldRecord
from ..worlds import (
    State,
    World,
    WorldBuilder,
    WorldError,
    WorldOutcome,
    reference_states,
    replay,
    wants_reference,
)
from ._tools import current_code_policy

__all__ = ["CaseWorldRun", "recorded_world", "start_world"]


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

    def outcome(
        self, case: Case, builder: WorldBuilder, policy: SuiteCodePolicy | None = None
    ) -> WorldOutcome:
        """The snapshots grading reads; the reference actions replayed on a fresh world when
        a turn compares its state with theirs."""
        if not wants_reference(case):
            return WorldOutcome(initial=self.initial, turns=self.turns)
        try:
            fresh = builder.build(case, policy or current_code_policy.get())
            states, problem, errors = reference_states(fresh, case)
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


def recorded_world(
    case: Case,
    builder: WorldBuilder,
    turns: Sequence[Sequence[Message]],
    policy: SuiteCodePolicy | None,
) -> tuple[CaseWorldRun | None, WorldOutcome | None, str | None]:
    """A recorded response's calls applied to a fresh world, turn by turn (what the agent's
    calls would leave in this world): the run, what grading reads, or why it failed."""
    try:
        world = builder.build(case, policy)
    except (WorldError, UserError) as exc:
        return None, None, f"{type(exc).__name__}: {exc}"
    run = CaseWorldRun(world=world, initial=world.snapshot())
    calls: list[list[ToolCall]] = [
        [c for m in turn if m.role == "assistant" for c in m.tool_calls] for turn in turns
    ]
    run.turns, _ = replay(world, calls)
    return run, run.outcome(case, builder, policy), None
