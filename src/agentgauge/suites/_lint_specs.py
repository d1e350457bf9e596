"""Lint checks of the provider specs a suite names: ``defaults.agent``, ``defaults.judge`` and
the ``matrix:`` agents.

Each must name a known kind of provider (``unknown-provider``, an error: the run would not
start), checked with the registry's own :func:`agentgauge.providers.spec_problem`; nothing is
created, so no SDK is imported and no network is touched. A matrix of one agent compares
nothing (``matrix-of-one``, a warning).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ..files import PathElem
from ..schema import Suite

__all__ = ["SpecFinding", "spec_findings"]


@dataclass(frozen=True)
class SpecFinding:
    severity: Literal["warning", "error"]
    code: str
    #: from the suite's root: ``("matrix", "agents", 1, "agent")``
    path: tuple[PathElem, ...]
    message: str


def spec_findings(suite: Suite) -> Iterator[SpecFinding]:
    """Problems of the agent and judge specs of ``suite.defaults`` and ``suite.matrix``."""
    from ..providers import spec_problem

    for name in ("agent", "judge"):
        spec = getattr(suite.defaults, name)
        problem = spec_problem(spec) if spec else None
        if problem is not None:
            yield SpecFinding("error", "unknown-provider", ("defaults", name), problem)
    agents = suite.matrix.agents if suite.matrix else []
    for i, entry in enumerate(agents):
        at: tuple[PathElem, ...] = ("matrix", "agents", i)
        spec = entry if isinstance(entry, str) else entry.agent
        problem = spec_problem(spec)
        if problem is not None:
            at += () if isinstance(entry, str) else ("agent",)
            yield SpecFinding("error", "unknown-provider", at, problem)
    if len(agents) == 1:
        yield SpecFinding(
            "warning",
            "matrix-of-one",
            ("matrix", "agents"),
            "the matrix has one agent: there is nothing to compare (add agents, or use "
            "defaults.agent)",
        )
