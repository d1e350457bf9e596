"""Conversations in the formats people already have: pure converters to and from our messages.

Formats (detected automatically by :func:`detect_format`; see docs/bring-your-agent.md):

- ``native``: agentgauge's own :class:`~agentgauge.schema.Message` list;
- ``openai``: chat completions messages (``tool_calls[].function.{name, arguments}`` with JSON
  string arguments, ``role: tool`` results, ``developer`` as system, content-part lists);
- ``openai-responses``: Responses API input/output items (``message`` items with
  ``input_text``/``output_text`` parts, ``function_call`` and ``function_call_output``;
  ``mcp_call`` items, calls the API made on an MCP server with their output, read as ``mcp``
  calls, and its MCP listing / approval items skipped);
- ``anthropic``: Messages API content blocks (``text``, ``tool_use``, ``tool_result``; the MCP
  connector's ``mcp_tool_use`` read as ``mcp`` calls and ``mcp_tool_result``), with the
  request body's top-level ``system``;
- ``gemini``: ``contents`` with ``parts`` (``text``, ``functionCall``, ``functionResponse``;
  snake_case too), role ``model``, and the request's ``system_instruction``;
- ``langchain``: LangChain / LangGraph message dumps: ``message_to_dict`` (``{"type": "human",
  "data": {...}}``), ``model_dump()`` (``{"type": "ai", "content", "tool_calls": [{name, args,
  id}]}``) and ``dumpd`` (``{"lc": 1, "id": [..., "AIMessage"], "kwargs": {...}}``);
- ``otel``: OpenTelemetry GenAI ``gen_ai.input.messages`` / ``gen_ai.output.messages``
  (``{"role", "parts": [{"type": "text" | "tool_call" | "tool_call_response", ...}]}``).

Every ``from`` direction raises :class:`TranscriptError` (the index of the bad message and a
one-line reason); callers turn it into a ``file:line`` :class:`~agentgauge.errors.UserError`.
Reasoning/thinking items carry no conversation content and are skipped.
"""

from __future__ import annotations

from typing import Any, Final, Literal, get_args

from ..schema import Message
from ._transcripts_read import (
    _LC_TYPES,
    _NATIVE_CALL_KEYS,
    _NATIVE_KEYS,
    MAX_MESSAGES,
    READERS,
    TranscriptError,
    _kind,
    _message,
    _text_of_parts,
)

__all__ = [
    "TRANSCRIPT_FORMATS",
    "TranscriptError",
    "TranscriptFormat",
    "detect_format",
    "foreign_conversation",
    "messages_from_data",
]

TranscriptFormat = Literal[
    "native", "openai", "openai-responses", "anthropic", "gemini", "langchain", "otel"
]
TRANSCRIPT_FORMATS: Final[tuple[str, ...]] = get_args(TranscriptFormat)


# ------------------------------------------------------------------------------ detection


def _is_native(item: dict[str, Any]) -> bool:
    if not set(item) <= _NATIVE_KEYS or item.get("role") not in (
        "system",
        "user",
        "assistant",
        "tool",
    ):
        return False
    if not (item.get("content") is None or isinstance(item.get("content"), str)):
        return False
    calls = item.get("tool_calls") or []
    return isinstance(calls, list) and all(
        isinstance(c, dict) and set(c) <= _NATIVE_CALL_KEYS for c in calls
    )


#: item types only the OpenAI Responses API writes
_RESPONSES_ITEMS: Final = frozenset(
    {
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
    }
)
#: content block types only Anthropic's Messages API writes
_ANTHROPIC_BLOCKS: Final = frozenset(
    {"tool_use", "tool_result", "thinking", "redacted_thinking", "mcp_tool_use", "mcp_tool_result"}
)


def _vote(item: Any) -> str | None:
    """The format one message shows by its keys (``None``: says nothing decisive)."""
    if not isinstance(item, dict):
        return None
    if "lc" in item and "kwargs" in item:
        return "langchain"
    kind = item.get("type")
    if isinstance(kind, str) and kind.lower() in _LC_TYPES and "role" not in item:
        return "langchain"
    if isinstance(kind, str) and kind in _RESPONSES_ITEMS:
        return "openai-responses"
    parts = item.get("parts")
    if isinstance(parts, list):
        if any(isinstance(p, dict) and "type" in p for p in parts):
            return "otel"
        return "gemini"
    if item.get("role") == "model":
        return "gemini"
    if item.get("role") == "developer" or "function_call" in item:
        return "openai"
    calls = item.get("tool_calls")
    if isinstance(calls, list) and calls and isinstance(calls[0], dict):
        if "function" in calls[0]:
            return "openai"
        if "args" in calls[0]:
            return "langchain"
    content = item.get("content")
    if isinstance(content, list):
        types = {
            p.get("type") for p in content if isinstance(p, dict) and isinstance(p.get("type"), str)
        }
        if types & _ANTHROPIC_BLOCKS:
            return "anthropic"
        if types & {"input_text", "output_text", "refusal"}:
            return "openai-responses"
        if types & {"image_url", "input_audio"}:
            return "openai"
    return None


def _parts_list(content: dict[str, Any]) -> list[Any]:
    parts = content.get("parts", [])
    if not isinstance(parts, list):
        raise TranscriptError(
            None, f"system_instruction.parts: expected a list, got {_kind(parts)}"
        )
    return parts


def _unwrap(data: Any) -> tuple[list[Any], str | None, str | None]:
    """A request/response body's message list, its system text, and the format it implies."""
    if not isinstance(data, dict):
        return data, None, None
    if isinstance(data.get("contents"), list):
        sys_inst = data.get("system_instruction", data.get("systemInstruction"))
        system = None
        if isinstance(sys_inst, dict):
            system = _text_of_parts(
                [{"type": "text", **p} for p in _parts_list(sys_inst) if isinstance(p, dict)],
                None,
                "system_instruction.parts",
                frozenset({"text"}),
            )
        elif isinstance(sys_inst, str):
            system = sys_inst
        return data["contents"], system, "gemini"
    if isinstance(data.get("messages"), list):
        system_raw = data.get("system")
        system = None
        if system_raw is not None:
            system = _text_of_parts(system_raw, None, "system", frozenset({"text"}))
        return data["messages"], system, "anthropic" if system_raw is not None else None
    if isinstance(data.get("input"), list):
        instructions = data.get("instructions")
        return (
            data["input"],
            instructions if isinstance(instructions, str) else None,
            ("openai-responses"),
        )
    raise TranscriptError(
        None, "expected a list of messages (or a body with messages/contents/input)"
    )


def detect_format(data: Any) -> TranscriptFormat | None:
    """The format of a conversation (a list of messages or a request body), or None if unknown."""
    try:
        items, _, implied = _unwrap(data)
    except TranscriptError:
        return None
    if implied is not None:
        return implied  # type: ignore[return-value]
    if not isinstance(items, list):
        return None
    for item in items[:MAX_MESSAGES]:
        vote = _vote(item)
        if vote is not None:
            return vote  # type: ignore[return-value]
    if items and all(isinstance(m, dict) and _is_native(m) for m in items):
        return "native"
    return None


def messages_from_data(data: Any, fmt: TranscriptFormat | None = None) -> tuple[list[Message], str]:
    """A conversation in any supported format as our messages, and the format it was in.

    ``data`` is a list of messages or a request body (``messages``/``system``, ``contents``/
    ``system_instruction``, ``input``/``instructions``). Raises :class:`TranscriptError`.
    """
    items, system, _ = _unwrap(data)
    if not isinstance(items, list):
        raise TranscriptError(None, f"expected a list of messages, got {_kind(items)}")
    if len(items) > MAX_MESSAGES:
        raise TranscriptError(
            None, f"{len(items):,} messages, more than the limit of {MAX_MESSAGES:,}"
        )
    found = fmt or detect_format(data) or "native"
    try:
        messages = READERS[found](items)
    except (TypeError, AttributeError, KeyError) as err:  # a shape no reader check foresaw
        raise TranscriptError(None, f"not a readable {found} conversation ({err})") from None
    if system:
        messages.insert(0, _message("system", system))
    return messages, found


def foreign_conversation(data: Any) -> list[dict[str, Any]] | None:
    """A case input in a vendor's format as our message mappings; None when it is ours already.

    Used by the suite loader before validation, so ``input:`` may be pasted from a provider's
    request or a framework's dump. Our own form (and anything unrecognised) is left to the
    schema's validation and its messages. Raises :class:`TranscriptError`.
    """
    if not isinstance(data, list | dict):
        return None
    fmt = detect_format(data)
    if fmt is None or fmt == "native":
        return None
    messages, _ = messages_from_data(data, fmt)
    return [_mapping(m) for m in messages]


def _mapping(m: Message) -> dict[str, Any]:
    """A message as the mapping it validates from (the MCP mark of its calls kept)."""
    out = m.model_dump(mode="json", exclude_defaults=True)
    if any(c.mcp for c in m.tool_calls):
        out["tool_calls"] = [
            {**d, "mcp": True} if c.mcp else d
            for c, d in zip(m.tool_calls, out["tool_calls"], strict=True)
        ]
    return out
