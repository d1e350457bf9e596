"""Lint of a suite's ``modules:`` (docs/metrics.md#module-metrics): the retrieval and fallback
tools it names are tools a case can call (``unknown-module-tool``), and the module metrics its
cases label can be observed — relevant knowledge with no retrieval tool named, a fallback label
with no fallback tool or reply, are measured only if the agent reports them itself
(``module-unobservable``, a warning: a labels-reporting agent needs neither)."""

from __future__ import annotations

from dataclasses import dataclass

from ..files import PathElem
from ..schema import Suite

__all__ = ["ModuleFinding", "module_findings"]


@dataclass(frozen=True, kw_only=True)
class ModuleFinding:
    code: str
    message: str
    path: tuple[PathElem, ...]


def _tool_names(suite: Suite) -> set[str]:
    names = {t.name for t in suite.tools}
    for case in suite.cases:
        # a case's tools: specs, or names of the suite's tools
        names.update(t if isinstance(t, str) else t.name for t in case.tools or [])
    return names


def _unknown_tools(suite: Suite) -> list[ModuleFinding]:
    m = suite.modules
    if m is None or suite.tools_from is not None:  # MCP tools are not known to validate
        return []
    known = _tool_names(suite)
    named: list[tuple[str, list[str]]] = []
    if m.retrieval is not None:
        named.append(("retrieval", m.retrieval.tools))
    if m.fallback is not None:
        named.append(("fallback", m.fallback.tools))
    return [
        ModuleFinding(
            code="unknown-module-tool",
            message=f"'{tool}' is not a tool of the suite or of any case: the {section} metric "
            "would never see a call to it",
            path=("modules", section, "tools", i),
        )
        for section, tools in named
        for i, tool in enumerate(tools)
        if tool not in known
    ]


def _unobservable(suite: Suite) -> list[ModuleFinding]:
    m = suite.modules
    knowledge = sum(1 for c in suite.cases if c.labels is not None and c.labels.knowledge)
    fallback = sum(1 for c in suite.cases if c.labels is not None and c.labels.fallback is not None)
    out: list[ModuleFinding] = []
    if knowledge and (m is None or m.retrieval is None):
        out.append(
            ModuleFinding(
                code="module-unobservable",
                message=f"{knowledge} case(s) name relevant knowledge (labels.knowledge) but "
                "modules.retrieval names no retrieval tool: retrieval is measured only where "
                "the agent reports labels.knowledge itself",
                path=("modules",) if m is not None else (),
            )
        )
    no_fallback = m is None or m.fallback is None or not (m.fallback.tools or m.fallback.replies)
    if fallback and no_fallback:
        out.append(
            ModuleFinding(
                code="module-unobservable",
                message=f"{fallback} case(s) have labels.fallback but modules.fallback names no "
                "hand-off tool or safe-default reply: degradation triggers are measured only "
                "where the agent reports labels.fallback itself",
                path=("modules",) if m is not None else (),
            )
        )
    return out


def module_findings(suite: Suite) -> list[ModuleFinding]:
    """Every finding about the suite's module metrics (warnings)."""
    return [*_unknown_tools(suite), *_unobservable(suite)]
