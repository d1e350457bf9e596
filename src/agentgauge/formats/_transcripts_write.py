"""Our messages written in the vendors' conversation formats (the inverse of ``_transcripts``).

Pure functions; each round-trips through :func:`agentgauge.io.messages_from_data`
(tests/io/test_transcripts.py). Anthropic and Gemini keep the system text outside the message
list, so they are written as a request body (``{"system", "messages"}``,
``{"system_instruction", "contents"}``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from ..schema import Message, ToolCall
from ._transcripts import TranscriptFormat

__all__ = ["messages_to_format"]


def _to_openai(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        d: dict[str, Any] = {"role": m.role, "content": m.content}
        if m.tool_calls:
            d["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {
                        "name": c.name,
                        "arguments": json.dumps(c.arguments, ensure_ascii=False),
                    },
                }
                for c in m.tool_calls
            ]
        if m.role == "tool":
            d["tool_call_id"] = m.tool_call_id
            if m.name is not None:
                d["name"] = m.name
        out.append(d)
    return out


def _mcp_results(messages: Sequence[Message]) -> dict[str, Message]:
    """The tool messages answering an MCP-marked call, by the call's id."""
    ids = {c.id for m in messages for c in m.tool_calls if c.mcp and c.id}
    return {
        m.tool_call_id: m
        for m in messages
        if m.role == "tool" and m.tool_call_id is not None and m.tool_call_id in ids
    }


def _error_text(content: str | None) -> str | None:
    """The error of a result written as ``{"error": ...}`` (how an MCP error is read), else
    None."""
    try:
        value = json.loads(content or "")
    except ValueError:
        return None
    if isinstance(value, dict) and set(value) == {"error"}:
        err = value["error"]
        return err if isinstance(err, str) else json.dumps(err, ensure_ascii=False)
    return None


def _mcp_call_item(c: ToolCall, result: Message | None) -> dict[str, Any]:
    """A Responses ``mcp_call`` item: the call and, in the same item, its output or error."""
    item: dict[str, Any] = {
        "type": "mcp_call",
        "id": c.id,
        "name": c.name,
        "arguments": json.dumps(c.arguments, ensure_ascii=False),
        "server_label": c.mcp_server or "",
    }
    if result is not None:
        error = _error_text(result.content)
        if error is not None:
            item["error"] = error
        else:
            item["output"] = result.content or ""
    return item


def _to_responses(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    mcp_results = _mcp_results(messages)
    for m in messages:
        if m.role == "tool" and m.tool_call_id in mcp_results:
            continue  # written inside its mcp_call item
        if m.role == "tool":
            out.append(
                {
                    "type": "function_call_output",
                    "call_id": m.tool_call_id,
                    "output": m.content or "",
                }
            )
            continue
        if m.content is not None:
            part = "output_text" if m.role == "assistant" else "input_text"
            out.append(
                {"type": "message", "role": m.role, "content": [{"type": part, "text": m.content}]}
            )
        out.extend(
            _mcp_call_item(c, mcp_results.get(c.id or ""))
            if c.mcp
            else {
                "type": "function_call",
                "call_id": c.id,
                "name": c.name,
                "arguments": json.dumps(c.arguments, ensure_ascii=False),
            }
            for c in m.tool_calls
        )
    return out


def _mcp_result_block(m: Message) -> dict[str, Any]:
    """An Anthropic ``mcp_tool_result`` block (it sits in the assistant's own message)."""
    error = _error_text(m.content)
    text = error if error is not None else (m.content or "")
    return {
        "type": "mcp_tool_result",
        "tool_use_id": m.tool_call_id,
        "is_error": error is not None,
        "content": [{"type": "text", "text": text}],
    }


def _tool_block(c: ToolCall) -> dict[str, Any]:
    if not c.mcp:
        return {"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
    block = {"type": "mcp_tool_use", "id": c.id, "name": c.name, "input": c.arguments}
    if c.mcp_server is not None:
        block["server_name"] = c.mcp_server
    return block


def _to_anthropic(messages: Sequence[Message]) -> dict[str, Any]:
    system = [m.content or "" for m in messages if m.role == "system"]
    out: list[dict[str, Any]] = []
    mcp_results = _mcp_results(messages)
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "tool" and m.tool_call_id in mcp_results:
            # the connector ran it inside the assistant's own message
            if out and out[-1]["role"] == "assistant":
                out[-1]["content"].append(_mcp_result_block(m))
            else:
                out.append({"role": "assistant", "content": [_mcp_result_block(m)]})
            continue
        if m.role == "tool":
            block = {
                "type": "tool_result",
                "tool_use_id": m.tool_call_id,
                "content": m.content or "",
            }
            if (
                out
                and out[-1]["role"] == "user"
                and out[-1]["content"][-1]["type"] == "tool_result"
            ):
                out[-1]["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
            continue
        blocks: list[dict[str, Any]] = []
        if m.content is not None:
            blocks.append({"type": "text", "text": m.content})
        blocks.extend(_tool_block(c) for c in m.tool_calls)
        if (
            m.role == "assistant"
            and out
            and out[-1]["role"] == "assistant"
            and out[-1]["content"][-1]["type"] == "mcp_tool_result"
        ):
            out[-1]["content"].extend(blocks)  # after the connector's results, one message
        else:
            out.append({"role": m.role, "content": blocks})
    body: dict[str, Any] = {"messages": out}
    if system:
        body["system"] = "\n".join(system)
    return body


def _to_gemini(messages: Sequence[Message]) -> dict[str, Any]:
    system = [m.content or "" for m in messages if m.role == "system"]
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "tool":
            try:
                response = json.loads(m.content or "null")
            except ValueError:
                response = m.content
            part = {
                "functionResponse": {"id": m.tool_call_id, "name": m.name, "response": response}
            }
            if out and out[-1]["role"] == "user" and "functionResponse" in out[-1]["parts"][-1]:
                out[-1]["parts"].append(part)
            else:
                out.append({"role": "user", "parts": [part]})
            continue
        parts: list[dict[str, Any]] = []
        if m.content is not None:
            parts.append({"text": m.content})
        parts.extend(
            {"functionCall": {"id": c.id, "name": c.name, "args": c.arguments}}
            for c in m.tool_calls
        )
        out.append({"role": "model" if m.role == "assistant" else "user", "parts": parts})
    body: dict[str, Any] = {"contents": out}
    if system:
        body["system_instruction"] = {"parts": [{"text": "\n".join(system)}]}
    return body


def _to_langchain(messages: Sequence[Message]) -> list[dict[str, Any]]:
    kinds = {"system": "system", "user": "human", "assistant": "ai", "tool": "tool"}
    out: list[dict[str, Any]] = []
    for m in messages:
        d: dict[str, Any] = {
            "type": kinds[m.role],
            "content": m.content if m.content is not None else "",
        }
        if m.role == "assistant":
            d["tool_calls"] = [
                {"name": c.name, "args": c.arguments, "id": c.id, "type": "tool_call"}
                for c in m.tool_calls
            ]
        if m.role == "tool":
            d["tool_call_id"] = m.tool_call_id
            d["name"] = m.name
        out.append(d)
    return out


def _otel_call(c: ToolCall) -> dict[str, Any]:
    """A call as a GenAI message part: a marked call as a ``server_tool_call`` of type
    ``mcp`` (the conventions' part for a tool the provider ran), else a ``tool_call``."""
    if not c.mcp:
        return {"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}
    detail: dict[str, Any] = {"type": "mcp", "arguments": c.arguments}
    if c.mcp_server is not None:
        detail["server_name"] = c.mcp_server
    return {"type": "server_tool_call", "id": c.id, "name": c.name, "server_tool_call": detail}


def _to_otel(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    mcp_results = _mcp_results(messages)
    for m in messages:
        if m.role == "tool":
            try:
                response: Any = json.loads(m.content or "null")
            except ValueError:
                response = m.content
            part = (
                {
                    "type": "server_tool_call_response",
                    "id": m.tool_call_id,
                    "server_tool_call_response": {"type": "mcp", "response": response},
                }
                if m.tool_call_id in mcp_results
                else {"type": "tool_call_response", "id": m.tool_call_id, "response": response}
            )
            out.append({"role": "tool", "parts": [part]})
            continue
        parts: list[dict[str, Any]] = []
        if m.content is not None:
            parts.append({"type": "text", "content": m.content})
        parts.extend(_otel_call(c) for c in m.tool_calls)
        out.append({"role": m.role, "parts": parts})
    return out


def messages_to_format(messages: Sequence[Message], fmt: TranscriptFormat) -> Any:
    """Our messages in ``fmt`` (Anthropic and Gemini: a request body with the system text)."""
    if fmt == "native":
        return [m.model_dump(mode="json", exclude_defaults=True) for m in messages]
    writers: dict[str, Callable[[Sequence[Message]], Any]] = {
        "openai": _to_openai,
        "openai-responses": _to_responses,
        "anthropic": _to_anthropic,
        "gemini": _to_gemini,
        "langchain": _to_langchain,
        "otel": _to_otel,
    }
    return writers[fmt](messages)
