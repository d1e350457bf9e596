"""What generation made: the suite, its text, and the figures and reasons behind it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..schema import Suite
from ._check import Dropped

__all__ = ["FamilyCount", "GeneratedSuite"]


@dataclass(frozen=True, kw_only=True)
class FamilyCount:
    family: str
    #: cases written / cases built and then dropped
    written: int
    dropped: int


@dataclass(frozen=True, kw_only=True)
class GeneratedSuite:
    """The generated suite (only the cases that passed every check), its file text, and how it
    was made: per-family counts, the dropped cases with their reasons, notes."""

    suite: Suite
    text: str
    source: str
    seed: int
    counts: list[FamilyCount]
    dropped: list[Dropped]
    notes: list[str] = field(default_factory=list)
    #: wrong transcripts the audit scored over the written cases, and how many of them failed
    mutants: int = 0
    mutants_failed: int = 0
    #: texts the generator model rewrote / kept as written; goals it proposed and were used
    paraphrased: int = 0
    kept: int = 0
    proposed: int = 0
    #: the suite-code files the suite names (copied next to it by ``write_generated``)
    code: list[str] = field(default_factory=list)
    checked: bool = True
