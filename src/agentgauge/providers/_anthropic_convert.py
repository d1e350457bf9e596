"""Pure translation between neutral messages and Anthropic's Messages API."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson

from ..schema import Message, ToolCall, ToolSpec, Usage
from ._base import ModelRequest, ModelResponse
from ._common import parse_arguments, token_count
from ._connector import (
    MCP_BETA,
    MCP_BETA_TOOLSETS,
    anthropic_mcp_servers,
    anthropic_mcp_toolsets,
    mcp_result_block,
    mcp_result_message,
)
from ._openai_convert import with_call_ids

__all__ = [
    "RESPONSE_TOOL",
    "AnthropicStream",
    "anthropic_payload",
    "anthropic_response",
    "structured_reply",
]

#: the forced tool that carries a ``response_schema`` reply
RESPONSE_TOOL = "respond"

#: content blocks of the MCP connector (a request holding one goes to the beta API)
_CONNECTOR_BLOCKS = ("mcp_tool_use", "mcp_tool_result")

#: Anthropic requires max_tokens; used when the request does not set one
DEFAULT_MAX_TOKENS = 1024

_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
}


def anthropic_messages(messages: list[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """(system text, messages): tool results become ``tool_result`` blocks in a user turn and
    consecutive same-role turns are merged, as the API requires alternating roles."""
    system_parts: list[str] = []
    out: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    connector_ids: set[str] = set()  # calls the MCP connector made (sent back as its blocks)
    for m, ids, answered in with_call_ids(messages):
        if m.role == "system":
            system_parts.append(m.content or "")
        elif m.role == "tool" and answered in connector_ids:
            add("assistant", [mcp_result_block(answered, m.content)])
        elif m.role == "tool":
            add(
                "user",
                [{"type": "tool_result", "tool_use_id": answered, "content": m.content or ""}],
            )
        elif m.role == "assistant":
            blocks: list[dict[str, Any]] = []
            if m.content:
                blocks.append({"type": "text", "text": m.content})
            for cid, c in zip(ids, m.tool_calls, strict=True):
                if c.mcp and c.mcp_server is not None:
                    connector_ids.add(cid)
                    blocks.append(
                        {"type": "mcp_tool_use", "id": cid, "name": c.name,
                         "input": c.arguments, "server_name": c.mcp_server}
                    )  # fmt: skip
                else:
                    blocks.append(
                        {"type": "tool_use", "id": cid, "name": c.name, "input": c.arguments}
                    )
            if blocks:
                add("assistant", blocks)
        else:
            add("user", [{"type": "text", "text": m.content or ""}])
    return ("\n\n".join(system_parts) if system_parts else None), out


def anthropic_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
    ]


def anthropic_payload(
    request: ModelRequest, model: str, mcp_beta: str = MCP_BETA
) -> dict[str, Any]:
    """Keyword arguments of ``client.messages.create`` (the JSON body of ``POST /v1/messages``);
    ``mcp_beta``: the MCP connector's beta a request with servers or connector blocks names."""
    system, messages = anthropic_messages(request.messages)
    config = request.config
    payload: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS,
    }
    if system:
        payload["system"] = system
    if request.tools:
        payload["tools"] = anthropic_tools(request.tools)
    if config.response_schema is not None:
        # Anthropic's constrained output: one forced tool whose input is the reply
        payload["tools"] = [
            *payload.get("tools", []),
            {
                "name": RESPONSE_TOOL,
                "description": "Give your reply as this tool's input.",
                "input_schema": config.response_schema,
            },
        ]
        payload["tool_choice"] = {"type": "tool", "name": RESPONSE_TOOL}
    if config.temperature is not None:
        payload["temperature"] = config.temperature
    if config.mcp_servers:
        payload["mcp_servers"] = anthropic_mcp_servers(config.mcp_servers, mcp_beta)
        if mcp_beta == MCP_BETA_TOOLSETS:
            toolsets = anthropic_mcp_toolsets(config.mcp_servers)
            payload["tools"] = [*payload.get("tools", []), *toolsets]
    if config.mcp_servers or any(
        b.get("type") in _CONNECTOR_BLOCKS for m in messages for b in m["content"]
    ):
        payload["betas"] = [mcp_beta]  # the connector's blocks exist only in the beta API
    return payload


def structured_reply(response: ModelResponse) -> ModelResponse:
    """A reply to a ``response_schema`` request: the forced tool's input as the message text."""
    for call in response.message.tool_calls:
        if call.name == RESPONSE_TOOL:
            text = orjson.dumps(call.arguments).decode()
            message = Message(role="assistant", content=text)
            return replace(response, message=message, finish_reason="stop")
    return response


def _finish(reason: Any) -> str | None:
    return None if reason is None else _FINISH.get(str(reason), str(reason))


def anthropic_response(body: dict[str, Any]) -> ModelResponse:
    """A ``message`` object (decoded JSON) in neutral form; what the MCP connector did inside
    it (``mcp_tool_use`` then ``mcp_tool_result`` blocks) comes out as ``server_steps``."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    steps: list[Message] = []
    names: dict[str, str] = {}
    for block in body.get("content") or []:
        kind = block.get("type")
        if kind == "text":
            texts.append(block.get("text") or "")
        elif kind in ("tool_use", "mcp_tool_use"):
            server = block.get("server_name") if kind == "mcp_tool_use" else None
            call = ToolCall(
                id=block.get("id"),
                name=block.get("name") or "",
                arguments=parse_arguments(block.get("input")),
                mcp=kind == "mcp_tool_use",
                mcp_server=server if isinstance(server, str) else None,
            )
            names[call.id or ""] = call.name
            calls.append(call)
        elif kind == "mcp_tool_result":
            if texts or calls:  # the text and the call before the result: the first step
                content = "".join(texts) if texts else None
                steps.append(Message(role="assistant", content=content, tool_calls=calls))
                texts, calls = [], []
            steps.append(mcp_result_message(block, names))
    usage = body.get("usage") or {}
    return ModelResponse(
        server_steps=tuple(steps),
        message=Message(
            role="assistant", content="".join(texts) if texts else None, tool_calls=calls
        ),
        usage=Usage(
            input_tokens=token_count(usage.get("input_tokens")),
            output_tokens=token_count(usage.get("output_tokens")),
        ),
        model=str(body.get("model") or ""),
        finish_reason=_finish(body.get("stop_reason")),
        response_id=body["id"] if isinstance(body.get("id"), str) and body["id"] else None,
    )


class AnthropicStream:
    """Accumulates Messages API stream events into one response."""

    def __init__(self) -> None:
        self.blocks: dict[int, dict[str, Any]] = {}
        self.input_tokens = 0
        self.output_tokens = 0
        self.model = ""
        self.response_id: str | None = None
        self.stop_reason: str | None = None

    def feed(self, event: dict[str, Any]) -> bool:
        """Add one event; True when it carried generated content."""
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message") or {}
            self.model = str(message.get("model") or "")
            self.response_id = str(message["id"]) if message.get("id") else None
            usage = message.get("usage") or {}
            self.input_tokens = token_count(usage.get("input_tokens"))
            self.output_tokens = token_count(usage.get("output_tokens"))
        elif kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            if block.get("type") in ("tool_use", "mcp_tool_use"):
                block["partial_json"] = ""
            self.blocks[int(event.get("index", len(self.blocks)))] = block
            return block.get("type") in ("tool_use", "mcp_tool_use") or bool(block.get("text"))
        elif kind == "content_block_delta":
            delta = event.get("delta") or {}
            block = self.blocks.setdefault(int(event.get("index", 0)), {"type": "text", "text": ""})
            if delta.get("type") == "text_delta":
                block["text"] = (block.get("text") or "") + (delta.get("text") or "")
                return bool(delta.get("text"))
            if delta.get("type") == "input_json_delta":
                block["partial_json"] = block.get("partial_json", "") + (
                    delta.get("partial_json") or ""
                )
                return True
        elif kind == "message_delta":
            self.stop_reason = (event.get("delta") or {}).get("stop_reason") or self.stop_reason
            usage = event.get("usage") or {}
            if usage.get("output_tokens") is not None:
                self.output_tokens = token_count(usage["output_tokens"])
        return False

    def result(self, ttft_ms: float | None) -> ModelResponse:
        content = []
        for _, block in sorted(self.blocks.items()):
            if block.get("type") in ("tool_use", "mcp_tool_use"):
                raw = block.pop("partial_json", None) or ""
                block = dict(block, input=parse_arguments(raw) if raw else block.get("input") or {})
            content.append(block)
        body = {
            "content": content,
            "id": self.response_id,
            "model": self.model,
            "stop_reason": self.stop_reason,
            "usage": {"input_tokens": self.input_tokens, "output_tokens": self.output_tokens},
        }
        out = anthropic_response(body)
        return replace(out, ttft_ms=ttft_ms)
