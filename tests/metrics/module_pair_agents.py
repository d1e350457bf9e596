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
