"""What a judge is shown of the tools a case offers (the transcript readers live in
:mod:`agentgauge.scoring._replies`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..schema import Case, ToolSpec

#: at most this many offered tools are listed to a judge, and this much of each description
_MAX_TOOLS = 40
_MAX_DESCRIPTION = 160
#: what a judge is shown when the tools on offer are not known (rather than "(none)")
TOOLS_UNKNOWN = "(not known: the scorer was not given the suite's tools)"


def offered_tools(
    case: Case, suite_tools: Sequence[ToolSpec] | None
) -> list[ToolSpec | str] | None:
    """The tools ``case`` offers, resolved as the runner resolves them (``Suite.tools_for``):
    its own list (names of suite tools, or inline definitions), else every suite tool.

    With ``suite_tools`` None (not known), a name the case lists stays a bare name, and a case
    that lists none gives None.
    """
    if case.tools is None:
        return list(suite_tools) if suite_tools is not None else None
    by_name = {t.name: t for t in suite_tools or ()}
    out: list[ToolSpec | str] = []
    for t in case.tools:
        if isinstance(t, ToolSpec):
            out.append(t)
        elif t in by_name:
            out.append(by_name[t])
        elif suite_tools is None:
            out.append(t)
    return out


def tools_text(tools: Sequence[ToolSpec | str] | None) -> str:
    """Offered tools for a judge, one ``name: first line of the description`` a line.

    ``"(none)"`` when no tool is offered; :data:`TOOLS_UNKNOWN` when that is not known.
    """
    if tools is None:
        return TOOLS_UNKNOWN
    if not tools:
        return "(none)"
    lines: list[str] = []
    for t in tools[:_MAX_TOOLS]:
        if isinstance(t, str):
            lines.append(t)
            continue
        first = next((x.strip() for x in t.description.splitlines() if x.strip()), "")
        if len(first) > _MAX_DESCRIPTION:
            first = first[: _MAX_DESCRIPTION - 1] + "…"
        lines.append(f"{t.name}: {first}" if first else t.name)
    if len(tools) > _MAX_TOOLS:
        lines.append(f"... and {len(tools) - _MAX_TOOLS} more tools")
    return "\n".join(lines)


__all__ = [
    "TOOLS_UNKNOWN",
    "offered_tools",
    "tools_text",
]
