"""A scripted correct agent for the module suite: every case passes, and it reports its route,
skill and intents with each decision so routing, skill and intent accuracy can be measured.

Not an AI: ``oracle_plan.json`` (from ``make_cases.py``) lists each turn's moves. A reply is a
dict with ``labels`` (docs/providers.md, "Reporting route, skill and intents").
``kb_for_everything`` is a wrong router: it sends every request to the knowledge base and says
so, which the tests use to show the gates and the module metrics catch it.

    agentgauge run examples/modules --agent python:examples/modules/oracle_agent.py:agent
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgauge.schema import Message, ToolSpec

PLAN: dict[str, list[dict[str, Any]]] = json.loads(
    Path(__file__).with_name("oracle_plan.json").read_text(encoding="utf-8")
)


def agent(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    """The planned move of this turn, with the labels the router chose."""
    last_user = max(i for i, m in enumerate(messages) if m.role == "user")
    step = sum(1 for m in messages[last_user + 1 :] if m.role == "assistant")
    plan = PLAN.get(messages[last_user].content or "") or [{"text": "Sorry, I can't help."}]
    move = plan[min(step, len(plan) - 1)]
    reply: dict[str, Any] = (
        {"text": move["text"]} if "text" in move else {"tool_calls": move["calls"]}
    )
    if "labels" in move:
        reply["labels"] = move["labels"]
    return reply


def kb_for_everything(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    """A wrong router: every request is a knowledge-base question."""
    if messages[-1].role == "tool":
        return {"text": "According to the help centre: see the article above."}
    query = messages[-1].content or ""
    return {
        "tool_calls": [{"name": "search_kb", "arguments": {"query": query}}],
        "labels": {"route": "knowledge_base", "skill": "kb.faq", "intents": ["faq"]},
    }
