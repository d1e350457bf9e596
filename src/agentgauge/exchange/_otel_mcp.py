"""Spans of MCP tool calls in a trace, and the mark they put on the conversation's calls.

The OpenTelemetry semantic conventions for MCP (``gen_ai/mcp.md``, Development status) describe
a client span per MCP request: ``mcp.method.name`` (``tools/call`` for a tool call),
``gen_ai.tool.name``, ``gen_ai.operation.name: execute_tool``, named ``tools/call {tool}``, with
``jsonrpc.request.id``, ``mcp.session.id``, ``mcp.protocol.version``. A span that says it is a
``tools/call`` (or agentgauge's own export: ``agentgauge.mcp.server``; ``gen_ai.tool.type: mcp``,
which some platforms write) marks the call it made: by ``gen_ai.tool.call.id`` (its own, or its
parent ``execute_tool`` span's: an agent framework's tool span wrapping the MCP client's), else
the first unmarked call of the same tool after the last one marked. An MCP client span nested in
an ``execute_tool`` span is that step, not a second one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from ..schema import Message
from ._otlp import Span

__all__ = ["MCP_TOOL_CALL", "is_mcp_tool_span", "mark_mcp_calls", "mcp_tool_name", "nested_in_tool"]

#: ``mcp.method.name`` of a tool call
MCP_TOOL_CALL: Final = "tools/call"

Operation = Callable[[Span], str | None]


def is_mcp_tool_span(span: Span) -> bool:
    """Whether ``span`` records a call of an MCP server's tool."""
    a = span.attributes
    return (
        a.get("mcp.method.name") == MCP_TOOL_CALL
        or isinstance(a.get("agentgauge.mcp.server"), str)
        or a.get("gen_ai.tool.type") == "mcp"
    )


def mcp_tool_name(span: Span) -> str | None:
    """The tool an MCP span called: ``gen_ai.tool.name``, else its name ``tools/call NAME``."""
    name = span.attributes.get("gen_ai.tool.name")
    if isinstance(name, str) and name:
        return name
    head, _, tool = span.name.partition(" ")
    return (tool.strip() or None) if head == MCP_TOOL_CALL else None


def nested_in_tool(span: Span, by_id: Mapping[str, Span], operation: Operation) -> Span | None:
    """The ``execute_tool`` span an MCP client span sits in (None: it is a step of its own)."""
    if not is_mcp_tool_span(span) or span.parent_id is None:
        return None
    parent = by_id.get(span.parent_id)
    if parent is not None and operation(parent) == "execute_tool" and parent is not span:
        return parent
    return None


def _call_id(span: Span) -> str | None:
    value = span.attributes.get("gen_ai.tool.call.id", span.attributes.get("tool_call.id"))
    return value if isinstance(value, str) and value else None


def _server(span: Span) -> str | None:
    value = span.attributes.get("agentgauge.mcp.server")
    return value if isinstance(value, str) and value else None


def mark_mcp_calls(
    messages: Sequence[Message], spans: Sequence[Span], operation: Operation
) -> list[Message]:
    """``messages`` with each call an MCP tool span records marked ``mcp`` (spans in time
    order; messages unchanged when no span is an MCP tool call)."""
    mcp_spans = [s for s in spans if is_mcp_tool_span(s)]
    if not mcp_spans:
        return list(messages)
    by_id = {s.span_id: s for s in spans}
    slots = [(i, j) for i, m in enumerate(messages) for j, _ in enumerate(m.tool_calls)]
    by_call = {
        messages[i].tool_calls[j].id: (i, j) for i, j in slots if messages[i].tool_calls[j].id
    }
    marked: dict[tuple[int, int], str | None] = {}
    last = -1
    for span in mcp_spans:
        parent = nested_in_tool(span, by_id, operation)
        call_id = _call_id(span) or (_call_id(parent) if parent is not None else None)
        slot = by_call.get(call_id) if call_id is not None else None
        if slot is None:
            name = mcp_tool_name(span)
            slot = next(
                (
                    (i, j)
                    for n, (i, j) in enumerate(slots)
                    if n > last and (i, j) not in marked and messages[i].tool_calls[j].name == name
                ),
                None,
            )
        if slot is None:
            continue
        last = max(last, slots.index(slot))
        marked[slot] = _server(span) or (_server(parent) if parent is not None else None)
    out = list(messages)
    for (i, j), server in marked.items():
        calls = list(out[i].tool_calls)
        calls[j] = calls[j].model_copy(update={"mcp": True, "mcp_server": server})
        out[i] = out[i].model_copy(update={"tool_calls": calls})
    return out
