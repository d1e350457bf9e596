"""python: agents of the module-pairwise tests: every case passes, the reported route differs.

A case's input is ``qN``; ``wrong_8`` routes the first eight of them to the knowledge base (the
cases expect ``skill``), ``wrong_2`` the first two; both report the right skill each time (the
cascade rule excludes it where the route was wrong)."""

from __future__ import annotations

from typing import Any

from agentgauge.schema import Message, ToolSpec


def _reply(messages: list[Message], wrong_below: int) -> dict[str, Any]:
    text = next((m.content or "" for m in messages if m.role == "user"), "q0")
    n = int(text.removeprefix("q"))
    route = "knowledge_base" if n < wrong_below else "skill"
    return {"text": "ok", "labels": {"route": route, "skill": "billing"}}


def right(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    return _reply(messages, 0)


def wrong_8(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    return _reply(messages, 8)


def wrong_2(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    return _reply(messages, 2)


def kb_then_answer(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    """Routes to the knowledge base with its search call, then reports what it retrieved and
    that it handed off, with its final reply: two labelled responses in one case."""
    if messages[-1].role != "tool":
        return {
            "tool_calls": [{"name": "search_kb", "arguments": {"query": "esim"}}],
            "labels": {"route": "knowledge_base"},
        }
    return {
        "text": "ok, a person will call you",
        "labels": {"knowledge": ["kb-esim", "kb-plans"], "fallback": True},
    }


def bad_knowledge(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    return {"text": "ok", "labels": {"knowledge": "kb-esim"}}


def bad_fallback(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    return {"text": "ok", "labels": {"fallback": "yes"}}
