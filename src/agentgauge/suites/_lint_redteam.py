"""Lint: a tool that no red-team case attacks through or aims at (``no-adversarial-case``).

Only suites that have red-team cases (a case tagged ``redteam``, as ``agentgauge redteam`` and
the red-team pack write them) are checked, so a suite that never opted in is not flooded. A tool
is covered when some red-team case expects it (the attack rides on its use), forbids it (the
attack aims at it), simulates it in ``tool_results`` (the payload sits in its result) or names it
as ``metadata.redteam.target_tool``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..schema import Suite

__all__ = ["REDTEAM_TAG", "UncoveredTool", "uncovered_tools"]

REDTEAM_TAG = "redteam"


@dataclass(frozen=True, kw_only=True)
class UncoveredTool:
    #: index of the tool in ``suite.tools``
    index: int
    tool: str

    @property
    def message(self) -> str:
        return (
            f"no red-team case attacks through or aims at '{self.tool}' (none tagged "
            f"'{REDTEAM_TAG}' expects, forbids or simulates it); 'agentgauge redteam' writes some"
        )


def uncovered_tools(suite: Suite) -> list[UncoveredTool]:
    """The suite's tools without a red-team case, in suite order (none without red-team cases)."""
    cases = [c for c in suite.cases if REDTEAM_TAG in c.tags]
    if not cases:
        return []
    covered: set[str] = set()
    for case in cases:
        covered.update(case.tool_results)
        for e in [case.expect, *(t.expect for t in case.turns if t.expect)]:
            covered.update(c.name for c in e.tool_calls)
            covered.update(e.forbidden_tools)
        meta = case.metadata.get("redteam")
        if isinstance(meta, dict) and isinstance(meta.get("target_tool"), str):
            covered.add(str(meta["target_tool"]))
    return [
        UncoveredTool(index=i, tool=t.name)
        for i, t in enumerate(suite.tools)
        if t.name not in covered
    ]
