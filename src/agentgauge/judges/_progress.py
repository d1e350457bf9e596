"""What a long judge job (calibration, a pairwise comparison) reports its progress to.

The judges do not draw anything: the caller passes a factory that is given the number of
judgements to come and returns something to ``advance`` after each one and ``close`` at the end
(``agentgauge calibrate`` and ``compare --judge`` pass the run's progress display).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

__all__ = ["JudgeProgress", "ProgressFactory"]


class JudgeProgress(Protocol):
    def advance(self, status: str) -> None:
        """One item done: ``ok`` or ``error``."""

    def close(self) -> None:
        """The job is over (also after an error)."""


#: called once with the number of items to judge
ProgressFactory = Callable[[int], JudgeProgress]
