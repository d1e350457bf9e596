"""Small agents and suites for the simulated-user tests: real runs, offline."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agentgauge.io import iter_results
from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import CaseResult, Message, Suite, ToolCall

ORDER_TOOL = {
    "name": "get_order",
    "description": "Look up an order by its number",
    "parameters": {
        "type": "object",
        "properties": {"order_id": {"type": "string"}},
        "required": ["order_id"],
    },
    "simulation": {"result": {"status": "shipped"}},
}

ORDER_USER: dict[str, Any] = {
    "goal": "Find out where order A7 is.",
    "facts": {"order_id": {"value": "A7", "asked_by": ["order number"], "pattern": r"A\d+"}},
    "rules": [{"when": ["shipped"], "say": "Great, thanks!", "end": True}],
    "max_turns": 4,
}

CLARIFY_CASE: dict[str, Any] = {
    "id": "clarify-order",
    "category": "clarify",
    "input": "Where is my order?",
    "expect": {"tool_calls": [{"name": "get_order", "arguments": {"order_id": "A7"}}]},
    "user": ORDER_USER,
}


def user_texts(request: ModelRequest) -> list[str]:
    return [m.content or "" for m in request.messages if m.role == "user"]


def reply(text: str) -> ModelResponse:
    return ModelResponse(message=Message(role="assistant", content=text))


def call(name: str, **arguments: Any) -> ModelResponse:
    return ModelResponse(
        message=Message(role="assistant", tool_calls=[ToolCall(name=name, arguments=arguments)])
    )


class OrderAgent:
    """Asks for the order number, then looks it up (``use_answer``) or a guess, and reports."""

    def __init__(self, *, ask: bool = True, use_answer: bool = True) -> None:
        self.name = f"python:order-agent-{ask}-{use_answer}"
        self.ask = ask
        self.use_answer = use_answer

    async def generate(self, request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if last.role == "tool":
            return reply("Your order has shipped.")
        said = user_texts(request)
        found = re.search(r"\bA\d+\b", said[-1])
        if found is None and self.ask:
            return reply("Sure — what is your order number?")
        order = found.group(0) if found is not None and self.use_answer else "A1"
        return call("get_order", order_id=order)


class MemoryAgent:
    """Chats; asked for the account number, it answers from the whole conversation
    (``remember``) or only from the last message."""

    def __init__(self, *, remember: bool) -> None:
        self.name = f"python:memory-agent-{remember}"
        self.remember = remember

    async def generate(self, request: ModelRequest) -> ModelResponse:
        said = user_texts(request)
        if "account number" in said[-1] and "again" in said[-1]:
            seen = " ".join(said) if self.remember else said[-1]
            found = re.search(r"\b\d{5}\b", seen)
            return reply(f"Your account number is {found.group(0)}." if found else "I don't know.")
        return reply("Happy to help with that. Anything else?")


def suite_of(cases: list[dict[str, Any]], **extra: Any) -> Suite:
    return Suite.model_validate({"name": "users", "tools": [ORDER_TOOL], "cases": cases, **extra})


def run(tmp_path: Path, suite: Suite, agent: Any, **kw: Any) -> list[CaseResult]:
    kw.setdefault("cache", False)
    config = RunConfig(progress=False, **kw)
    run_suite(suite, config, tmp_path, provider=agent)
    return sorted(iter_results(tmp_path), key=lambda r: (r.case_id, r.trial))
