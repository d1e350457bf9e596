"""Tool calls written as JSON text: the one rule recorded responses, the behaviour classifier
and the lenient reading of replies share (formats owns it: reading a reply's text is parsing).

A *strict* reading takes a text whose whole content (optionally in a ``` fence) is a call in
one of these shapes, or a list of them:

- neutral: ``{"name": ..., "arguments": {...}}`` (``parameters`` may stand for ``arguments``);
- OpenAI: a chat message or completion with ``tool_calls`` (``{"type": "function",
  "function": {"name", "arguments"}}`` items, arguments as a JSON string or an object), the
  legacy ``function_call``, and the Responses API's ``function_call`` / ``mcp_call`` items or
  ``output`` list;
- Anthropic: ``{"type": "tool_use", "name", "input"}`` blocks (``mcp_tool_use`` too), a
  ``content`` list or a message holding them (text blocks beside them are allowed);
- Gemini: ``{"functionCall": {"name", "args"}}`` parts (``function_call`` too), a ``parts``
  list, a ``content``, or a response's ``candidates``.

A *lenient* reading also finds such JSON written inside prose (``Sure: {"name": ...}``, a
fenced block in an explanation, ``<tool_call>{...}</tool_call>``), for agents that write tool
calls as text; docs/scoring.md says why it is opt-in.
"""

from __future__ import annotations

import json
from typing import Any, Final

import orjson

from ..schema import ToolCall

__all__ = ["json_text_calls", "text_calls"]

#: a reply longer than this is not searched for calls inside prose (lenient reading)
MAX_LENIENT_CHARS: Final = 200_000
#: at most this many places a JSON value might start are tried in one reply
MAX_LENIENT_STARTS: Final = 2_000

#: content blocks that are not calls and may stand beside them in a list
_TEXT_BLOCKS: Final = frozenset({"text", "thinking", "redacted_thinking", "reasoning", "message"})


class _NotCalls(Exception):
    """The value is not (only) tool calls."""


def _arguments(args: Any) -> dict[str, Any]:
    if isinstance(args, str):
        try:
            args = orjson.loads(args) if args.strip() else {}
        except orjson.JSONDecodeError:
            raise _NotCalls from None
    if args is None:
        return {}
    if not isinstance(args, dict):
        raise _NotCalls
    return args


def _call(name: Any, args: Any, *, mcp: bool = False) -> ToolCall:
    if not isinstance(name, str) or not name.strip():
        raise _NotCalls
    try:
        return ToolCall(name=name, arguments=_arguments(args), id=None, mcp=mcp)
    except (ValueError, RecursionError):  # not JSON values pydantic accepts, or too deep
        raise _NotCalls from None


def _one(item: dict[str, Any]) -> ToolCall | None:
    """The call one object is (None: it is not a call but a container or a text block)."""
    kind = item.get("type")
    fc = item.get("functionCall", item.get("function_call"))
    if isinstance(fc, dict):  # Gemini part, OpenAI's legacy function_call
        return _call(fc.get("name"), fc.get("args", fc.get("arguments")))
    if kind == "function" and isinstance(item.get("function"), dict):  # OpenAI tool_calls item
        fn = item["function"]
        return _call(fn.get("name"), fn.get("arguments"))
    if kind in ("tool_use", "mcp_tool_use"):  # Anthropic
        return _call(item.get("name"), item.get("input"), mcp=kind == "mcp_tool_use")
    if kind in ("function_call", "mcp_call"):  # OpenAI Responses
        return _call(item.get("name"), item.get("arguments"), mcp=kind == "mcp_call")
    if "name" in item and ("arguments" in item or "parameters" in item):  # neutral
        key = "arguments" if "arguments" in item else "parameters"
        return _call(item.get("name"), item[key])
    return None


def _container(item: dict[str, Any]) -> list[Any] | None:
    """The list of calls or blocks an object holds (a message, a completion, a response)."""
    for key in ("tool_calls", "parts", "output"):
        if isinstance(item.get(key), list):
            return list(item[key])
    content = item.get("content")
    if isinstance(content, list):
        return content
    if isinstance(content, dict):
        return [content]
    for key in ("candidates", "choices"):
        first = item.get(key)
        if isinstance(first, list) and first and isinstance(first[0], dict):
            inner = first[0].get("message", first[0].get("content"))
            return [inner] if isinstance(inner, dict) else None
    return None


def _calls_of(value: Any, depth: int = 0) -> list[ToolCall]:
    """Every call ``value`` writes; raises :class:`_NotCalls` when it holds anything else."""
    if depth > 6:
        raise _NotCalls
    items = value if isinstance(value, list) else [value]
    calls: list[ToolCall] = []
    for item in items:
        if not isinstance(item, dict):
            raise _NotCalls
        call = _one(item)
        if call is not None:
            calls.append(call)
            continue
        inner = _container(item)
        if inner is not None:
            calls.extend(_calls_of(inner, depth + 1))
        elif not (item.get("type") in _TEXT_BLOCKS or set(item) <= {"text", "thought"}):
            raise _NotCalls
    return calls


def _decode(data: Any) -> list[ToolCall] | None:
    try:
        calls = _calls_of(data)
    except _NotCalls:
        return None
    return calls or None


def json_text_calls(text: str | None) -> list[ToolCall] | None:
    """The tool calls a reply writes as JSON text, or None when the text is not that.

    The whole text (optionally in a ``` fence) must be calls in one of the shapes of this
    module's docstring — what prompt-mode models write. Recorded responses turn such a text
    into real calls (``exchange.read_responses``); ``scoring.classify_behavior`` calls such a
    text, given without calls, an ``answer``, since no tool was called.
    """
    if not text:
        return None
    s = text.strip()
    if s.startswith("```"):
        s = s.strip("`").removeprefix("json").strip()
    if not s or s[0] not in "[{":
        return None
    try:
        data = orjson.loads(s)
    except orjson.JSONDecodeError:
        return None
    return _decode(data)


def _embedded_calls(text: str) -> list[ToolCall]:
    """Calls written as JSON anywhere in ``text``, in order (a value found is skipped whole,
    so a list of calls is not read again item by item)."""
    decoder = json.JSONDecoder()
    calls: list[ToolCall] = []
    i, tries = 0, 0
    while tries < MAX_LENIENT_STARTS:
        starts = [k for k in (text.find("{", i), text.find("[", i)) if k >= 0]
        if not starts:
            break
        k = min(starts)
        tries += 1
        try:
            data, end = decoder.raw_decode(text, k)
        except (ValueError, RecursionError):
            i = k + 1
            continue
        found = _decode(data)
        if found is None:
            i = k + 1
            continue
        calls.extend(found)
        i = end
    return calls


def text_calls(text: str | None, *, lenient: bool = False) -> list[ToolCall] | None:
    """The calls a reply's text writes: :func:`json_text_calls` (the whole text), and with
    ``lenient`` also calls written as JSON inside prose. None when there are none."""
    whole = json_text_calls(text)
    if whole is not None or not lenient or not text or len(text) > MAX_LENIENT_CHARS:
        return whole
    return _embedded_calls(text) or None
