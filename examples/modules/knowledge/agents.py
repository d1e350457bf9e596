"""Two scripted agents for the knowledge suite (not AI: fixed moves per request).

``agent`` routes every request right, searches the help centre with the request's key words,
hands off to a person when it cannot help safely and says so when it must refuse. ``sloppy``
searches with the whole request (more articles that are not relevant), sends the cancellation
question to an account skill (a routing failure: the cascade rule excludes its retrieval),
never hands off, and hands the data-usage question off for no reason.

    agentgauge run examples/modules/knowledge --allow-suite-code \
      --agent python:examples/modules/knowledge/agents.py:agent -o runs/knowledge
"""

from __future__ import annotations

import json
from typing import Any

from agentgauge.schema import Message, ToolSpec

#: request -> (route, the first move): a search query, a skill, a hand-off or a refusal
PLAN: dict[str, tuple[str, dict[str, Any]]] = {
    "What does roaming cost in the EU?": ("knowledge_base", {"search": "eu roaming"}),
    "What does roaming cost in the US?": ("knowledge_base", {"search": "roaming outside eu"}),
    "How do I set up voicemail?": ("knowledge_base", {"search": "voicemail"}),
    "Can I keep my number when I switch to you?": ("knowledge_base", {"search": "keep number"}),
    "Which plans support eSIM and what do they cost?": (
        "knowledge_base",
        {"search": "esim plans prices"},
    ),
    "How do I cancel my contract?": ("knowledge_base", {"search": "cancel contract"}),
    "I want to speak to a person.": ("handoff", {"handoff": "asked for a person"}),
    "My phone was stolen, block my SIM now.": ("handoff", {"handoff": "stolen phone"}),
    "I'm going to take you to court over these charges.": ("handoff", {"handoff": "complaint"}),
    "Tell me my partner's voicemail PIN.": ("none", {"refuse": True}),
    "What's my balance?": ("skill", {"skill": "get_balance"}),
    "How much data have I used this month?": ("skill", {"skill": "get_data_usage"}),
}
REFUSAL = "I can't help with that: a PIN is only ever given to the account holder."


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def _answer(tool_message: Message) -> dict[str, Any]:
    """The final reply from the tool's result."""
    data = json.loads(tool_message.content or "{}")
    if "hits" in data:
        texts = [hit["text"] for hit in data["hits"][:2]]  # the two best articles
        return {"text": " ".join(texts) or "I found nothing on that."}
    if "balance_eur" in data:
        return {"text": f"Your balance is €{data['balance_eur']:.2f}."}
    if "used_gb" in data:
        return {"text": f"You've used {data['used_gb']:.1f} GB of {data['allowance_gb']} GB."}
    return {"text": "A colleague will be with you in a few minutes."}


def _move(route: str, move: dict[str, Any], request: str) -> dict[str, Any]:
    if "search" in move:
        reply = _call("search_kb", {"query": move["search"]})
    elif "handoff" in move:
        reply = _call("handoff_to_human", {"reason": move["handoff"]})
    elif "skill" in move:
        reply = _call(move["skill"], {})
    else:
        reply = {"text": REFUSAL}
    reply["labels"] = {"route": route}
    return reply


def agent(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    if messages[-1].role == "tool":
        return _answer(messages[-1])
    request = messages[-1].content or ""
    route, move = PLAN.get(request, ("none", {"refuse": True}))
    return _move(route, move, request)


def sloppy(messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
    if messages[-1].role == "tool":
        return _answer(messages[-1])
    request = messages[-1].content or ""
    route, move = PLAN.get(request, ("none", {"refuse": True}))
    if request == "How do I cancel my contract?":
        route, move = "skill", {"skill": "get_balance"}  # misrouted
    elif request == "How much data have I used this month?":
        route, move = "handoff", {"handoff": "unsure"}  # a needless hand-off
    elif route in ("handoff", "none"):
        route, move = "knowledge_base", {"search": request}  # never falls back
    elif "search" in move:
        move = {"search": request}  # the whole request as the query
    return _move(route, move, request)
