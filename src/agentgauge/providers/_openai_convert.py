"""Pure translation between agentgauge's neutral messages and OpenAI's two wire formats.

Chat Completions (``/chat/completions``) and the Responses API (``/responses``): requests are
built as plain dicts (sent as JSON), responses are read from the decoded JSON. No SDK import.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from ..schema import Message, ToolCall, ToolSpec, Usage
from ._base import GenerateConfig, ModelRequest, ModelResponse
from ._common import parse_arguments, token_count
from ._connector import mcp_call_item, mcp_call_steps, responses_mcp_tools

__all__ = [
    "ChatStream",
    "chat_payload",
    "chat_response",
    "chat_tools",
    "responses_payload",
    "responses_response",
    "responses_stream_final",
]


def _dumps(value: Any) -> str:
    return orjson.dumps(value).decode()


def with_call_ids(messages: list[Message]) -> Iterator[tuple[Message, list[str], str | None]]:
    """Yield each message with ids for its tool calls and, for tool results, the id answered.

    Calls without an id get ``call_<message index>_<call index>``; a tool result without a
    ``tool_call_id`` answers the oldest unanswered call of the same name (or the oldest one).
    """
    pending: list[tuple[str, str]] = []  # (id, name)
    for i, m in enumerate(messages):
        if m.role == "assistant" and m.tool_calls:
            ids = [c.id or f"call_{i}_{j}" for j, c in enumerate(m.tool_calls)]
            pending = list(zip(ids, (c.name for c in m.tool_calls), strict=True))
            yield m, ids, None
        elif m.role == "tool":
            answered = m.tool_call_id
            if answered is None and pending:
                k = next((k for k, (_, n) in enumerate(pending) if n == m.name), 0)
                answered = pending.pop(k)[0]
            elif answered is not None:
                pending = [p for p in pending if p[0] != answered]
            yield m, [], answered or f"call_{i}"
        else:
            yield m, [], None


# ---------------------------------------------------------------------- chat completions


def chat_messages(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m, ids, answered in with_call_ids(messages):
        if m.role == "tool":
            out.append({"role": "tool", "tool_call_id": answered, "content": m.content or ""})
        elif m.role == "assistant":
            item: dict[str, Any] = {"role": "assistant", "content": m.content}
            if m.tool_calls:
                item["tool_calls"] = [
                    {
                        "id": cid,
                        "type": "function",
                        "function": {"name": c.name, "arguments": _dumps(c.arguments)},
                    }
                    for cid, c in zip(ids, m.tool_calls, strict=True)
                ]
            out.append(item)
        else:
            out.append({"role": m.role, "content": m.content or ""})
    return out


def chat_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
            },
        }
        for t in tools
    ]


def _common_params(config: GenerateConfig, payload: dict[str, Any], max_key: str) -> None:
    if config.temperature is not None:
        payload["temperature"] = config.temperature
    if config.max_tokens is not None:
        payload[max_key] = config.max_tokens


#: the name a constrained reply's schema is given in ``response_format`` (and the Anthropic tool)
RESPONSE_SCHEMA_NAME = "response"


def response_format(schema: dict[str, Any]) -> dict[str, Any]:
    """Chat Completions' ``response_format`` for a JSON Schema (OpenAI, Ollama, llama.cpp
    server and vLLM all read this shape). ``strict`` only when the schema is closed (every
    object lists all its properties as required and allows no others), as OpenAI demands."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": RESPONSE_SCHEMA_NAME,
            "schema": schema,
            "strict": is_strict_schema(schema),
        },
    }


def is_strict_schema(schema: Any) -> bool:
    """Whether every object in ``schema`` is closed and requires all its properties."""
    if isinstance(schema, list):
        return all(is_strict_schema(x) for x in schema)
    if not isinstance(schema, dict):
        return True
    if schema.get("type") == "object":
        props = schema.get("properties") or {}
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required") or []) != set(props):
            return False
    return all(is_strict_schema(v) for k, v in schema.items() if k != "enum" and k != "const")


def chat_payload(request: ModelRequest, model: str) -> dict[str, Any]:
    """The JSON body of ``POST /chat/completions``."""
    payload: dict[str, Any] = {"model": model, "messages": chat_messages(request.messages)}
    if request.tools:
        payload["tools"] = chat_tools(request.tools)
    config = request.config
    _common_params(config, payload, "max_tokens")
    if config.seed is not None:
        payload["seed"] = config.seed
    if config.response_schema is not None:
        payload["response_format"] = response_format(config.response_schema)
    if config.stream:
        payload["stream"] = True
        payload["stream_options"] = {"include_usage": True}
    return payload


def _finish(reason: Any, has_calls: bool) -> str | None:
    if reason is None:
        return "tool_calls" if has_calls else None
    return str(reason)


def _chat_usage(raw: Any) -> Usage:
    if not isinstance(raw, dict):
        return Usage()
    return Usage(
        input_tokens=token_count(raw.get("prompt_tokens")),
        output_tokens=token_count(raw.get("completion_tokens")),
    )


def _id(body: dict[str, Any]) -> str | None:
    """The response's ``id`` (a string the API gave), for the trace."""
    value = body.get("id")
    return value if isinstance(value, str) and value else None


def chat_response(body: dict[str, Any]) -> ModelResponse:
    """A ``chat.completion`` object (decoded JSON) in neutral form (first choice)."""
    choices = body.get("choices") or []
    choice = choices[0] if choices else {}
    msg = choice.get("message") or {}
    calls = [
        ToolCall(
            id=tc.get("id"),
            name=(tc.get("function") or {}).get("name") or "",
            arguments=parse_arguments((tc.get("function") or {}).get("arguments")),
        )
        for tc in msg.get("tool_calls") or []
    ]
    content = msg.get("content")
    if isinstance(content, list):  # some servers send content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ModelResponse(
        message=Message(role="assistant", content=content, tool_calls=calls),
        usage=_chat_usage(body.get("usage")),
        model=str(body.get("model") or ""),
        finish_reason=_finish(choice.get("finish_reason"), bool(calls)),
        response_id=_id(body),
    )


class ChatStream:
    """Accumulates ``chat.completion.chunk`` events into one response."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.calls: dict[int, dict[str, Any]] = {}
        self.usage = Usage()
        self.model = ""
        self.response_id: str | None = None
        self.finish_reason: str | None = None
        self.saw_content = False

    def feed(self, chunk: dict[str, Any]) -> bool:
        """Add one chunk; returns True when it carried content or a tool call (a "token")."""
        if chunk.get("model"):
            self.model = str(chunk["model"])
        self.response_id = self.response_id or _id(chunk)
        if chunk.get("usage"):
            self.usage = _chat_usage(chunk["usage"])
        produced = False
        for choice in chunk.get("choices") or []:
            delta = choice.get("delta") or {}
            piece = delta.get("content")
            if piece:
                self.text.append(piece)
                produced = True
            for tc in delta.get("tool_calls") or []:
                index = int(tc.get("index", len(self.calls)))
                slot = self.calls.setdefault(index, {"id": None, "name": "", "arguments": ""})
                if tc.get("id"):
                    slot["id"] = tc["id"]
                fn = tc.get("function") or {}
                if fn.get("name"):
                    slot["name"] += fn["name"]
                if fn.get("arguments"):
                    slot["arguments"] += fn["arguments"]
                produced = True
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        return produced

    def result(self, ttft_ms: float | None = None) -> ModelResponse:
        calls = [
            ToolCall(id=s["id"], name=s["name"], arguments=parse_arguments(s["arguments"]))
            for _, s in sorted(self.calls.items())
        ]
        text = "".join(self.text) if self.text else None
        return ModelResponse(
            message=Message(role="assistant", content=text, tool_calls=calls),
            usage=self.usage,
            model=self.model,
            ttft_ms=ttft_ms,
            finish_reason=_finish(self.finish_reason, bool(calls)),
            response_id=self.response_id,
        )


# ---------------------------------------------------------------------- responses API


def responses_input(messages: list[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    # calls an MCP server got from the API: sent back as mcp_call items holding their output
    connector = {c.id: c for m in messages for c in m.tool_calls if c.mcp and c.mcp_server and c.id}
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    for m, ids, answered in with_call_ids(messages):
        if m.role == "tool" and answered in connector:
            continue  # inside its mcp_call item
        if m.role == "tool":
            out.append(
                {"type": "function_call_output", "call_id": answered, "output": m.content or ""}
            )
        elif m.role == "assistant":
            if m.content:
                out.append({"role": "assistant", "content": m.content})
            for cid, c in zip(ids, m.tool_calls, strict=True):
                if cid in connector:
                    out.append(mcp_call_item(c, results.get(cid)))
                    continue
                out.append(
                    {
                        "type": "function_call",
                        "call_id": cid,
                        "name": c.name,
                        "arguments": _dumps(c.arguments),
                    }
                )
        else:
            out.append({"role": m.role, "content": m.content or ""})
    return out


def responses_payload(request: ModelRequest, model: str) -> dict[str, Any]:
    """The JSON body of ``POST /responses`` (stateless: ``store`` is false)."""
    payload: dict[str, Any] = {
        "model": model,
        "input": responses_input(request.messages),
        "store": False,
    }
    if request.tools:
        payload["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": t.parameters,
                "strict": False,
            }
            for t in request.tools
        ]
    if request.config.mcp_servers:
        payload["tools"] = [
            *payload.get("tools", []),
            *responses_mcp_tools(request.config.mcp_servers),
        ]
    _common_params(request.config, payload, "max_output_tokens")
    schema = request.config.response_schema
    if schema is not None:
        payload["text"] = {
            "format": {
                "type": "json_schema",
                "name": RESPONSE_SCHEMA_NAME,
                "schema": schema,
                "strict": is_strict_schema(schema),
            }
        }
    if request.config.stream:
        payload["stream"] = True
    return payload


def responses_response(body: dict[str, Any]) -> ModelResponse:
    """A ``response`` object (decoded JSON) in neutral form."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    steps: list[Message] = []
    for item in body.get("output") or []:
        kind = item.get("type")
        if kind == "mcp_call":  # run by the API on an MCP server: after the text before it
            if texts or calls:
                text = "".join(texts) if texts else None
                steps.append(Message(role="assistant", content=text, tool_calls=calls))
                texts, calls = [], []
            steps.extend(mcp_call_steps(item))
        elif kind == "message":
            for part in item.get("content") or []:
                if part.get("type") in ("output_text", "text"):
                    texts.append(part.get("text") or "")
                elif part.get("type") == "refusal":
                    texts.append(part.get("refusal") or "")
        elif kind == "function_call":
            calls.append(
                ToolCall(
                    id=item.get("call_id") or item.get("id"),
                    name=item.get("name") or "",
                    arguments=parse_arguments(item.get("arguments")),
                )
            )
    usage = body.get("usage") or {}
    status = body.get("status")
    finish: str | None
    if status == "incomplete":
        reason = (body.get("incomplete_details") or {}).get("reason")
        finish = "length" if reason == "max_output_tokens" else str(reason or "incomplete")
    else:
        finish = "tool_calls" if calls else "stop"
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
        finish_reason=finish,
        response_id=_id(body),
    )


def responses_stream_final(event: dict[str, Any]) -> dict[str, Any] | None:
    """The final ``response`` object carried by a ``response.completed`` (or ``.incomplete`` /
    ``.failed``) stream event, else None."""
    if event.get("type") in ("response.completed", "response.incomplete", "response.failed"):
        response = event.get("response")
        return response if isinstance(response, dict) else None
    return None
