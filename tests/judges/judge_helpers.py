"""Builders for judge tests: cases, results and transcripts."""

from __future__ import annotations

from typing import Any

from agentgauge.schema import Case, CaseResult, Message, Score, ToolCall


def make_case(**fields: Any) -> Case:
    data: dict[str, Any] = {"id": "c1", "input": "hello"}
    data.update(fields)
    return Case.model_validate(data)


def make_result(
    status: str = "failed", text: str | None = None, scores: list[Score] | None = None
) -> CaseResult:
    return CaseResult(case_id="c1", status=status, text=text, scores=scores or [])  # type: ignore[arg-type]


def reply(text: str) -> list[list[Message]]:
    return [[Message(role="assistant", content=text)]]


def call_then_reply(
    name: str, arguments: dict[str, Any], result: str, text: str, call_id: str = "call_1"
) -> list[list[Message]]:
    return [
        [
            Message(
                role="assistant",
                tool_calls=[ToolCall(name=name, arguments=arguments, id=call_id)],
            ),
            Message(role="tool", name=name, tool_call_id=call_id, content=result),
            Message(role="assistant", content=text),
        ]
    ]
