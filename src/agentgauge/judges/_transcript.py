"""What scorers read from a case and its transcript: the question, the reply, the tool results."""

from __future__ import annotations

from collections.abc import Sequence

from ..schema import Case, CaseResult, Message, Score, ToolCall, ToolSpec

#: the prefix of every judge-error explanation (the runner records such a case as ``error``)
JUDGE_ERROR = "judge error: "
#: at most this many offered tools are listed to a judge, and this much of each description
_MAX_TOOLS = 40
_MAX_DESCRIPTION = 160
#: what a judge is shown when the tools on offer are not known (rather than "(none)")
TOOLS_UNKNOWN = "(not known: the scorer was not given the suite's tools)"


def question(case: Case) -> str:
    """The user message the final reply answers (the last scripted turn, else the input)."""
    if case.turns:
        return case.turns[-1].user
    if isinstance(case.input, str):
        return case.input
    users = [m.content or "" for m in case.input if m.role == "user"]
    return users[-1] if users else ""


def user_texts(case: Case) -> list[str]:
    """Every user message of the case (sources of numbers the user gave)."""
    out = (
        [case.input]
        if isinstance(case.input, str)
        else [m.content or "" for m in case.input if m.role == "user"]
    )
    return out + [t.user for t in case.turns]


def system_prompt(case: Case, result: CaseResult | None) -> str | None:
    if case.system:
        return case.system
    if result is not None:
        for m in result.messages:
            if m.role == "system" and m.content:
                return m.content
    return None


def final_text(result: CaseResult | None, turns: Sequence[Sequence[Message]]) -> str:
    """The agent's last text reply."""
    if result is not None and result.text:
        return result.text
    for turn in reversed(turns):
        for m in reversed(turn):
            if m.role == "assistant" and m.content:
                return m.content
    return ""


def all_replies(turns: Sequence[Sequence[Message]]) -> list[str]:
    return [m.content for turn in turns for m in turn if m.role == "assistant" and m.content]


def tool_messages(turns: Sequence[Sequence[Message]]) -> list[Message]:
    return [m for turn in turns for m in turn if m.role == "tool"]


def tool_results_text(turns: Sequence[Sequence[Message]]) -> str:
    """Tool results as ``name: content`` lines, in order."""
    return "\n".join(f"{m.name or 'tool'}: {m.content or ''}" for m in tool_messages(turns))


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


def agent_calls(turns: Sequence[Sequence[Message]]) -> list[ToolCall]:
    return [c for turn in turns for m in turn if m.role == "assistant" for c in m.tool_calls]


def judge_error_score(name: str, problem: str) -> Score:
    """A score that records a judge failure: neither pass nor fail."""
    return Score(name=name, value=0.0, passed=None, explanation=JUDGE_ERROR + problem)


def record_judge_error(result: CaseResult, score: Score) -> None:
    """Mark the case as ``error`` (a judge failure is neither a pass nor a fail)."""
    result.status = "error"
    reason = f"{score.name}: {score.explanation}"
    result.error = f"{result.error}\n{reason}" if result.error else reason
    result.explanation = f"{result.explanation}\n{reason}" if result.explanation else reason


def is_judge_error(score: Score) -> bool:
    return score.passed is None and score.explanation.startswith(JUDGE_ERROR)


__all__ = [
    "JUDGE_ERROR",
    "TOOLS_UNKNOWN",
    "agent_calls",
    "all_replies",
    "final_text",
    "is_judge_error",
    "judge_error_score",
    "offered_tools",
    "question",
    "record_judge_error",
    "system_prompt",
    "tool_messages",
    "tool_results_text",
    "tools_text",
    "user_texts",
]
