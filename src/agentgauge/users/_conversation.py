"""One conversation with a simulated user: whose turn it is, when it ends, and who broke it."""

from __future__ import annotations

import time
from typing import Any

from .. import scoring
from ..schema import (
    Case,
    Expectation,
    Message,
    StateExpectation,
    UserDone,
    UserEnd,
    UserRecord,
    UserSpec,
)
from ..worlds import WorldOutcome
from ._api import SimulatedUser, UserTurn, UserView
from ._checks import UserGuard
from ._text import mentions, short

__all__ = ["Conversation", "goal_reached"]


def goal_reached(done: UserDone, agent_text: str, state: Any | None) -> bool:
    """``done`` holds: the agent's message has one of its words, or the world's state passes
    every one of its checks (graded as ``expect.state`` is)."""
    if done.agent_says and mentions(agent_text, done.agent_says):
        return True
    if not done.state or state is None:
        return False
    probe = Case(
        id="user.done",
        input="-",
        expect=Expectation(state=StateExpectation(checks=list(done.state))),
    )
    outcome = WorldOutcome(initial=state, turns=[state])
    return scoring.score_case(probe, [[]], {}, world=outcome).status == "passed"


class Conversation:
    """Drives a simulated user turn by turn; the runner plays the agent in between.

    :meth:`next` is called after each agent turn with the agent's reply (and the world's state):
    it ends the conversation when the goal is reached (``done``), ``max_turns`` user messages
    were sent, or the case's budget is spent; else it asks the user, checks the answer against
    the user's instructions (:class:`UserGuard`) and returns it.
    """

    def __init__(
        self,
        spec: UserSpec,
        user: SimulatedUser,
        case: Case,
        *,
        model: str | None = None,
        template: str | None = None,
        seed: int | None = None,
        budget_s: float | None = None,
    ) -> None:
        self.spec = spec
        self._user = user
        self._guard = UserGuard(spec)
        self.history: list[Message] = _opening(case)
        for m in self.history:
            self._guard.opening(m.content or "")
        self.record = UserRecord(kind=user.kind, model=model, template=template, seed=seed, turns=1)
        self._deadline = time.monotonic() + budget_s if budget_s is not None else None

    def _end(self, how: UserEnd, error: str | None = None) -> UserTurn:
        self.record.ended_by = how
        self.record.error = error
        return UserTurn(text=None, end=True, ended_by=how, error=error)

    async def next(self, agent_text: str, state: Any | None = None) -> UserTurn:
        """The user's answer to ``agent_text`` (``end`` set: the conversation is over)."""
        self.history.append(Message(role="assistant", content=agent_text))
        reached = self.spec.done is not None and goal_reached(self.spec.done, agent_text, state)
        if reached:
            return self._end("done")
        if self.record.turns >= self.spec.max_turns:
            return self._end("max_turns")
        if self._deadline is not None and time.monotonic() >= self._deadline:
            return self._end("budget")
        view = UserView(
            agent_text=agent_text, history=list(self.history[:-1]), turn=self.record.turns
        )
        turn = await self._user.reply(view)
        self._count(turn)
        error = turn.error
        if error is None and turn.text is not None:
            error = self._repeated(turn.text) or self._guard.check(turn.text, agent_text)
        if error is None and turn.end:
            error = self._guard.ended_early(reached)
        if turn.text is not None:
            self.history.append(Message(role="user", content=turn.text))
            self.record.turns += 1
        if error is not None:
            self.record.ended_by = "user_error"
            self.record.error = error
            return UserTurn(
                text=turn.text, end=True, ended_by="user_error", error=error, event=turn.event
            )
        if turn.end:
            self.record.ended_by = turn.ended_by or "stop"
        return turn

    def _repeated(self, text: str) -> str | None:
        """A model user that says an earlier message of its own again, word for word, is stuck
        (a scripted user's ``otherwise`` line may repeat: that is the script)."""
        if self._user.kind != "model":
            return None
        said = " ".join(text.split()).casefold()
        for m in self.history:
            if m.role == "user" and " ".join((m.content or "").split()).casefold() == said:
                return f"repeated an earlier message word for word: {short(text)!r}"
        return None

    def _count(self, turn: UserTurn) -> None:
        event = turn.event
        if event is None:
            return
        rec = self.record
        rec.latency_ms += event.latency_ms
        if event.usage is not None:
            rec.usage = rec.usage + event.usage
        if self._user.kind == "model" and not event.cached:  # calls that reached the model
            rec.model_calls += 1
        if event.cost_usd is not None:
            rec.cost_usd = (rec.cost_usd or 0.0) + event.cost_usd


def _opening(case: Case) -> list[Message]:
    """The conversation as the user starts it: the case input's user and assistant texts."""
    if isinstance(case.input, str):
        return [Message(role="user", content=case.input)]
    return [
        Message(role=m.role, content=m.content or "")
        for m in case.input
        if m.role in ("user", "assistant") and m.content
    ]
