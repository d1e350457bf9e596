"""The per-format readers of conversations (see ``_transcripts`` for the formats and detection).

Each reader turns one vendor's message list into our :class:`~agentgauge.schema.Message` list
and raises :class:`TranscriptError` (the index of the bad message, a one-line reason).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

from ..errors import TranscriptError
from ..schema import JsonValue, Message, ToolCall

__all__ = ["MAX_MESSAGES", "READERS", "TranscriptError"]


#: the most messages one conversation may hold
MAX_MESSAGES: Final = 10_000
_NATIVE_KEYS: Final = frozenset({"role", "content", "tool_calls", "tool_call_id", "name"})
_NATIVE_CALL_KEYS: Final = frozenset({"name", "arguments", "id", "mcp", "mcp_server"})
#: a tuple, not a set: ``in`` compares by equality, so an unhashable ``type`` value is no crash
_SKIPPED_TYPES: Final = ("reasoning", "thinking", "redacted_thinking")
#: Responses API items about an MCP server that are no call (the tools listed, an approval
#: asked or given: the call itself, if made, is its own ``mcp_call`` item)
_MCP_METADATA: Final = ("mcp_list_tools", "mcp_approval_request", "mcp_approval_response")
_LC_TYPES: Final = {
    "human": "user",
    "humanmessage": "user",
    "humanmessagechunk": "user",
    "ai": "assistant",
    "aimessage": "assistant",
    "aimessagechunk": "assistant",
    "system": "system",
    "systemmessage": "system",
    "tool": "tool",
    "toolmessage": "tool",
    "toolmessagechunk": "tool",
}


# ------------------------------------------------------------------------------ small helpers


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def _json_text(value: Any) -> str | None:
    """Content as our messages hold it: text stays text, anything else becomes JSON."""
    if value is None or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _arguments(raw: Any, i: int | None, where: str) -> dict[str, JsonValue]:
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise TranscriptError(i, f"{where}: arguments are not valid JSON") from None
    if not isinstance(raw, dict):
        raise TranscriptError(i, f"{where}: arguments: expected an object, got {_kind(raw)}")
    return raw


def _opt_str(value: Any, i: int | None, where: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TranscriptError(i, f"{where}: expected a string, got {_kind(value)}")


def _text_of_parts(parts: Any, i: int | None, where: str, text_types: frozenset[str]) -> str | None:
    """Join the text parts of a content list (``None`` when there are none)."""
    if parts is None or isinstance(parts, str):
        return parts
    if not isinstance(parts, list):
        raise TranscriptError(i, f"{where}: expected a string or a list of parts")
    texts: list[str] = []
    for j, part in enumerate(parts):
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            raise TranscriptError(i, f"{where}[{j}]: expected a content part, got {_kind(part)}")
        kind = part.get("type")
        if kind in _SKIPPED_TYPES:
            continue
        if (
            not isinstance(kind, str)
            or kind not in text_types
            or not isinstance(part.get("text"), str)
        ):
            raise TranscriptError(
                i, f"{where}[{j}]: unsupported content part {kind!r} (only text is read)"
            )
        texts.append(part["text"])
    return "\n".join(texts) if texts else None


def _message(
    role: Any,
    content: str | None = None,
    tool_calls: list[ToolCall] | None = None,
    tool_call_id: str | None = None,
    name: str | None = None,
) -> Message:
    return Message(
        role=role,
        content=content,
        tool_calls=tool_calls or [],
        tool_call_id=tool_call_id,
        name=name,
    )


def _merge_calls(messages: list[Message]) -> list[Message]:
    """Consecutive assistant items (Responses API, Gemini parts) become one assistant message."""
    out: list[Message] = []
    for m in messages:
        prev = out[-1] if out else None
        if (
            prev is not None
            and m.role == "assistant"
            and prev.role == "assistant"
            and m.tool_calls
            and (not prev.tool_calls or not m.content)
            and m.content is None
        ):
            out[-1] = prev.model_copy(update={"tool_calls": [*prev.tool_calls, *m.tool_calls]})
            continue
        out.append(m)
    return out


def _role(raw: Any, i: int, allowed: dict[str, str]) -> str:
    if not isinstance(raw, str) or raw not in allowed:
        raise TranscriptError(i, f"role: expected one of {sorted(allowed)}, got {raw!r}")
    return allowed[raw]


# ------------------------------------------------------------------------------ from: each format


def _from_native(items: list[Any]) -> list[Message]:
    from pydantic import ValidationError

    out: list[Message] = []
    for i, m in enumerate(items):
        try:
            out.append(Message.model_validate(m))
        except ValidationError as err:
            first = err.errors()[0]
            at = ".".join(str(p) for p in first["loc"])
            raise TranscriptError(i, f"{at}: {first['msg']}" if at else first["msg"]) from None
    return out


def _from_openai(items: list[Any]) -> list[Message]:
    roles = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant",
             "tool": "tool", "function": "tool"}  # fmt: skip
    out: list[Message] = []
    for i, m in enumerate(items):
        if not isinstance(m, dict):
            raise TranscriptError(i, f"expected a message object, got {_kind(m)}")
        role = _role(m.get("role"), i, roles)
        content = _text_of_parts(m.get("content"), i, "content", frozenset({"text", "refusal"}))
        if m.get("refusal") and content is None:
            content = _opt_str(m.get("refusal"), i, "refusal")
        calls: list[ToolCall] = []
        raw_calls = m.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise TranscriptError(i, "tool_calls: expected a list")
        for j, c in enumerate(raw_calls):
            fn = c.get("function") if isinstance(c, dict) else None
            if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
                raise TranscriptError(
                    i, f"tool_calls[{j}]: expected {{id, function: {{name, arguments}}}}"
                )
            args = _arguments(fn.get("arguments"), i, f"tool_calls[{j}].function")
            calls.append(
                ToolCall(
                    name=fn["name"],
                    arguments=args,
                    id=_opt_str(c.get("id"), i, f"tool_calls[{j}].id"),
                )
            )
        legacy = m.get("function_call")
        if isinstance(legacy, dict) and isinstance(legacy.get("name"), str):
            calls.append(
                ToolCall(
                    name=legacy["name"],
                    arguments=_arguments(legacy.get("arguments"), i, "function_call"),
                )
            )
        out.append(
            _message(
                role,
                content,
                calls,
                _opt_str(m.get("tool_call_id"), i, "tool_call_id"),
                _opt_str(m.get("name"), i, "name") if role == "tool" else None,
            )
        )
    return out


def _from_responses(items: list[Any]) -> list[Message]:
    roles = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
    names: dict[str, str] = {}
    out: list[Message] = []
    for i, m in enumerate(items):
        if not isinstance(m, dict):
            raise TranscriptError(i, f"expected an input item, got {_kind(m)}")
        kind = m.get("type", "message")
        if kind in _SKIPPED_TYPES or kind in _MCP_METADATA:
            continue
        if kind == "mcp_call":
            out.extend(_mcp_call(m, i))
        elif kind == "message":
            role = _role(m.get("role"), i, roles)
            text = _text_of_parts(
                m.get("content"),
                i,
                "content",
                frozenset({"input_text", "output_text", "text", "refusal"}),
            )
            out.append(_message(role, text))
        elif kind == "function_call":
            name, call_id = m.get("name"), m.get("call_id", m.get("id"))
            if not isinstance(name, str):
                raise TranscriptError(i, "function_call: expected a name")
            call_id = _opt_str(call_id, i, "call_id")
            if call_id:
                names[call_id] = name
            call = ToolCall(
                name=name, arguments=_arguments(m.get("arguments"), i, "function_call"), id=call_id
            )
            out.append(_message("assistant", None, [call]))
        elif kind == "function_call_output":
            call_id = _opt_str(m.get("call_id"), i, "call_id")
            output = m.get("output")
            if isinstance(output, list):
                output = _text_of_parts(
                    output, i, "output", frozenset({"input_text", "output_text", "text"})
                )
            out.append(
                _message("tool", _json_text(output), None, call_id, names.get(call_id or ""))
            )
        else:
            raise TranscriptError(i, f"unsupported item type {kind!r}")
    return _merge_calls(out)


def _mcp_call(m: dict[str, Any], i: int) -> list[Message]:
    """A Responses ``mcp_call`` item: a call the API made on an MCP server for the model, with
    its output (or error) in the same item."""
    name = m.get("name")
    if not isinstance(name, str):
        raise TranscriptError(i, "mcp_call: expected a name")
    call_id = _opt_str(m.get("id"), i, "id")
    args = _arguments(m.get("arguments"), i, "mcp_call")
    server = m.get("server_label")
    call = ToolCall(
        name=name,
        arguments=args,
        id=call_id,
        mcp=True,
        mcp_server=server if isinstance(server, str) else None,
    )
    error = m.get("error")
    output = {"error": error} if error else m.get("output")
    if output is None:
        return [_message("assistant", None, [call])]
    return [
        _message("assistant", None, [call]),
        _message("tool", _json_text(output), None, call_id, name),
    ]


def _anthropic_result(block: dict[str, Any], i: int, j: int, names: dict[str, str]) -> Message:
    """A ``tool_result`` (or ``mcp_tool_result``) block as a tool message; an error result
    whose text is not already an error object becomes ``{"error": text}``."""
    call_id = _opt_str(block.get("tool_use_id"), i, f"content[{j}].tool_use_id")
    result = _text_of_parts(block.get("content"), i, f"content[{j}].content", frozenset({"text"}))
    if block.get("type") == "mcp_tool_result" and block.get("is_error") is True:
        result = _json_text({"error": result or "the MCP tool failed"})
    return _message("tool", result, None, call_id, names.get(call_id or ""))


def _server_name(block: dict[str, Any]) -> str | None:
    server = block.get("server_name")
    return server if isinstance(server, str) else None


def _from_anthropic(items: list[Any]) -> list[Message]:
    roles = {"user": "user", "assistant": "assistant", "system": "system"}
    names: dict[str, str] = {}
    out: list[Message] = []
    for i, m in enumerate(items):
        if not isinstance(m, dict):
            raise TranscriptError(i, f"expected a message object, got {_kind(m)}")
        role = _role(m.get("role"), i, roles)
        content = m.get("content")
        if isinstance(content, str) or content is None:
            out.append(_message(role, content))
            continue
        if not isinstance(content, list):
            raise TranscriptError(i, "content: expected a string or a list of blocks")
        texts: list[str] = []
        calls: list[ToolCall] = []
        results = 0
        for j, block in enumerate(content):
            kind = block.get("type") if isinstance(block, dict) else None
            if kind in _SKIPPED_TYPES:
                continue
            if kind == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif kind in ("tool_use", "mcp_tool_use") and isinstance(block.get("name"), str):
                call_id = _opt_str(block.get("id"), i, f"content[{j}].id")
                if call_id:
                    names[call_id] = block["name"]
                calls.append(
                    ToolCall(
                        name=block["name"],
                        arguments=_arguments(block.get("input"), i, f"content[{j}]"),
                        id=call_id,
                        mcp=kind == "mcp_tool_use",
                        mcp_server=_server_name(block) if kind == "mcp_tool_use" else None,
                    )
                )
            elif kind in ("tool_result", "mcp_tool_result"):
                if kind == "mcp_tool_result" and (texts or calls):
                    # run by the MCP connector inside the assistant's own message: the call
                    # (and the text before it) come first
                    out.append(_message(role, "\n".join(texts) if texts else None, calls))
                    texts, calls = [], []
                out.append(_anthropic_result(block, i, j, names))
                results += 1
            else:
                raise TranscriptError(
                    i,
                    f"content[{j}]: unsupported block {kind!r} (only text, tool_use, tool_result, "
                    "mcp_tool_use, mcp_tool_result)",
                )
        if texts or calls or not results:
            out.append(_message(role, "\n".join(texts) if texts else None, calls))
    return out


def _part(p: dict[str, Any], *keys: str) -> Any:
    for k in keys:
        if k in p:
            return p[k]
    return None


def _from_gemini(items: list[Any]) -> list[Message]:
    roles = {
        "user": "user",
        "model": "assistant",
        "function": "user",
        "tool": "user",
        "system": "system",
    }
    out: list[Message] = []
    for i, m in enumerate(items):
        if not isinstance(m, dict) or not isinstance(m.get("parts"), list):
            raise TranscriptError(i, "expected a content {role, parts: [...]}")
        role = _role(m.get("role", "user"), i, roles)
        texts: list[str] = []
        calls: list[ToolCall] = []
        for j, p in enumerate(m["parts"]):
            if not isinstance(p, dict):
                raise TranscriptError(i, f"parts[{j}]: expected an object, got {_kind(p)}")
            call = _part(p, "functionCall", "function_call")
            response = _part(p, "functionResponse", "function_response")
            if p.get("thought") is True:
                continue
            if isinstance(p.get("text"), str):
                texts.append(p["text"])
            elif isinstance(call, dict) and isinstance(call.get("name"), str):
                calls.append(
                    ToolCall(
                        name=call["name"],
                        arguments=_arguments(call.get("args"), i, f"parts[{j}].functionCall"),
                        id=_opt_str(call.get("id"), i, f"parts[{j}].id"),
                    )
                )
            elif isinstance(response, dict) and isinstance(response.get("name"), str):
                body = response.get("response")
                out.append(
                    _message(
                        "tool",
                        _json_text(body),
                        None,
                        _opt_str(response.get("id"), i, f"parts[{j}].id"),
                        response["name"],
                    )
                )
            else:
                raise TranscriptError(
                    i, f"parts[{j}]: unsupported part (keys: {', '.join(sorted(p)[:6])})"
                )
        if texts or calls:
            out.append(
                _message(
                    role if not calls else "assistant", "\n".join(texts) if texts else None, calls
                )
            )
    return out


def _from_langchain(items: list[Any]) -> list[Message]:
    out: list[Message] = []
    for i, m in enumerate(items):
        if not isinstance(m, dict):
            raise TranscriptError(i, f"expected a message object, got {_kind(m)}")
        if "lc" in m and isinstance(m.get("id"), list) and m["id"]:
            kind, data = str(m["id"][-1]), m.get("kwargs")
        elif isinstance(m.get("data"), dict):
            kind, data = str(m.get("type")), m["data"]
        else:
            kind, data = str(m.get("type", m.get("role"))), m
        role = _LC_TYPES.get(kind.lower(), {"user": "user", "assistant": "assistant"}.get(kind))
        if role is None or not isinstance(data, dict):
            raise TranscriptError(i, f"type: expected human, ai, system or tool, got {kind!r}")
        content = _text_of_parts(data.get("content"), i, "content", frozenset({"text"}))
        calls: list[ToolCall] = []
        raw_calls = data.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise TranscriptError(i, "tool_calls: expected a list")
        for j, c in enumerate(raw_calls):
            if not isinstance(c, dict) or not isinstance(c.get("name"), str):
                raise TranscriptError(i, f"tool_calls[{j}]: expected {{name, args, id}}")
            args = _arguments(c.get("args", c.get("arguments")), i, f"tool_calls[{j}]")
            calls.append(
                ToolCall(
                    name=c["name"],
                    arguments=args,
                    id=_opt_str(c.get("id"), i, f"tool_calls[{j}].id"),
                )
            )
        if content == "" and calls:
            content = None
        out.append(
            _message(
                role,
                content,
                calls,
                _opt_str(data.get("tool_call_id"), i, "tool_call_id") if role == "tool" else None,
                _opt_str(data.get("name"), i, "name") if role == "tool" else None,
            )
        )
    return out


#: ``server_tool_call.type`` of a call a provider made on an MCP server
_MCP_SERVER_TOOLS: Final = ("mcp", "mcp_call", "mcp_tool_use")


def _server_tool_call(p: dict[str, Any], i: int, j: int, names: dict[str, str]) -> ToolCall:
    """A GenAI ``server_tool_call`` part (a tool the provider ran): a call, marked ``mcp`` when
    its ``server_tool_call.type`` says MCP."""
    detail = p.get("server_tool_call")
    detail = detail if isinstance(detail, dict) else {}
    call_id = _opt_str(p.get("id"), i, f"parts[{j}].id")
    if call_id:
        names[call_id] = p["name"]
    server = detail.get("server_name")
    raw = detail.get("arguments", p.get("arguments"))
    mcp = detail.get("type") in _MCP_SERVER_TOOLS
    return ToolCall(
        name=p["name"],
        arguments=_arguments(raw, i, f"parts[{j}].server_tool_call"),
        id=call_id,
        mcp=mcp,
        mcp_server=server if mcp and isinstance(server, str) else None,
    )


def _server_tool_response(p: dict[str, Any], i: int, j: int, names: dict[str, str]) -> Message:
    detail = p.get("server_tool_call_response")
    detail = detail if isinstance(detail, dict) else {}
    call_id = _opt_str(p.get("id"), i, f"parts[{j}].id")
    response = detail.get("response", {k: v for k, v in detail.items() if k != "type"})
    return _message("tool", _json_text(response), None, call_id, names.get(call_id or ""))


def _from_otel(items: list[Any]) -> list[Message]:
    roles = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}
    names: dict[str, str] = {}
    out: list[Message] = []
    for i, m in enumerate(items):
        if not isinstance(m, dict) or not isinstance(m.get("parts"), list):
            raise TranscriptError(i, "expected a message {role, parts: [...]}")
        role = _role(m.get("role"), i, roles)
        texts: list[str] = []
        calls: list[ToolCall] = []
        for j, p in enumerate(m["parts"]):
            kind = p.get("type") if isinstance(p, dict) else None
            if kind == "text":
                texts.append(str(p.get("content", "")))
            elif kind in ("reasoning", "thinking"):
                continue
            elif kind == "tool_call" and isinstance(p.get("name"), str):
                call_id = _opt_str(p.get("id"), i, f"parts[{j}].id")
                if call_id:
                    names[call_id] = p["name"]
                calls.append(
                    ToolCall(
                        name=p["name"],
                        arguments=_arguments(p.get("arguments"), i, f"parts[{j}]"),
                        id=call_id,
                    )
                )
            elif kind == "server_tool_call" and isinstance(p.get("name"), str):
                calls.append(_server_tool_call(p, i, j, names))
            elif kind == "server_tool_call_response":
                if texts or calls:  # run by the provider inside this message: the call first
                    out.append(_message(role, "\n".join(texts) if texts else None, calls))
                    texts, calls = [], []
                out.append(_server_tool_response(p, i, j, names))
            elif kind == "tool_call_response":
                call_id = _opt_str(p.get("id"), i, f"parts[{j}].id")
                out.append(
                    _message(
                        "tool",
                        _json_text(p.get("response")),
                        None,
                        call_id,
                        names.get(call_id or ""),
                    )
                )
            else:
                raise TranscriptError(i, f"parts[{j}]: unsupported part type {kind!r}")
        if texts or calls or role != "tool":
            if role == "tool" and not calls:
                continue
            out.append(_message(role, "\n".join(texts) if texts else None, calls))
    return out


READERS: Final[dict[str, Callable[[list[Any]], list[Message]]]] = {
    "native": _from_native,
    "openai": _from_openai,
    "openai-responses": _from_responses,
    "anthropic": _from_anthropic,
    "gemini": _from_gemini,
    "langchain": _from_langchain,
    "otel": _from_otel,
}
