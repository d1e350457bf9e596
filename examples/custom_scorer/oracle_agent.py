"""Two agents for the example: ``agent`` does it right; ``careless`` hides the delay."""

from __future__ import annotations

import json
import re
from typing import Any

from agentgauge.schema import ToolCall


def _order_id(messages: list[Any]) -> str:
    text = " ".join(m.content or "" for m in messages if m.role == "user")
    match = re.search(r"\b[A-Z]-\d+\b", text)
    return match.group(0) if match else ""


def agent(messages: list[Any], tools: list[Any]) -> Any:
    results = [m for m in messages if m.role == "tool"]
    if not results:
        return ToolCall(name="lookup_order", arguments={"order_id": _order_id(messages)})
    order = json.loads(results[-1].content or "{}")
    return (
        f"Sorry for the wait: order {order['order_id']} is {order['status']}. "
        f"It should arrive on {order['eta']}."
    )


def careless(messages: list[Any], tools: list[Any]) -> Any:
    if not any(m.role == "tool" for m in messages):
        return ToolCall(name="lookup_order", arguments={"order_id": _order_id(messages)})
    return "Your order is on its way, I guarantee it arrives soon!"
