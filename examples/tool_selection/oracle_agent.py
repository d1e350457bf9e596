"""A scripted correct agent for the tool-selection suite: every case should pass.

Not an AI: ``oracle_plan.json`` (written by ``make_cases.py``) holds, for each request, the
right first move (a call, a direct answer, a question or a refusal) and the reply after the tool
answers. ``search_everything`` is a wrong agent (it sends every request to ``search_web``) that
the tests use to show the gates fail.

    agentgauge run examples/tool_selection --judge mock:judge \\
        --agent python:examples/tool_selection/oracle_agent.py:agent
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgauge.schema import Message, ToolCall, ToolSpec

PLAN: dict[str, list[dict[str, Any]]] = json.loads(
    Path(__file__).with_name("oracle_plan.json").read_text(encoding="utf-8")
)


def agent(messages: list[Message], tools: list[ToolSpec]) -> str | list[ToolCall]:
    """The planned move for this request: the first one, or the reply after a tool result."""
    user = next(m for m in reversed(messages) if m.role == "user")
    plan = PLAN.get(user.content or "")
    if not plan:
        return "Sorry, I can't help with that."
    move = plan[1 if messages[-1].role == "tool" and len(plan) > 1 else 0]
    if "text" in move:
        return str(move["text"])
    return [ToolCall(name=c["name"], arguments=c["arguments"]) for c in move["calls"]]


def search_everything(messages: list[Message], tools: list[ToolSpec]) -> str | list[ToolCall]:
    """A wrong agent: every request goes to the web search."""
    if messages[-1].role == "tool":
        return "Here is what the web says."
    return [ToolCall(name="search_web", arguments={"query": messages[-1].content or ""})]
