"""What every simulated user is: one async method that answers the agent's latest reply."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..schema import Message, TraceEvent, UserEnd, UserKind

__all__ = ["SimulatedUser", "UserTurn", "UserView"]


@dataclass(frozen=True, kw_only=True, slots=True)
class UserView:
    """What the user sees of the conversation: text only, never the agent's tool calls."""

    #: the agent's latest reply to the user ("" when it said nothing)
    agent_text: str
    #: the conversation so far as the user saw it: its own messages (``user``) and the agent's
    #: replies (``assistant``), the opening first
    history: Sequence[Message]
    #: the index of the user turn about to be played (1 = the first answer after the opening)
    turn: int


@dataclass(frozen=True, kw_only=True, slots=True)
class UserTurn:
    """The user's answer: what it says, whether it ends the conversation, its own error."""

    #: None: the user says nothing more
    text: str | None
    #: the conversation ends after ``text`` (the agent does not answer it)
    end: bool = False
    ended_by: UserEnd | None = None
    #: the user broke its instructions (a scripted user with no rule for the agent's message)
    error: str | None = None
    #: the user's step on the trace (``kind: user``), with its latency, tokens and cost
    event: TraceEvent | None = None


@runtime_checkable
class SimulatedUser(Protocol):
    """A simulated user: ``scripted`` (rules) or ``model`` (a provider)."""

    @property
    def kind(self) -> UserKind: ...

    async def reply(self, view: UserView) -> UserTurn: ...
