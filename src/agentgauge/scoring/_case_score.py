"""The verdict on one case (``CaseScore``), what ``score_case`` and the BFCL mode both return."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..schema import Score, StateDiff, Status

__all__ = ["CaseScore"]


@dataclass(frozen=True, kw_only=True)
class CaseScore:
    """The verdict on one case: status, partial credit and every score with its explanation."""

    status: Status
    score: float
    scores: list[Score] = field(default_factory=list)
    explanation: str = ""
    #: the classified behaviour of the agent's (last) turn
    behavior: str | None = None
    #: the state checks' verdict (every ``state`` score passed); None: no state checked
    goal_met: bool | None = None
    #: the differences the state checks found
    state_diff: list[StateDiff] = field(default_factory=list)
