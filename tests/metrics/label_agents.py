"""python: agents that report the route / skill / intents they chose (``labels`` in the reply)."""

from __future__ import annotations

from typing import Any

from agentgauge.schema import Message, ToolSpec


def _topic(messages: list[Message]) -> str:
    text = next((m.content or "" for m in messages if m.role == "user"), "")
    return "weather" if "weather" in text.lower() else "billing"


def router(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    """Reports the route its keyword router picked, the skill behind it and the intent."""
    topic = _topic(messages)
    return {
        "text": f"Routed to {topic}.",
        "labels": {"route": topic, "skill": f"{topic}_skill", "intents": [topic]},
    }


def misrouter(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    """Sends everything to billing."""
    return {"text": "Routed to billing.", "labels": {"route": "billing", "intents": ["billing"]}}


def top_level_route(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    """Puts ``route`` beside ``text`` instead of inside ``labels`` (used to be dropped)."""
    return {"text": "Routed.", "route": _topic(messages)}


def typo(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    """``tool_call`` for ``tool_calls``: the call used to vanish without a trace."""
    return {"tool_call": [{"name": "get_weather", "arguments": {}}]}


def silent(messages: list[Message], tools: list[ToolSpec]) -> str:
    """Reports nothing about its routing."""
    return "Done."
