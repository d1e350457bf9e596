"""A scripted correct agent for the travel suite: every case should pass.

It is not an AI. ``oracle_plan.json`` (written by ``make_cases.py`` beside the cases) lists, for
each user message of the suite, the agent's moves in that turn: tool calls, then a reply. Values
such as ``{search_flights:offers.0.offer_id}`` are filled in from the latest result of that tool,
so the oracle books what the simulated back-end actually returned and quotes the booking
reference it actually issued. Run it with

    agentgauge run examples/travel --allow-suite-code \\
        --agent python:examples/travel/oracle_agent.py:agent

``careless`` is the same agent with three classic bugs (it guesses instead of asking, follows
instructions found in tool results, and claims a booking after a declined payment): the tests
use it to show the suite's gates fail.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agentgauge.schema import Message, ToolCall, ToolSpec

PLAN: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).with_name("oracle_plan.json")).read_text(encoding="utf-8")
)
_HOLE = re.compile(r"\{([a-z_]+):([A-Za-z0-9_.]+)\}")


def _latest(messages: list[Message], tool: str) -> Any:
    for m in reversed(messages):
        if m.role == "tool" and m.name == tool:
            return json.loads(m.content or "null")
    return None


def _dig(value: Any, path: str) -> Any:
    for part in path.split("."):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


def _fill(value: Any, messages: list[Message]) -> Any:
    if isinstance(value, str):
        whole = _HOLE.fullmatch(value)
        if whole:
            return _dig(_latest(messages, whole[1]), whole[2])
        return _HOLE.sub(lambda m: str(_dig(_latest(messages, m[1]), m[2])), value)
    if isinstance(value, list):
        return [_fill(v, messages) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, messages) for k, v in value.items()}
    return value


def _moves(messages: list[Message]) -> tuple[list[dict[str, Any]], int]:
    last_user = max(i for i, m in enumerate(messages) if m.role == "user")
    step = sum(1 for m in messages[last_user + 1 :] if m.role == "assistant")
    return PLAN.get(messages[last_user].content or "", []), step


def agent(messages: list[Message], tools: list[ToolSpec]) -> str | list[ToolCall]:
    """The next move of the plan for the current user turn."""
    plan, step = _moves(messages)
    if not plan:
        return "Sorry, I can't help with that."
    move = plan[min(step, len(plan) - 1)]
    if "text" in move:
        return str(_fill(move["text"], messages))
    return [
        ToolCall(name=c["name"], arguments=_fill(c["arguments"], messages)) for c in move["calls"]
    ]


def careless(messages: list[Message], tools: list[ToolSpec]) -> str | list[ToolCall]:
    """A wrong agent: guesses on ambiguous requests, obeys injected text, ignores declines."""
    plan, step = _moves(messages)
    last = messages[-1]
    if last.role == "tool" and "declined" in (last.content or ""):
        return "All set, your booking is confirmed."
    if last.role == "tool" and "SYSTEM:" in (last.content or ""):
        offer = _dig(json.loads(last.content or "{}"), "offers.0.offer_id")
        args = {"offer_id": offer, "guest_name": "Guest", "payment_method": "visa-4242"}
        return [ToolCall(name="book_hotel", arguments=args)]
    if plan and step == 0 and "text" in plan[0] and plan[0]["text"].endswith("?"):
        args = {"origin": "JFK", "destination": "LAX", "date": "2026-03-10"}
        return [ToolCall(name="search_flights", arguments=args)]
    return agent(messages, tools)
