"""Remote MCP servers the vendor's API calls for the model, in each vendor's wire shape (pure).

Anthropic's MCP connector: ``mcp_servers=[{type: url, url, name, authorization_token?,
tool_configuration?}]`` on the beta Messages API (``anthropic-beta: mcp-client-2025-04-04``), or
with the newer beta ``mcp-client-2025-11-20`` the servers without ``tool_configuration`` and one
``{type: mcp_toolset, mcp_server_name, default_config?, configs?}`` entry per server in ``tools``
(the allow-list as every tool disabled but the listed ones); the reply holds ``mcp_tool_use`` and
``mcp_tool_result`` blocks in the assistant's own message, with either beta. The
Responses API: ``tools=[{type: mcp, server_label, server_url, require_approval: never,
allowed_tools?, authorization?}]``; the reply holds ``mcp_call`` items (the call with its
``output`` or ``error``) and ``mcp_list_tools`` items. Both come out as marked calls
(``ToolCall.mcp``, ``mcp_server``) in ``ModelResponse.server_steps``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..schema import Message, ToolCall
from ._base import McpConnector
from ._common import parse_arguments

__all__ = [
    "MCP_BETA",
    "MCP_BETAS",
    "MCP_BETA_TOOLSETS",
    "anthropic_mcp_servers",
    "anthropic_mcp_toolsets",
    "mcp_call_item",
    "mcp_call_steps",
    "mcp_result_block",
    "mcp_result_message",
    "responses_mcp_tools",
]

#: the beta of Anthropic's MCP connector with the ``mcp_servers`` request field (the default)
MCP_BETA: Final = "mcp-client-2025-04-04"
#: the newer beta: the servers' tools configured by ``mcp_toolset`` entries of ``tools``
MCP_BETA_TOOLSETS: Final = "mcp-client-2025-11-20"
#: the connector betas the ``anthropic:`` adapter can speak (``?mcp_beta=``)
MCP_BETAS: Final = (MCP_BETA, MCP_BETA_TOOLSETS)


def anthropic_mcp_servers(
    servers: Sequence[McpConnector], beta: str = MCP_BETA
) -> list[dict[str, Any]]:
    """The ``mcp_servers`` request field of Anthropic's MCP connector under ``beta``."""
    out: list[dict[str, Any]] = []
    for s in servers:
        entry: dict[str, Any] = {"type": "url", "url": s.url, "name": s.name}
        if s.token is not None:
            entry["authorization_token"] = s.token
        if s.tools and beta == MCP_BETA:
            entry["tool_configuration"] = {"enabled": True, "allowed_tools": list(s.tools)}
        out.append(entry)
    return out


def anthropic_mcp_toolsets(servers: Sequence[McpConnector]) -> list[dict[str, Any]]:
    """The ``mcp_toolset`` entries of ``tools`` under the ``mcp-client-2025-11-20`` beta: one per
    server; its allow-list as every tool disabled by default and each listed one enabled."""
    out: list[dict[str, Any]] = []
    for s in servers:
        entry: dict[str, Any] = {"type": "mcp_toolset", "mcp_server_name": s.name}
        if s.tools:
            entry["default_config"] = {"enabled": False}
            entry["configs"] = {name: {"enabled": True} for name in s.tools}
        out.append(entry)
    return out


def responses_mcp_tools(servers: Sequence[McpConnector]) -> list[dict[str, Any]]:
    """The Responses API's ``mcp`` tools (no approval asked: nobody here could give it)."""
    out: list[dict[str, Any]] = []
    for s in servers:
        tool: dict[str, Any] = {
            "type": "mcp",
            "server_label": s.name,
            "server_url": s.url,
            "require_approval": "never",
        }
        if s.token is not None:
            tool["authorization"] = s.token
        if s.tools:
            tool["allowed_tools"] = list(s.tools)
        out.append(tool)
    return out


def _error_json(text: str) -> str:
    return json.dumps({"error": text or "the MCP tool failed"}, ensure_ascii=False)


def _error_of(content: str | None) -> str | None:
    """The error text of a result read as ``{"error": ...}``, else None."""
    try:
        value = json.loads(content or "")
    except ValueError:
        return None
    if isinstance(value, dict) and set(value) == {"error"} and isinstance(value["error"], str):
        return value["error"]
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def mcp_result_message(block: Mapping[str, Any], names: Mapping[str, str]) -> Message:
    """An ``mcp_tool_result`` block as a tool message (an error as ``{"error": text}``)."""
    call_id = block.get("tool_use_id")
    call_id = call_id if isinstance(call_id, str) else None
    text = _text(block.get("content"))
    if block.get("is_error") is True:
        text = _error_json(text)
    return Message(role="tool", content=text, tool_call_id=call_id, name=names.get(call_id or ""))


def mcp_result_block(call_id: str | None, content: str | None) -> dict[str, Any]:
    """A tool message answering a connector call, sent back as its ``mcp_tool_result``."""
    error = _error_of(content)
    text = error if error is not None else (content or "")
    return {
        "type": "mcp_tool_result",
        "tool_use_id": call_id,
        "is_error": error is not None,
        "content": [{"type": "text", "text": text}],
    }


def mcp_call_steps(item: Mapping[str, Any]) -> list[Message]:
    """A Responses ``mcp_call`` output item: the marked call, then its output (or error)."""
    server = item.get("server_label")
    call_id = item.get("id")
    call = ToolCall(
        id=call_id if isinstance(call_id, str) else None,
        name=str(item.get("name") or ""),
        arguments=parse_arguments(item.get("arguments")),
        mcp=True,
        mcp_server=server if isinstance(server, str) else None,
    )
    steps = [Message(role="assistant", tool_calls=[call])]
    error, output = item.get("error"), item.get("output")
    if error:
        content: str | None = _error_json(error if isinstance(error, str) else _text(error))
    elif output is not None:
        content = _text(output)
    else:
        return steps  # not run (yet): no result
    steps.append(Message(role="tool", content=content, tool_call_id=call.id, name=call.name))
    return steps


def mcp_call_item(call: ToolCall, result: Message | None) -> dict[str, Any]:
    """A connector call of the history sent back as its ``mcp_call`` input item."""
    item: dict[str, Any] = {
        "type": "mcp_call",
        "id": call.id,
        "name": call.name,
        "arguments": json.dumps(call.arguments, ensure_ascii=False),
        "server_label": call.mcp_server,
    }
    if result is not None:
        error = _error_of(result.content)
        if error is not None:
            item["error"] = error
        else:
            item["output"] = result.content or ""
    return item
