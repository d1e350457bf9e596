"""The deterministic checks that attribute a broken conversation to the simulated user.

A user that gives a fact the agent did not ask for, gives away what the agent must not obtain,
invents a value of one of its facts' kinds, or ends the conversation before its goal is reached
breaks its instructions: the result is ``user_error``, not the agent's failure (docs/users.md).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..schema import Message, UserSpec
from ._text import holds_value, mentions, short

__all__ = ["UserGuard", "recorded_user_error"]


@dataclass
class UserGuard:
    """Watches one conversation's user messages against the user's instructions."""

    spec: UserSpec
    #: facts the user has given (or the opening held): repeating them is fine
    given: set[str] = field(default_factory=set)

    def opening(self, text: str) -> None:
        """The case's opening message (the suite's words, not the simulator's): its facts count
        as given."""
        self.given.update(n for n, f in self.spec.facts.items() if holds_value(text, f.text))

    def check(self, message: str, agent_text: str) -> str | None:
        """Why ``message`` (the user's answer to ``agent_text``) breaks the user's
        instructions, or None."""
        for name, secret in zip(self.spec.must_not_obtain, self.spec.secret_texts(), strict=True):
            if holds_value(message, secret) and not holds_value(agent_text, secret):
                return f"gave '{name}', which the agent must not obtain"
        for name, fact in self.spec.facts.items():
            if name in self.given or not holds_value(message, fact.text):
                continue
            asked = mentions(agent_text, self.spec.fact_asked_by(name))
            if not asked and not holds_value(agent_text, fact.text):
                words = ", ".join(repr(w) for w in self.spec.fact_asked_by(name))
                return (
                    f"gave the fact '{name}' unasked (the agent's message holds none of "
                    f"{words}: {short(agent_text) or '(nothing)'!r})"
                )
            self.given.add(name)
        return self._invented(message, agent_text)

    def _invented(self, message: str, agent_text: str) -> str | None:
        for name, fact in self.spec.facts.items():
            if fact.pattern is None:
                continue
            found = re.finditer(
                r"(?<![0-9A-Za-z])(?:" + fact.pattern + r")(?![0-9A-Za-z])", message
            )
            for m in found:
                value = m.group(0)
                if value.casefold() == fact.text.casefold() or holds_value(agent_text, value):
                    continue
                return f"invented a {name}: {value!r} (its {name} is {fact.text!r})"
        return None

    def ended_early(self, goal_reached: bool) -> str | None:
        """The user ended the conversation itself: an error when its goal, which ``done``
        describes, was not reached."""
        if self.spec.done is not None and not goal_reached:
            return "ended the conversation before its goal was reached (user.done)"
        return None


def recorded_user_error(
    spec: UserSpec, opening: list[str], conversation: list[Message]
) -> str | None:
    """The first instruction the user broke in a recorded conversation (its user messages after
    the agent's first reply, each against the agent's reply before it), or None."""
    guard = UserGuard(spec)
    for text in opening:
        guard.opening(text)
    agent_text = ""
    replied = False
    for m in conversation:
        if m.role == "assistant":
            replied = True
            if m.content and m.content.strip():
                agent_text = m.content
        elif m.role == "user" and replied and m.content:
            problem = guard.check(m.content, agent_text)
            if problem is not None:
                return problem
    return None
