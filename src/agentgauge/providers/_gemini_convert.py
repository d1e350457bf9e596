"""Pure translation between neutral messages and the Gemini API (``google-genai``)."""

from __future__ import annotations

from typing import Any

import orjson

from ..schema import Message, ToolCall, Usage
from ._base import ModelRequest, ModelResponse
from ._common import parse_arguments, token_count

__all__ = ["GeminiStream", "gemini_request", "gemini_response"]

_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter"}


def _function_response(content: str | None) -> dict[str, Any]:
    """Gemini wants a JSON object as a function's response: wrap anything else."""
    if content:
        try:
            value = orjson.loads(content)
        except orjson.JSONDecodeError:
            return {"result": content}
        return value if isinstance(value, dict) else {"result": value}
    return {"result": ""}


def gemini_contents(messages: list[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """(system instruction, contents): assistant turns are role ``model``; tool results are
    ``function_response`` parts of a user turn; consecutive same-role turns are merged."""
    system_parts: list[str] = []
    out: list[dict[str, Any]] = []
    names: dict[str, str] = {}  # call id -> tool name, to name results that lack one

    def add(role: str, parts: list[dict[str, Any]]) -> None:
        if out and out[-1]["role"] == role:
            out[-1]["parts"].extend(parts)
        else:
            out.append({"role": role, "parts": parts})

    for m in messages:
        if m.role == "system":
            system_parts.append(m.content or "")
        elif m.role == "assistant":
            parts: list[dict[str, Any]] = []
            if m.content:
                parts.append({"text": m.content})
            for c in m.tool_calls:
                call: dict[str, Any] = {"name": c.name, "args": c.arguments}
                if c.id:
                    call["id"] = c.id
                    names[c.id] = c.name
                parts.append({"function_call": call})
            if parts:
                add("model", parts)
        elif m.role == "tool":
            name = m.name or names.get(m.tool_call_id or "", "tool")
            response: dict[str, Any] = {"name": name, "response": _function_response(m.content)}
            if m.tool_call_id:
                response["id"] = m.tool_call_id
            add("user", [{"function_response": response}])
        else:
            add("user", [{"text": m.content or ""}])
    return ("\n\n".join(system_parts) if system_parts else None), out


def gemini_request(request: ModelRequest) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(contents, config) for ``client.aio.models.generate_content``; the tools' JSON Schemas
    go through ``parameters_json_schema`` unchanged, automatic function calling is off."""
    system, contents = gemini_contents(request.messages)
    cfg = request.config
    config: dict[str, Any] = {"automatic_function_calling": {"disable": True}}
    if system:
        config["system_instruction"] = system
    if request.tools:
        config["tools"] = [
            {
                "function_declarations": [
                    {
                        "name": t.name,
                        "description": t.description,
                        "parameters_json_schema": t.parameters,
                    }
                    for t in request.tools
                ]
            }
        ]
    if cfg.temperature is not None:
        config["temperature"] = cfg.temperature
    if cfg.max_tokens is not None:
        config["max_output_tokens"] = cfg.max_tokens
    if cfg.seed is not None:
        config["seed"] = cfg.seed
    if cfg.response_schema is not None:
        config["response_mime_type"] = "application/json"
        config["response_json_schema"] = cfg.response_schema
    return contents, config


def _parts(body: dict[str, Any]) -> tuple[list[dict[str, Any]], Any]:
    candidates = body.get("candidates") or []
    if not candidates:
        return [], None
    first = candidates[0] or {}
    return ((first.get("content") or {}).get("parts") or []), first.get("finish_reason")


def _usage(body: dict[str, Any]) -> Usage | None:
    meta = body.get("usage_metadata")
    if not meta:
        return None
    return Usage(
        input_tokens=token_count(meta.get("prompt_token_count")),
        output_tokens=token_count(meta.get("candidates_token_count"))
        + token_count(meta.get("thoughts_token_count")),
    )


def _finish(reason: Any, has_calls: bool) -> str | None:
    if has_calls:
        return "tool_calls"
    if reason is None:
        return None
    return _FINISH.get(str(reason), str(reason).lower())


def gemini_response(body: dict[str, Any]) -> ModelResponse:
    """A ``GenerateContentResponse`` (as a JSON dict, snake_case keys) in neutral form."""
    acc = GeminiStream()
    acc.feed(body)
    return acc.result(None)


class GeminiStream:
    """Accumulates streamed ``GenerateContentResponse`` chunks (also used for a single one)."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.calls: list[ToolCall] = []
        self.usage = Usage()
        self.model = ""
        self.response_id: str | None = None
        self.finish: Any = None

    def feed(self, body: dict[str, Any]) -> bool:
        parts, finish = _parts(body)
        if finish is not None:
            self.finish = finish
        usage = _usage(body)
        if usage is not None:
            self.usage = usage
        if body.get("model_version"):
            self.model = str(body["model_version"])
        if body.get("response_id"):
            self.response_id = str(body["response_id"])
        produced = False
        for part in parts:
            if part.get("thought"):
                continue
            if part.get("text"):
                self.texts.append(part["text"])
                produced = True
            call = part.get("function_call")
            if call:
                self.calls.append(
                    ToolCall(
                        id=call.get("id"),
                        name=call.get("name") or "",
                        arguments=parse_arguments(call.get("args")),
                    )
                )
                produced = True
        return produced

    def result(self, ttft_ms: float | None) -> ModelResponse:
        return ModelResponse(
            message=Message(
                role="assistant",
                content="".join(self.texts) if self.texts else None,
                tool_calls=self.calls,
            ),
            usage=self.usage,
            model=self.model,
            ttft_ms=ttft_ms,
            finish_reason=_finish(self.finish, bool(self.calls)),
            response_id=self.response_id,
        )
