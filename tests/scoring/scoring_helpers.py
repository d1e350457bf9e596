"""Small builders for scoring tests: transcripts from calls and text."""

from __future__ import annotations

import json
from typing import Any

from agentgauge.schema import Case, Message, ToolCall, ToolSpec
from agentgauge.scoring import CaseScore, ScoringConfig, score_case


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def reply(*calls: ToolCall, text: str | None = None) -> list[Message]:
    """One assistant message with these calls (and optional text)."""
    return [Message(role="assistant", content=text, tool_calls=list(calls))]


def result(name: str, value: Any, call_id: str | None = None) -> Message:
    return Message(role="tool", name=name, content=json.dumps(value), tool_call_id=call_id)


def tool(
    name: str, properties: dict[str, Any] | None = None, required: list[str] | None = None
) -> ToolSpec:
    params: dict[str, Any] = {"type": "object", "properties": properties or {}}
    if required is not None:
        params["required"] = required
    return ToolSpec(name=name, parameters=params)


def score(
    expect: dict[str, Any],
    messages: list[Message] | list[list[Message]],
    tools: list[ToolSpec] | None = None,
    config: ScoringConfig | None = None,
    **case_fields: Any,
) -> CaseScore:
    """Score one case. ``messages`` is one turn's messages, or a list of turns."""
    case_fields.setdefault("input", "question")
    case = Case(id="t", expect=expect, **case_fields)
    turns: list[list[Message]]
    if messages and isinstance(messages[0], list):
        turns = messages  # type: ignore[assignment]
    else:
        turns = [messages]  # type: ignore[list-item]
    tool_map = {t.name: t for t in tools or []}
    return score_case(case, turns, tool_map, config or ScoringConfig())


def by_name(cs: CaseScore, name: str) -> Any:
    for s in cs.scores:
        if s.name == name:
            return s
    raise KeyError(f"no score {name!r} in {[s.name for s in cs.scores]}")
