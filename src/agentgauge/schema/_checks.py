"""The parts of an expectation that say what must *not* happen and how much may happen: call
types, tool-name globs, forbidden sequences and the call / model-step bounds (docs/scoring.md)."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Literal

from pydantic import Field, model_validator

from .._factories import new_list
from ._base import Model

__all__ = ["CallType", "ForbiddenSequence", "StepLimits", "is_pattern", "name_matches"]

CallType = Literal["function", "mcp"]
"""What kind of tool a call goes to.

- ``function``: a plain function tool (defined in the suite, a tools file, a framework agent);
- ``mcp``: a tool an MCP server serves (the suite's ``tools_from: {mcp: ...}``, or a tool the
  suite marks ``type: mcp``).
"""

_GLOB_CHARS = frozenset("*?[")


def is_pattern(name: str) -> bool:
    """Whether a tool name in an expectation is a glob (``*``, ``?`` or ``[...]``)."""
    return not _GLOB_CHARS.isdisjoint(name)


def name_matches(pattern: str, name: str) -> bool:
    """Whether the tool ``name`` is ``pattern`` (a plain name) or matches it (a glob, case
    sensitive, as :func:`fnmatch.fnmatchcase`)."""
    if pattern == name:
        return True
    return is_pattern(pattern) and fnmatchcase(name, pattern)


class ForbiddenSequence(Model):
    """A call to ``then`` made after a call to ``after`` with no call to one of ``unless``
    between them fails the turn (``transfer_funds`` after ``get_quote`` without
    ``confirm_transfer``). Each name may be a glob. A call made in the same message as the
    ``after`` call counts as after it (the agent had not seen the first result)."""

    after: str = Field(min_length=1)
    then: str = Field(min_length=1)
    #: a call to one of these (names or globs), made after ``after`` and before ``then``,
    #: confirms it; empty: ``then`` may never follow ``after``
    unless: list[str] = Field(default_factory=new_list)

    def describe(self) -> str:
        base = f"{self.then} after {self.after}"
        if not self.unless:
            return base
        return f"{base} without {' or '.join(self.unless)} between them"


class StepLimits(Model):
    """Bounds on one turn: tool calls, and model steps (the agent's assistant messages).

    As ``defaults.limits`` they apply to every turn that has an expectation, unless the turn
    gives its own bound."""

    min_calls: int | None = Field(default=None, ge=0)
    max_calls: int | None = Field(default=None, ge=0)
    min_model_steps: int | None = Field(default=None, ge=0)
    max_model_steps: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _ordered(self) -> StepLimits:
        StepLimits.check_bounds(self)
        return self

    @staticmethod
    def check_bounds(limits: StepLimits) -> None:
        """A minimum above its maximum accepts no turn at all."""
        for what in ("calls", "model_steps"):
            low = getattr(limits, f"min_{what}")
            high = getattr(limits, f"max_{what}")
            if low is not None and high is not None and low > high:
                raise ValueError(
                    f"min_{what} {low} is above max_{what} {high}: no turn can meet both"
                )

    def over(self, base: StepLimits | None) -> StepLimits:
        """These bounds, each open one taken from ``base`` (the suite's ``defaults.limits``)."""
        if base is None:
            return self
        return StepLimits.model_construct(
            min_calls=self.min_calls if self.min_calls is not None else base.min_calls,
            max_calls=self.max_calls if self.max_calls is not None else base.max_calls,
            min_model_steps=self.min_model_steps
            if self.min_model_steps is not None
            else base.min_model_steps,
            max_model_steps=self.max_model_steps
            if self.max_model_steps is not None
            else base.max_model_steps,
        )
