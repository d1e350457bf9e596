"""A small shop back-end as a declarative world, and scripted agents that act on it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentgauge.providers import ModelRequest
from agentgauge.schema import Suite, ToolCall
from agentgauge.testing import MockProvider


def _tool(name: str, **params: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": name.replace("_", " "),
        "parameters": {
            "type": "object",
            "properties": {p: {"type": t} for p, t in params.items()},
            "required": list(params),
        },
    }


TOOLS = [
    _tool("get_order", order_id="string"),
    _tool("find_orders", customer="string"),
    _tool("cancel_order", order_id="string"),
    _tool("update_address", order_id="string", address="string"),
    _tool("issue_refund", order_id="string", amount="number"),
]

STATE: dict[str, Any] = {
    "orders": {
        "A1": {"customer": "ann", "status": "pending", "total": 30, "address": "1 Elm St"},
        "A2": {"customer": "ann", "status": "shipped", "total": 50, "address": "1 Elm St"},
        "A3": {"customer": "bob", "status": "pending", "total": 20, "address": "9 Oak Rd"},
    },
    "refunds": {},
}

OPERATIONS: dict[str, Any] = {
    "get_order": {"op": "get", "collection": "orders", "key": "order_id"},
    "find_orders": {"op": "find", "collection": "orders", "fields": {"customer": "customer"}},
    "cancel_order": {
        "op": "update",
        "collection": "orders",
        "key": "order_id",
        "fields": {},
        "set": {"status": "cancelled"},
        "require": {"status": "pending"},
    },
    "update_address": {"op": "update", "collection": "orders", "key": "order_id"},
    "issue_refund": {"op": "insert", "collection": "refunds"},
}


def shop_suite(cases: list[dict[str, Any]], **extra: Any) -> Suite:
    data: dict[str, Any] = {
        "name": "shop",
        "tools": TOOLS,
        "world": {"state": STATE, "operations": OPERATIONS},
        "cases": cases,
    }
    data.update(extra)
    return Suite.model_validate(data)


CANCEL_A1: dict[str, Any] = {
    "id": "cancel-a1",
    "input": "Please cancel my order A1.",
    "expect": {
        "tool_calls": [{"name": "cancel_order", "arguments": {"order_id": "A1"}}],
        "order": "superset",
        "state": {
            "checks": [{"path": "orders.A1.status", "equals": "cancelled"}],
            "unchanged": ["orders.A2", "orders.A3", "refunds"],
        },
    },
}


def script(*steps: str | ToolCall | Sequence[ToolCall]) -> Callable[[ModelRequest], Any]:
    """An agent that plays ``steps`` in order, one per model call of the case (then repeats
    the last): each case gets its own count from its number of assistant messages so far."""

    def agent(request: ModelRequest) -> Any:
        done = sum(1 for m in request.messages if m.role == "assistant")
        return steps[min(done, len(steps) - 1)]

    return agent


def mock(fn: Callable[[ModelRequest], Any], name: str = "mock:shop") -> MockProvider:
    return MockProvider([fn], repeat_last=True, name=name)


def call(tool: str, /, **args: Any) -> ToolCall:
    return ToolCall(name=tool, arguments=args)


def write_shop_suite(folder: Path, cases: list[dict[str, Any]], **extra: Any) -> Path:
    """The shop suite as a YAML file in ``folder``."""
    import yaml

    data: dict[str, Any] = {
        "name": "shop",
        "tools": TOOLS,
        "world": {"state": STATE, "operations": OPERATIONS},
        "cases": cases,
    }
    data.update(extra)
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path
