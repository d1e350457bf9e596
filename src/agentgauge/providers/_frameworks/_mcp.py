"""A suite's ``mcp_servers`` attached to a framework agent: what every adapter that can attach
them shares (the framework itself connects to the server and calls its tools, client side)."""

from __future__ import annotations

from collections.abc import Mapping

from ...schema import JsonValue, Message
from .._base import McpConnector

__all__ = ["failed", "mark_mcp", "mcp_headers", "text_of"]


def mcp_headers(server: McpConnector) -> dict[str, str]:
    """The HTTP headers of a connection to ``server``: its token as a bearer token."""
    return {"Authorization": f"Bearer {server.token}"} if server.token is not None else {}


def mark_mcp(message: Message, servers: Mapping[str, str]) -> Message:
    """``message`` with every call of a tool of ``servers`` (tool name -> server name) marked as
    an MCP call on that server."""
    if not servers or not any(c.name in servers for c in message.tool_calls):
        return message
    calls = [
        c.model_copy(update={"mcp": True, "mcp_server": servers[c.name]})
        if c.name in servers
        else c
        for c in message.tool_calls
    ]
    return message.model_copy(update={"tool_calls": calls})


def text_of(value: JsonValue) -> JsonValue:
    """An MCP tool's content as the framework hands it over, its text blocks as plain text
    (``{"type": "text", "text": ...}`` or a list of them); any other value unchanged."""
    blocks = value if isinstance(value, list) else [value]
    texts = [
        b["text"]
        for b in blocks
        if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    if blocks and len(texts) == len(blocks):
        return "".join(str(t) for t in texts)
    return value


def failed(value: JsonValue) -> JsonValue:
    """The result of a call the server answered with ``isError``, as agentgauge writes a failed
    call's result (``{"error": text}``; the runner records the error)."""
    text = text_of(value)
    return {"error": text if isinstance(text, str) and text else "the MCP tool failed"}
