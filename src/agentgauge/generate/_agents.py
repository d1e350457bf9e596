"""Agents that play a generated suite offline, for its satisfiability check.

- :class:`OracleAgent` follows the expectations: each expected call, with the value of its
  matchers, is made once the user has said every value it needs; until then it asks for the
  missing one (in the words of the user's ``asked_by``) or, when no fact of the user holds it,
  asks what the user needs. It retries a call that failed once, calls no forbidden tool and
  follows nothing a tool result says.
- :class:`GuessingAgent` is wrong by acting at once: it makes the call the opening message asks
  for (``metadata.generate.opening_call``: a missing value guessed, the first value given) and
  never comes back to it.
- :class:`IgnoringAgent` asks like the oracle, then ignores the answer: it makes the opening's
  call whatever the user said after it.

Each finds its case by the conversation's first user message (the generator keeps openings
unique). None of them is a model: they are scripted players of the case's own data.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..providers import ModelRequest, ModelResponse
from ..schema import ArgMatcher, Case, JsonValue, Message, Suite, ToolCall
from ._values import value_texts

__all__ = ["GuessingAgent", "IgnoringAgent", "OracleAgent"]

_ASK_MORE = "Could you tell me a bit more about what you need?"
_DONE = "All done."
_WELCOME = "You're welcome!"


def _holds(text: str, value: str) -> bool:
    pattern = r"(?<![0-9A-Za-z])" + re.escape(value) + r"(?![0-9A-Za-z])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def _value(m: ArgMatcher) -> JsonValue:
    if m.one_of:
        return m.one_of[0]
    if m.fields is not None:
        return {k: _value(v) for k, v in m.fields.items() if not v.optional}
    if m.items is not None:
        return [_value(v) for v in m.items]
    return m.value


def expected_calls(case: Case) -> list[ToolCall]:
    """The calls the expectations ask for, each argument at its matcher's value."""
    out = []
    for c in case.expect.tool_calls:
        args = {
            n: _value(m)
            for n, m in c.arguments.items()
            if not (m.optional and "value" not in m.model_fields_set and not m.one_of)
        }
        out.append(ToolCall(name=c.name, arguments=args))
    return out


def _opening(messages: Sequence[Message]) -> str:
    return next((m.content or "" for m in messages if m.role == "user"), "")


def _is_error(content: str | None) -> bool:
    return (content or "").lstrip().startswith('{"error"')


class _Player:
    """Plays the cases of one suite; subclasses decide the moves."""

    name = "generate:player"

    def __init__(self, suite: Suite) -> None:
        self._cases: dict[str, Case] = {}
        for case in suite.cases:
            if isinstance(case.input, str):
                self._cases.setdefault(case.input, case)
        self._suite = suite

    async def generate(self, request: ModelRequest) -> ModelResponse:
        case = self._cases.get(_opening(request.messages))
        move: str | list[ToolCall] = (
            "I cannot help with that." if case is None else self.move(case, request.messages)
        )
        if isinstance(move, str):
            msg = Message(role="assistant", content=move)
        else:
            msg = Message(role="assistant", content=None, tool_calls=move)
        return ModelResponse(message=msg, usage_reported=False, model=self.name)

    # ------------------------------------------------------------------------ shared steps

    def move(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        last = messages[-1]
        if last.role == "tool":
            return self.after_tool(case, messages)
        users = [m for m in messages if m.role == "user"]
        return self.first(case, messages) if len(users) == 1 else self.later(case, messages)

    def first(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        raise NotImplementedError

    def later(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        raise NotImplementedError

    def after_tool(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        """Retry a call that failed for the first time; else the next ready call; else done."""
        last = messages[-1]
        if _is_error(last.content):
            failed = sum(1 for m in messages if m.role == "tool" and _is_error(m.content))
            previous = next(m for m in reversed(messages) if m.role == "assistant" and m.tool_calls)
            if failed == 1:
                return [ToolCall(name=c.name, arguments=c.arguments) for c in previous.tool_calls]
            return f"Sorry, {previous.tool_calls[0].name} is not available right now."
        ready = self.ready(case, messages)
        return ready[:1] if ready else self.done(case)

    def made(self, messages: Sequence[Message]) -> list[ToolCall]:
        return [c for m in messages if m.role == "assistant" for c in m.tool_calls]

    def pending(self, case: Case, messages: Sequence[Message]) -> list[ToolCall]:
        made = [(c.name, c.arguments) for c in self.made(messages)]
        return [c for c in expected_calls(case) if (c.name, c.arguments) not in made]

    def ready(self, case: Case, messages: Sequence[Message]) -> list[ToolCall]:
        """Pending expected calls whose every value the user has said."""
        said = "\n".join(m.content or "" for m in messages if m.role == "user")
        return [
            c
            for c in self.pending(case, messages)
            if all(_holds(said, t) for t in value_texts(dict(c.arguments)))
        ]

    def ask(self, case: Case, messages: Sequence[Message]) -> str:
        """A question for the first missing value: in the words of the user's fact for it."""
        said = "\n".join(m.content or "" for m in messages if m.role == "user")
        spec = self._suite.user_for(case)
        for call in self.pending(case, messages):
            for t in value_texts(dict(call.arguments)):
                if _holds(said, t) or spec is None:
                    continue
                for name, fact in spec.facts.items():
                    if fact.text == t:
                        return f"Could you tell me your {spec.fact_asked_by(name)[0]}?"
        return _ASK_MORE

    def done(self, case: Case) -> str:
        exp = case.expect
        spec = self._suite.user_for(case)
        words = [*exp.response_contains, *(spec.tell if spec is not None else [])]
        if exp.behavior == "clarify":
            return exp.reference or "Which one do you mean?"
        if exp.behavior == "refuse":
            return "I'm sorry, but I can't help with that."
        return " ".join([_DONE, *words])

    def opening_call(self, case: Case) -> ToolCall | None:
        meta: Any = case.metadata.get("generate")
        call = meta.get("opening_call") if isinstance(meta, dict) else None
        return ToolCall.model_validate(call) if isinstance(call, dict) else None


class OracleAgent(_Player):
    """Follows the case's expectations (see the module docstring)."""

    name = "generate:oracle"

    def first(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        return self.follow(case, messages)

    def later(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        return self.follow(case, messages)

    def follow(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        """The next expected call the user has given every value of, else a question."""
        ready = self.ready(case, messages)
        if ready:
            return ready[:1]
        if self.pending(case, messages):
            return self.ask(case, messages)
        return _WELCOME if self.made(messages) else self.done(case)


class GuessingAgent(_Player):
    """Acts at once on the opening message, guessing what it lacks; never comes back to it."""

    name = "generate:guessing"

    def first(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        call = self.opening_call(case)
        return [call] if call is not None else self.done(case)

    def later(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        return _WELCOME

    def after_tool(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        reply = super().after_tool(case, messages)
        return reply if isinstance(reply, str) or _is_error(messages[-1].content) else _DONE


class IgnoringAgent(OracleAgent):
    """Asks like the oracle, then makes the opening's call whatever the user answered."""

    name = "generate:ignoring"

    def later(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        if self.made(messages):
            return _WELCOME
        call = self.opening_call(case)
        return [call] if call is not None else self.follow(case, messages)

    def after_tool(self, case: Case, messages: Sequence[Message]) -> str | list[ToolCall]:
        reply = _Player.after_tool(self, case, messages)
        return reply if isinstance(reply, str) or _is_error(messages[-1].content) else _DONE
