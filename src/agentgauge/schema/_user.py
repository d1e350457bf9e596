"""Simulated users: a case's ``user:`` (who talks back to the agent) and what a result records.

A case with ``user:`` is a conversation: its ``input`` is the user's opening message, then the
simulated user answers each agent reply — by **rules** (``scripted``: deterministic, offline) or
with a **model** (``model``: any provider spec, temperature 0, seeded, cached) — until it ends the
conversation (its stop phrase, an ending rule, its ``done`` condition), ``max_turns`` or the
case's latency budget. The case's ``expect`` then applies to the whole conversation, with the
facts the agent had to tell the user (``tell``) and what it must not obtain
(``must_not_obtain``). A user that breaks its own instructions makes the result ``user_error``
(docs/users.md).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from .._factories import factory_of, new_dict, new_list
from ._base import Model, Usage
from ._world import StateCheck

UserKind = Literal["scripted", "model"]
#: how a conversation with a simulated user ended
UserEnd = Literal["stop", "done", "max_turns", "script", "budget", "user_error", "error"]

#: what a model user writes to end the conversation (as τ²-bench's users do)
DEFAULT_STOP = "###STOP###"
#: the version of the prompt template a model user is driven with (users/prompts)
USER_TEMPLATE = "user_v1"

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _as_list(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


class UserFact(Model):
    """Something the user knows and gives only when the agent asks for it.

    ``value`` is what the user says; ``asked_by`` the words that mean the agent asked for it (any
    one of them in the agent's message, case-insensitive; default: the fact's name with ``_`` as
    spaces); ``pattern`` a regular expression every value of this kind matches (an order id
    ``A\\d+``): a user message holding a match other than ``value`` invented one.
    """

    value: str | int | float
    asked_by: list[str] = Field(default_factory=new_list)
    pattern: str | None = None

    _as_list = field_validator("asked_by", mode="before")(_as_list)

    @field_validator("pattern")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"not a regular expression: {exc}") from exc
        return value

    @property
    def text(self) -> str:
        return str(self.value)


class UserRule(Model):
    """A scripted user's rule: when the agent's message holds one of ``when`` (case-insensitive),
    the user says ``say`` (``{fact}`` placeholders are the facts' values); ``end`` ends the
    conversation after it."""

    when: list[str] = Field(min_length=1)
    say: str = ""
    end: bool = False

    _as_list = field_validator("when", mode="before")(_as_list)

    @field_validator("when")
    @classmethod
    def _words(cls, value: list[str]) -> list[str]:
        if any(not w.strip() for w in value):
            raise ValueError("an empty word matches every message")
        return value

    @model_validator(mode="after")
    def _says_or_ends(self) -> UserRule:
        if not self.say and not self.end:
            raise ValueError("a rule says something ('say') or ends the conversation ('end')")
        return self


class UserDone(Model):
    """When the user's goal is reached: the agent's message holds one of ``agent_says``, or the
    world's state satisfies every ``state`` check (either given condition ends it)."""

    agent_says: list[str] = Field(default_factory=new_list)
    state: list[StateCheck] = Field(default_factory=new_list)

    _as_list = field_validator("agent_says", mode="before")(_as_list)

    @model_validator(mode="after")
    def _something(self) -> UserDone:
        if not self.agent_says and not self.state:
            raise ValueError("give 'agent_says' or 'state'")
        return self


class UserSpec(Model):
    """``user:`` of a case (or ``defaults.user``, merged under every case's ``user:``)."""

    #: ``scripted`` (rules) or ``model``; None: ``model`` when a model is named (``model`` or
    #: ``--user-model``), else ``scripted``
    kind: UserKind | None = None
    #: what the user wants, and how to behave (a model user's prompt; documentation otherwise)
    goal: str = ""
    instructions: str = ""
    persona: str = ""
    #: what the user knows and gives only when asked: name -> value or :class:`UserFact`
    facts: dict[str, UserFact] = Field(default_factory=new_dict)
    #: scripted: the first rule whose words the agent's message holds answers it
    rules: list[UserRule] = Field(default_factory=new_list)
    #: scripted: what the user says when no rule matches; a list is said line by line, one per
    #: unmatched reply, and the user ends the conversation after the last. None: no rule matching
    #: is the user's error (``user_error``)
    otherwise: str | list[str] | None = None
    #: user messages at most, the opening included
    max_turns: int = Field(default=10, ge=1, le=100)
    #: a model user ends the conversation by writing this
    stop: str = Field(default=DEFAULT_STOP, min_length=1)
    #: the user's goal is reached: the conversation ends there
    done: UserDone | None = None
    #: what the agent must tell the user: each text must appear in its replies
    tell: list[str] = Field(default_factory=new_list)
    #: facts (by name) or texts the agent must never obtain: the user refuses to give them, and
    #: the agent fails when one is in its calls or replies
    must_not_obtain: list[str] = Field(default_factory=new_list)
    #: a model user's provider spec (``--user-model`` wins)
    model: str | None = None
    #: a model user's seed (trial ``t`` uses ``seed + t``; default: the run's ``--seed``)
    seed: int | None = None

    @field_validator("facts", mode="before")
    @classmethod
    def _short_facts(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: {"value": v}
                if isinstance(v, str | int | float) and not isinstance(v, bool)
                else v
                for k, v in value.items()
            }
        return value

    @model_validator(mode="after")
    def _consistent(self) -> UserSpec:
        known = set(self.facts)
        for i, rule in enumerate(self.rules):
            for name in _PLACEHOLDER.findall(rule.say):
                if name not in known:
                    raise ValueError(f"rules[{i}].say: no fact '{name}' (facts: {sorted(known)})")
        if self.kind == "scripted" and self.model is not None:
            raise ValueError("a scripted user has no model: drop 'model' or 'kind: scripted'")
        return self

    def fact_asked_by(self, name: str) -> list[str]:
        """The words that mean the agent asked for fact ``name``."""
        fact = self.facts[name]
        return fact.asked_by or [name.replace("_", " ")]

    def secret_texts(self) -> list[str]:
        """The texts of ``must_not_obtain``: a fact's value, or the text itself."""
        return [self.facts[s].text if s in self.facts else s for s in self.must_not_obtain]

    def say_text(self, rule: UserRule) -> str:
        """A rule's words with the facts' values in place of ``{fact}``."""
        return _PLACEHOLDER.sub(lambda m: self.facts[m.group(1)].text, rule.say)


def merge_user(default: UserSpec | None, own: UserSpec | None) -> UserSpec | None:
    """A case's user: ``defaults.user``'s fields under the case's own (None: no user)."""
    if own is None:
        return None
    if default is None:
        return own
    merged = default.model_dump(exclude_unset=True, by_alias=True)
    merged.update(own.model_dump(exclude_unset=True, by_alias=True))
    return UserSpec.model_validate(merged)


class UserRecord(Model):
    """``result.user``: who the simulated user was and how the conversation went."""

    kind: UserKind
    model: str | None = None
    #: the prompt template version of a model user (``user_v1``)
    template: str | None = None
    seed: int | None = None
    #: user messages in the conversation, the opening included
    turns: int = 0
    ended_by: UserEnd = "max_turns"
    #: why the result is ``user_error``: the instruction the user broke
    error: str | None = None
    #: the user's own model calls, tokens, cost and time (apart from the agent's)
    model_calls: int = 0
    usage: Usage = Field(default_factory=factory_of(Usage))
    cost_usd: float | None = None
    latency_ms: float = 0.0


class UserSimulator(Model):
    """``run.json``'s ``user_simulator``: part of what a result means (docs/users.md)."""

    #: the kinds of the suite's users (``scripted``, ``model``)
    kinds: list[UserKind] = Field(default_factory=new_list)
    #: the model specs model users were driven with (public form, no secrets)
    models: list[str] = Field(default_factory=new_list)
    template: str | None = None
    seed: int | None = None

    def describe(self) -> str:
        """``model users: openai:gpt-4o, template user_v1, seed 0`` (``scripted users``)."""
        head = f"{' and '.join(self.kinds) or 'no'} users"
        parts = [*self.models]
        if self.template:
            parts.append(f"template {self.template}")
        if self.seed is not None:
            parts.append(f"seed {self.seed}")
        return f"{head}: {', '.join(parts)}" if parts else head
