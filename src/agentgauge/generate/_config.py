"""What ``agentgauge generate`` generates (``GenerateConfig``) and the families it knows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from ..errors import UserError

__all__ = ["FAMILIES", "FAMILY_CATEGORY", "MULTI_TURN", "GenerateConfig"]

#: family -> the category its cases get (the five categories of a suite's usual mix)
FAMILY_CATEGORY: Final = {
    "direct": "happy_path",
    "missing_fact": "ambiguous",
    "switch_intent": "ambiguous",
    "change_mind": "edge_case",
    "correction": "edge_case",
    "empty_result": "edge_case",
    "tool_error": "error_recovery",
    "injection": "adversarial",
}
FAMILIES: Final = tuple(FAMILY_CATEGORY)
#: the families played with a scripted user (``user:``): the conversation branches
MULTI_TURN: Final = frozenset({"missing_fact", "switch_intent", "change_mind", "correction"})


@dataclass(frozen=True, kw_only=True)
class GenerateConfig:
    """What to generate: the seed (same seed, same file), the families, at most ``per_family``
    cases of each (one per tool, tools in a seeded order)."""

    seed: int = 0
    families: tuple[str, ...] = FAMILIES
    per_family: int = 6
    #: ``--generator``: a provider spec that paraphrases the texts and proposes goals
    generator: str | None = None
    #: goals the generator model is asked to propose per tool (``direct`` cases)
    proposals: int = 1
    #: cache the generator's replies in the response cache
    cache: bool = True
    #: run the satisfiability check (an oracle agent passes, wrong agents fail) on every case
    check: bool = True
    #: the user allowed suite code (a Python world is built only then)
    allow_suite_code: bool = False

    def __post_init__(self) -> None:
        unknown = sorted(set(self.families) - set(FAMILIES))
        if unknown:
            raise UserError(
                f"--family: unknown famil{'ies' if len(unknown) > 1 else 'y'} "
                f"{', '.join(unknown)} (known: {', '.join(FAMILIES)})"
            )
        if self.per_family < 1:
            raise UserError(f"--per-family: must be at least 1, got {self.per_family}")
        if self.proposals < 0:
            raise UserError(f"--proposals: must be 0 or more, got {self.proposals}")
