"""Small hand-written agents for examples/users: one that does it right, and three that fail in
the ways the simulated users are there to catch. No model is involved.

    agentgauge run examples/users --agent python:examples/users/agent.py:agent --allow-suite-code

``guesser`` looks an order up without asking which one, ``ignorer`` asks and then uses another
number, ``forgetful`` answers from the last message only.
"""

from __future__ import annotations

import json
import re

from agentgauge.schema import Message, ToolCall, ToolSpec

ORDER = re.compile(r"\b[A-C]\d\b")


def _said(messages: list[Message]) -> list[str]:
    return [m.content or "" for m in messages if m.role == "user"]


def _after_tool(last: Message, messages: list[Message]) -> str:
    result = json.loads(last.content or "null")
    if isinstance(result, dict) and "error" in result:
        return f"Sorry, that did not work: {result['error']}"
    call = next(m for m in reversed(messages) if m.role == "assistant" and m.tool_calls)
    if call.tool_calls[0].name == "cancel_order":
        return f"Order {result['id']} is cancelled."
    return f"Order {result['id']} is {result['status']} and arrives {result['eta']}."


def _reply(
    messages: list[Message], *, ask: bool, use_answer: bool, remember: bool
) -> str | ToolCall:
    last = messages[-1]
    if last.role == "tool":
        return _after_tool(last, messages)
    said = _said(messages)
    text = said[-1].lower()
    if "account number" in text and "again" in text:
        seen = " ".join(said) if remember else said[-1]
        found = re.search(r"\b\d{5}\b", seen)
        return f"Your account number is {found.group(0)}." if found else "I don't know it, sorry."
    if "pay" in " ".join(said).lower():
        return "I have sent a secure payment link to your email."
    wants_cancel = "cancel" in " ".join(said).lower()
    order = ORDER.search(said[-1])
    if order is None and not (wants_cancel or "order" in text):
        return "Happy to help. Anything else?"
    if order is None and ask:
        return "Sure. Which order number is it?"
    order_id = order.group(0) if order is not None and use_answer else "C9"
    return ToolCall(name="cancel_order" if wants_cancel else "get_order",
                    arguments={"order_id": order_id})  # fmt: skip


def agent(messages: list[Message], tools: list[ToolSpec]) -> str | ToolCall:
    """Asks for what it needs, uses the answer, remembers the conversation."""
    return _reply(messages, ask=True, use_answer=True, remember=True)


def guesser(messages: list[Message], tools: list[ToolSpec]) -> str | ToolCall:
    return _reply(messages, ask=False, use_answer=True, remember=True)


def ignorer(messages: list[Message], tools: list[ToolSpec]) -> str | ToolCall:
    return _reply(messages, ask=True, use_answer=False, remember=True)


def forgetful(messages: list[Message], tools: list[ToolSpec]) -> str | ToolCall:
    return _reply(messages, ask=True, use_answer=True, remember=False)
