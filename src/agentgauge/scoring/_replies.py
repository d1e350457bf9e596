"""What scorers read from a case and its transcript (the question, the replies, the tool calls and
results), and how a scorer records a judge that gave no verdict.

Shared by the model-free extra scorers here and the judge scorers in :mod:`agentgauge.judges`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..schema import Case, CaseResult, Message, Score, ToolCall

__all__ = [
    "JUDGE_ERROR",
    "agent_calls",
    "all_replies",
    "final_text",
    "is_judge_error",
    "judge_error_score",
    "question",
    "record_judge_error",
    "system_prompt",
    "tokens",
    "tool_messages",
    "tool_results_text",
    "user_texts",
]

#: the prefix of every judge-error explanation (the runner records such a case as ``error``)
JUDGE_ERROR = "judge error: "
_WORD_RE = re.compile(r"\d+(?:\.\d+)?|[a-z0-9]+(?:'[a-z]+)?")


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (thousands separators removed first)."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text.lower())
    return _WORD_RE.findall(text)


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
