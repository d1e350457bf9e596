"""The simulated users of a run (docs/users.md), counted apart from the agent's figures."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from pydantic import Field

from .._factories import new_dict
from ..schema import CaseResult, Model, RunRecord

__all__ = ["UserStats", "UsersAcc"]


class UserStats(Model):
    """``summary.json``'s ``users``: the results with a simulated user, how their conversations
    ended, and what the users themselves cost (none of it is in the agent's cost)."""

    #: who played the users (run.json's ``user_simulator``): ``model users: ..., seed 0``
    simulator: str | None = None
    results: int = 0
    #: of them, results whose user broke its instructions (``user_error``)
    user_errors: int = 0
    #: user messages per conversation, the opening included (mean)
    turns_mean: float | None = None
    #: how the conversations ended: ``stop``, ``done``, ``max_turns``, ``script`` ...
    ended_by: dict[str, int] = Field(default_factory=new_dict)
    #: the user models' calls that reached a model (cached ones not counted), tokens, cost
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    #: the users' own time, summed over every result
    latency_ms: float = 0.0


@dataclass(slots=True)
class UsersAcc:
    """The simulated users' figures of a run, added one result at a time."""

    results: int = 0
    user_errors: int = 0
    turns: int = 0
    ended_by: Counter[str] = field(default_factory=Counter)
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    latency_ms: float = 0.0

    def add(self, r: CaseResult) -> None:
        u = r.user
        if u is None:
            return
        self.results += 1
        self.user_errors += r.status == "user_error"
        self.turns += u.turns
        self.ended_by[u.ended_by] += 1
        self.model_calls += u.model_calls
        self.input_tokens += u.usage.input_tokens
        self.output_tokens += u.usage.output_tokens
        if u.cost_usd is not None:
            self.cost = (self.cost or 0.0) + u.cost_usd
        self.latency_ms += u.latency_ms

    def build(self, run: RunRecord | None) -> UserStats | None:
        if not self.results:
            return None
        sim = run.user_simulator if run is not None else None
        return UserStats(
            simulator=sim.describe() if sim is not None else None,
            results=self.results,
            user_errors=self.user_errors,
            turns_mean=self.turns / self.results,
            ended_by=dict(sorted(self.ended_by.items())),
            model_calls=self.model_calls,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost_usd=self.cost,
            latency_ms=self.latency_ms,
        )
