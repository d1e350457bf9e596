"""A tool call written as JSON text: the one rule recorded responses and the behaviour
classifier share (io owns it: reading a reply's text is parsing)."""

from __future__ import annotations

import orjson

from ..schema import ToolCall

__all__ = ["json_text_calls"]


def json_text_calls(text: str | None) -> list[ToolCall] | None:
    """The tool calls a reply writes as JSON text, or None when the text is not that.

    The whole text (optionally in a ``` fence) must be one ``{"name": ..., "arguments": {...}}``
    object (``parameters`` may stand for ``arguments``; the arguments may be a JSON string of an
    object) or a non-empty list of them — what prompt-mode models write. Recorded responses turn
    such a text into real calls (``io.read_responses``); ``scoring.classify_behavior`` calls such a
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
    items = data if isinstance(data, list) else [data]
    calls: list[ToolCall] = []
    for item in items:
        if not isinstance(item, dict):
            return None
        name = item.get("name")
        key = "arguments" if "arguments" in item else "parameters"
        if not isinstance(name, str) or not name.strip() or key not in item:
            return None
        args = item[key]
        if isinstance(args, str):
            try:
                args = orjson.loads(args)
            except orjson.JSONDecodeError:
                return None
        if args is None:
            args = {}
        if not isinstance(args, dict):
            return None
        try:
            calls.append(ToolCall(name=name, arguments=args, id=None))
        except (ValueError, RecursionError):  # not JSON values pydantic accepts, or too deep
            return None
    return calls or None
