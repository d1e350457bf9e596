"""What the agent did in one turn: its calls (each with the result it received) and final text.

Tool results are the ``tool`` messages of the transcript; their ``content`` is the JSON text of the
result (plain text is kept as a string). A result counts as an error when it is a JSON object with
a truthy ``error`` key (what the runner hands the agent for an injected fault), a truthy
``is_error``, or ``status`` ``"error"``/``"failed"``; when it is empty; when it starts like JSON
(``{`` or ``[``) but does not parse (a malformed result); or when it is plain text starting with
``error``, ``exception``, ``traceback`` or ``timed out``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import orjson

from ..formats import text_calls
from ..schema import Message, ResultRef, ToolCall
from ._values import MISSING

__all__ = ["CallRecord", "History", "Segment", "build_segments", "error_text", "resolve_ref"]

_ERROR_PREFIXES = ("error", "exception", "traceback", "timed out", "timeout")


@dataclass(slots=True)
class CallRecord:
    """One tool call and what came back."""

    call: ToolCall
    #: index in the whole history of the assistant message that made the call
    pos: int
    #: the parsed result (``MISSING`` when no result was recorded)
    result: Any = MISSING
    error: bool = False


@dataclass(slots=True)
class Result:
    """One tool result of the conversation: its message's position, the tool, the parsed value."""

    pos: int
    tool: str
    value: Any


@dataclass(slots=True)
class History:
    """Every tool result of the conversation, in order (for result references)."""

    results: list[Result] = field(default_factory=list)


@dataclass(slots=True)
class Segment:
    """The agent's reply to one user turn."""

    records: list[CallRecord]
    text: str | None
    calls: list[ToolCall]
    #: history position of the message holding ``text`` (-1 when there is no text)
    text_pos: int = -1
    #: history positions of the turn's assistant messages, in order (a call's ``pos`` is one)
    assistant_pos: list[int] = field(default_factory=list)


def parse_result(content: str | None) -> tuple[Any, bool]:
    """The parsed value of a tool message and whether it is an error."""
    if content is None or not content.strip():
        return "", True
    try:
        value = orjson.loads(content)
    except orjson.JSONDecodeError:
        low = content.lstrip()[:16].lower()
        # text that starts like JSON but does not parse is a broken result (the ``malformed``
        # fault's truncated object): the call failed
        return content, low.startswith(_ERROR_PREFIXES) or low[:1] in ("{", "[")
    if type(value) is dict:
        err = value.get("error")
        if err or value.get("is_error") is True or value.get("status") in ("error", "failed"):
            return value, True
    return value, False


def build_segments(
    history_prefix: Sequence[Message],
    turns: Sequence[Sequence[Message]],
    count: int,
    *,
    lenient: bool = False,
) -> tuple[list[Segment], History]:
    """Split the agent's messages into ``count`` segments and index every tool result.

    ``lenient``: an assistant message without calls whose text writes tool calls (whole, or
    inside prose: :func:`formats.text_calls`) is read as making them (with no result)."""
    history = History()
    pos = 0
    for msg in history_prefix:
        if msg.role == "tool":
            value, _ = parse_result(msg.content)
            history.results.append(Result(pos, msg.name or "", value))
        pos += 1
    segments: list[Segment] = []
    for i in range(count):
        messages = turns[i] if i < len(turns) else ()
        records: list[CallRecord] = []
        calls: list[ToolCall] = []
        pending: list[CallRecord] = []
        text: str | None = None
        text_pos = -1
        assistant_pos: list[int] = []
        for msg in messages:
            role = msg.role
            if role == "assistant":
                assistant_pos.append(pos)
                made = msg.tool_calls
                if lenient and not made and msg.content:
                    made = text_calls(msg.content, lenient=True) or []
                for call in made:
                    rec = CallRecord(call, pos)
                    records.append(rec)
                    calls.append(call)
                    pending.append(rec)
                if msg.content and msg.content.strip():
                    text = msg.content
                    text_pos = pos
            elif role == "tool":
                rec_for = _take_pending(pending, msg)
                value, is_error = parse_result(msg.content)
                name = msg.name or (rec_for.call.name if rec_for is not None else "")
                if rec_for is not None:
                    rec_for.result = value
                    rec_for.error = is_error
                history.results.append(Result(pos, name, value))
            pos += 1
        segments.append(Segment(records, text, calls, text_pos, assistant_pos))
    return segments, history


def error_text(result: Any, limit: int = 80) -> str:
    """What a failed call's result says, shortened: ``503 Service Unavailable``."""
    if result is MISSING:
        return "no result"
    if type(result) is dict:
        for key in ("error", "message", "detail", "status"):
            v = result.get(key)
            if isinstance(v, str) and v.strip():
                result = v
                break
            if type(v) is dict and isinstance(v.get("message"), str):
                result = v["message"]
                break
    if result == "":
        return "empty result"
    text = result if isinstance(result, str) else orjson.dumps(result).decode()
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _take_pending(pending: list[CallRecord], msg: Message) -> CallRecord | None:
    if not pending:
        return None
    if msg.tool_call_id is not None:
        for k, rec in enumerate(pending):
            if rec.call.id == msg.tool_call_id:
                return pending.pop(k)
    if msg.name is not None:
        for k, rec in enumerate(pending):
            if rec.call.name == msg.name:
                return pending.pop(k)
    return pending.pop(0)


@lru_cache(maxsize=1024)
def _path_steps(path: str) -> tuple[str | int, ...] | None:
    steps: list[str | int] = []
    for part in path.split(".") if path else ():
        name, _, rest = part.partition("[")
        if name:
            steps.append(name)
        elif not rest:
            return None
        while rest:
            idx, sep, rest = rest.partition("]")
            if not sep:
                return None
            try:
                steps.append(int(idx))
            except ValueError:
                return None
            if rest:
                if not rest.startswith("["):
                    return None
                rest = rest[1:]
    return tuple(steps)


def resolve_ref(ref: ResultRef, history: History, before: int) -> tuple[Any, str | None]:
    """The referenced value, or ``(MISSING, reason)`` when it cannot be found."""
    results = [r for r in history.results if r.tool == ref.tool]
    where = f"{ref.tool}.{ref.path}" if ref.path else ref.tool
    if ref.call is None:
        results = [r for r in results if r.pos < before]
        if not results:
            return MISSING, f"no result of {ref.tool} before this call (needed for {where})"
        value = results[-1].value
    else:
        if ref.call >= len(results):
            return (
                MISSING,
                f"{ref.tool} returned {len(results)} result(s); call {ref.call} needed for {where}",
            )
        value = results[ref.call].value
    steps = _path_steps(ref.path)
    if steps is None:
        return MISSING, f"bad reference path {ref.path!r}"
    for step in steps:
        if isinstance(step, int):
            if type(value) is list and -len(value) <= step < len(value):
                value = value[step]
                continue
        elif type(value) is dict and step in value:
            value = value[step]
            continue
        return MISSING, f"{where}: the result of {ref.tool} has no {step!r} there"
    return value, None
