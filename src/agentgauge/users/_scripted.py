"""The scripted user: rules, facts and fallback lines, deterministic and offline."""

from __future__ import annotations

import time

from ..schema import TraceEvent, UserKind, UserSpec
from ._api import UserTurn, UserView
from ._text import mentions, short

__all__ = ["ScriptedUser"]


class ScriptedUser:
    """Answers the agent's message with, in order: the first rule whose words it holds; the
    facts it asks for (a fact the agent must not obtain is refused); the ``otherwise`` line(s);
    else the user has no answer — its own error (``user_error``)."""

    def __init__(self, spec: UserSpec) -> None:
        self._spec = spec
        self._line = 0

    @property
    def kind(self) -> UserKind:
        return "scripted"

    async def reply(self, view: UserView) -> UserTurn:
        start = time.time()
        t0 = time.perf_counter()
        turn = self.answer(view.agent_text)
        event = TraceEvent(
            kind="user",
            turn=view.turn,
            start=start,
            end=time.time(),
            latency_ms=(time.perf_counter() - t0) * 1000.0,
            model="scripted",
            error=turn.error,
        )
        return UserTurn(
            text=turn.text, end=turn.end, ended_by=turn.ended_by, error=turn.error, event=event
        )

    def answer(self, agent_text: str) -> UserTurn:
        """The user's answer to ``agent_text`` (no trace event)."""
        spec = self._spec
        for rule in spec.rules:
            if mentions(agent_text, rule.when):
                text = spec.say_text(rule) or None
                return UserTurn(text=text, end=rule.end, ended_by="stop" if rule.end else None)
        asked = [n for n in spec.facts if mentions(agent_text, spec.fact_asked_by(n))]
        if asked:
            return UserTurn(text=" ".join(self._give(n) for n in asked))
        other = spec.otherwise
        if isinstance(other, str):
            return UserTurn(text=other)
        if isinstance(other, list):
            if self._line < len(other):
                self._line += 1
                return UserTurn(text=other[self._line - 1])
            return UserTurn(text=None, end=True, ended_by="script")
        return UserTurn(
            text=None,
            end=True,
            ended_by="user_error",
            error=f"no rule answers the agent's message: {short(agent_text) or '(nothing)'!r}",
        )

    def _give(self, name: str) -> str:
        label = name.replace("_", " ")
        if name in self._spec.must_not_obtain:
            return f"I'd rather not share my {label}."
        return f"My {label} is {self._spec.facts[name].text}."
