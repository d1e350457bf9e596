"""The scoring entry point (placeholder signature; the scoring engine fills it in)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..schema import Case, ExtraArguments, Message, Score, Status, ToolCall, ToolSpec

BehaviorClassifier = Callable[[str | None, Sequence[ToolCall]], str]


@dataclass(frozen=True, kw_only=True)
class ScoringConfig:
    """How to score: ``default`` agentgauge rules or ``bfcl`` (BFCL AST checker verdicts)."""

    mode: Literal["default", "bfcl"] = "default"
    #: default policy for unexpected extra arguments (a call expectation may override it)
    extra_arguments: ExtraArguments = "fail"
    #: replaces the built-in behaviour heuristic: (final text, calls) -> behaviour label
    behavior_classifier: BehaviorClassifier | None = None


@dataclass(frozen=True, kw_only=True)
class CaseScore:
    """The verdict on one case: status, partial credit and every score with its explanation."""

    status: Status
    score: float
    scores: list[Score] = field(default_factory=list)
    explanation: str = ""
    #: the classified behaviour of the agent's (last) turn
    behavior: str | None = None


def score_case(
    case: Case,
    turns: Sequence[Sequence[Message]],
    tools: Mapping[str, ToolSpec],
    config: ScoringConfig = ScoringConfig(),  # noqa: B008 - frozen dataclass
) -> CaseScore:
    raise NotImplementedError("scoring engine not built yet")
