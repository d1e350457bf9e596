"""What the red-team generator generates (``RedteamConfig``); read by the family builders and
the generator alike."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UserError
from . import _payloads as P

__all__ = ["RedteamConfig"]


@dataclass(frozen=True, kw_only=True)
class RedteamConfig:
    """What to generate: the seed (same seed, same cases), the families, and at most
    ``per_family`` cases of each."""

    seed: int = 0
    families: tuple[str, ...] = P.FAMILIES
    per_family: int = 6
    #: ``--generator``: a provider spec that paraphrases each attack text (None: templates only)
    generator: str | None = None
    #: cache the generator's replies in the response cache
    cache: bool = True

    def __post_init__(self) -> None:
        unknown = sorted(set(self.families) - set(P.FAMILIES))
        if unknown:
            raise UserError(
                f"unknown red-team famil{'ies' if len(unknown) > 1 else 'y'} "
                f"{', '.join(unknown)} (known: {', '.join(P.FAMILIES)})"
            )
        if self.per_family < 1:
            raise UserError(f"per_family must be at least 1, got {self.per_family}")
