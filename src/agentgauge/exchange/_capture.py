"""Production traces as test cases (``agentgauge capture``) and as recorded responses.

A traced conversation becomes a case whose input is the conversation up to the failing turn's
user message (the first span with error status; else the last turn, or the one asked for). Its
``expect`` starts as the calls the agent made in that turn, to be edited into what it should have
done; the tool results it received become the case's simulated ``tool_results`` (a failed call
replays as an error), and the tool definitions in the trace become the case's ``tools``. The
agent's recorded turn is kept as a recorded response, so ``agentgauge score`` can check the
edited case against what happened in production. Logged conversations (transcripts in any
format ``messages_from_data`` reads) are captured the same way, at their last turn.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import orjson

from ..errors import UserError
from ..files import open_input, too_deep, too_deep_message
from ..schema import Case, Message, ToolSim, TraceEvent
from ._otel_import import TracedConversation, read_conversations
from ._otlp import looks_like_otlp
from ._recorded import RecordedResponse

__all__ = ["CapturedCase", "capture_cases", "responses_from_traces"]

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.:-]+")


@dataclass(frozen=True, slots=True)
class CapturedCase:
    """A case made from a trace, and what the agent did in its turn."""

    case: Case
    #: the case as its file holds it (expectations in the short form)
    data: dict[str, Any]
    response: RecordedResponse
    #: the conversation's turn the case tests (1-based, counting user messages)
    turn: int
    #: why this turn: the failing span, or "last turn" / "--turn N"
    reason: str


def _case_id(c: TracedConversation, turn: int) -> str:
    base = c.case_id or c.conversation_id or c.trace_id[:16]
    return f"{_UNSAFE.sub('-', base).strip('-') or c.trace_id[:16]}-turn{turn}"


def _turn_span(c: TracedConversation, turn: int) -> tuple[int, int]:
    """``(start, end)`` of the agent's reply to the user message of ``turn`` in ``messages``."""
    start = c.user_indexes[turn - 1] + 1
    end = c.user_indexes[turn] if turn < len(c.user_indexes) else len(c.messages)
    return start, end


def _argument(value: Any) -> Any:
    # a nested object is compared as one exact value: its keys could read as matcher keys
    return {"value": value} if isinstance(value, dict) else value


def _expectation(reply: Sequence[Message]) -> dict[str, Any]:
    """The expectation as a case file writes it (argument values in the short form)."""
    calls = [c for m in reply if m.role == "assistant" for c in m.tool_calls]
    if calls:
        return {
            "tool_calls": [
                {
                    "name": c.name,
                    "arguments": {k: _argument(v) for k, v in c.arguments.items()},
                    # a call the trace marks as an MCP call is expected to be one
                    **({"type": "mcp"} if c.mcp else {}),
                }
                for c in calls
            ]
        }
    texts = [m.content for m in reply if m.role == "assistant" and m.content]
    return {"behavior": "answer", "reference": texts[-1]} if texts else {"behavior": "answer"}


def _tool_results(c: TracedConversation, reply: Sequence[Message]) -> dict[str, list[ToolSim]]:
    names = {call.id: call.name for m in reply for call in m.tool_calls if call.id}
    out: dict[str, list[ToolSim]] = {}
    for m in reply:
        if m.role != "tool":
            continue
        name = m.name or names.get(m.tool_call_id or "")
        if not name:
            continue
        failed = c.failed_calls.get(m.tool_call_id or "")
        if failed is not None:
            sim = ToolSim(fault="error", error=failed)
        else:
            try:
                result: Any = json.loads(m.content) if m.content is not None else None
            except ValueError:
                result = m.content
            sim = ToolSim(result=result)
        out.setdefault(name, []).append(sim)
    return out


def _capture_one(c: TracedConversation, turn: int | None) -> CapturedCase:
    if not c.user_indexes:
        raise UserError(f"{c.where}: trace {c.trace_id}: the conversation has no user message")
    if turn is not None:
        if not 1 <= turn <= len(c.user_indexes):
            raise UserError(
                f"{c.where}: trace {c.trace_id}: --turn {turn}: the conversation has "
                f"{len(c.user_indexes)} user turn(s)"
            )
        chosen, reason = turn, f"--turn {turn}"
    elif c.failing_turn is not None:
        chosen, reason = min(c.failing_turn, len(c.user_indexes)), f"failed: {c.failure}"
    else:
        chosen, reason = len(c.user_indexes), "last turn (no span failed)"
    start, end = _turn_span(c, chosen)
    reply = c.messages[start:end]
    case_id = _case_id(c, chosen)
    results = _tool_results(c, reply)
    note = (
        "expect holds the calls observed in production: edit it to what the agent should have "
        "done (agentgauge validate lists what is still missing)"
    )
    data: dict[str, Any] = {
        "id": case_id,
        "tags": ["captured", "failed-in-production"] if c.failing_turn else ["captured"],
        "description": f"Captured from trace {c.trace_id}, turn {chosen} ({reason}). {note}.",
        "input": [m.model_dump(mode="json", exclude_defaults=True) for m in c.messages[:start]],
        "tools": [t.model_dump(mode="json", exclude_defaults=True) for t in c.tools] or None,
        "expect": _expectation(reply),
        "tool_results": {
            k: [s.model_dump(mode="json", exclude_defaults=True) for s in v]
            for k, v in results.items()
        },
        "metadata": {
            "captured": {
                "trace_id": c.trace_id,
                "conversation_id": c.conversation_id,
                "turn": chosen,
                "reason": reason,
                "source": c.where,
            }
        },
    }
    if not data["tool_results"]:
        del data["tool_results"]
    if data["tools"] is None:
        del data["tools"]
    try:
        case = Case.model_validate(data)
    except ValueError as err:  # e.g. a tool definition in the trace that is not one
        first = str(err).splitlines()
        detail = first[2].strip() if len(first) > 2 else first[0]
        raise UserError(
            f"{c.where}: trace {c.trace_id}: no valid case from it: {first[1].strip()}: {detail}"
            if len(first) > 2
            else f"{c.where}: trace {c.trace_id}: no valid case from it: {first[0]}"
        ) from None
    calls = [call for m in reply if m.role == "assistant" for call in m.tool_calls]
    finals = [m.content for m in reply if m.role == "assistant" and m.content]
    turn_steps = [e for e in c.steps if e.turn == chosen - 1]
    response = RecordedResponse(
        case_id=case_id,
        trial=0,
        calls=calls,
        text=finals[-1] if finals else None,
        where=c.where,
        form="otlp",
        messages=list(reply) or None,  # no reply at all (the model call failed): no messages
        labels=c.labels,
        trace=[e.model_copy(update={"turn": 0}) for e in turn_steps],
        latency_ms=c.duration_ms if len(turn_steps) == len(c.steps) else _extent_ms(turn_steps),
        trace_id=c.trace_id,
        feedback=c.feedback,
    )
    return CapturedCase(case=case, data=data, response=response, turn=chosen, reason=reason)


def _extent_ms(steps: Sequence[TraceEvent]) -> float | None:
    """From the first step's start to the last one's end; None when the steps have no times."""
    timed = [e for e in steps if e.start > 0 and e.end >= e.start]
    if not timed:
        return None
    return (max(e.end for e in timed) - min(e.start for e in timed)) * 1000.0


def _user_indexes(messages: Sequence[Message]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.role == "user"]


def _transcript(data: Any, where: str, name: str) -> TracedConversation:
    from ..formats import TranscriptError, messages_from_data, tools_from_data

    if not _is_conversation(data) or (
        isinstance(data, list) and not all(isinstance(m, dict) for m in data)
    ):
        raise UserError(
            f"{where}: neither an OTLP trace export (resourceSpans) nor a conversation (a list "
            "of messages, or a body with messages / contents / input)"
        )
    try:
        messages, _ = messages_from_data(data)
    except TranscriptError as err:
        at = "" if err.index is None else f"[{err.index}]"
        raise UserError(f"{where}: messages{at}: {err.detail}") from None
    tools = []
    if isinstance(data, dict) and data.get("tools"):
        try:
            tools = tools_from_data(data["tools"])
        except UserError as err:
            raise UserError(f"{where}: tools: {err}") from None
    digest = hashlib.sha256(where.encode()).hexdigest()[:32]
    return TracedConversation(
        trace_id=digest,
        conversation_id=name,
        messages=messages,
        tools=tools,
        user_indexes=_user_indexes(messages),
        failing_turn=None,
        failure=None,
        where=where,
    )


def _is_conversation(item: Any) -> bool:
    return isinstance(item, list) or (
        isinstance(item, dict) and any(k in item for k in ("messages", "contents", "input"))
    )


def transcript_conversations(path: Path) -> list[TracedConversation]:
    """Conversations logged as transcripts in any format ``messages_from_data`` reads: a JSON
    file with one conversation (a message list or a request body with ``messages`` /
    ``contents`` / ``input`` and optional ``tools``) or a list of them, or JSONL with one per
    line. Raises :class:`UserError` (``file:line: message``)."""
    with open_input(path, str(path)) as fh:
        raw = fh.read()
    stripped = raw.strip()
    if not stripped:
        raise UserError(f"{path}:1: the file is empty (expected a conversation or OTLP traces)")
    try:
        docs: list[tuple[int, Any]] = [(1, orjson.loads(stripped))]
    except orjson.JSONDecodeError:
        docs = []
        for number, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            try:
                docs.append((number, orjson.loads(line)))
            except orjson.JSONDecodeError as err:
                raise UserError(f"{path}:{number}: invalid JSON: {err}") from None
    first = docs[0][1]
    if len(docs) == 1 and isinstance(first, list) and first and all(map(_is_conversation, first)):
        docs = [(1, x) for x in first]  # a list of conversations
    out: list[TracedConversation] = []
    for n, (number, data) in enumerate(docs):
        deep = too_deep(data)
        if deep is not None:
            raise UserError(too_deep_message(str(path), number, deep))
        name = path.stem if len(docs) == 1 else f"{path.stem}-{n + 1}"
        out.append(_transcript(data, f"{path}:{number}", name))
    return out


def _check_names(c: TracedConversation) -> None:
    """Refuse a conversation naming a tool no provider accepts (the rule of a tools file's
    names, docs/tool-formats.md#tool-names): the names become the case's tools, expectations
    and simulated results, which a suite file and every later run would carry. One line:
    ``file:line: trace ID: field: why``."""
    from ..formats import tool_name_problem

    named = [(f"tools[{i}].name", t.name) for i, t in enumerate(c.tools)]
    for j, m in enumerate(c.messages):
        named += [
            (f"messages[{j}].tool_calls[{k}].name", t.name) for k, t in enumerate(m.tool_calls)
        ]
        if m.role == "tool" and m.name is not None:
            named.append((f"messages[{j}].name", m.name))
    for field, name in named:
        why = tool_name_problem(name)
        if why is not None:
            raise UserError(f"{c.where}: trace {c.trace_id}: {field}: {why}")


def capture_cases(paths: Sequence[str | Path], turn: int | None = None) -> list[CapturedCase]:
    """A case per conversation in OTLP/JSON trace files or transcript files (see the module
    docstring); a transcript has no failing span, so its last turn (or ``turn``) is tested.
    A tool name no provider accepts is refused (:class:`UserError`, ``file:line: trace ID:
    field: why``)."""
    traces = [Path(p) for p in paths if looks_like_otlp(Path(p))]
    conversations = read_conversations(traces) if traces else []
    for p in paths:
        if Path(p) not in traces:
            conversations.extend(transcript_conversations(Path(p)))
    out: list[CapturedCase] = []
    seen: set[str] = set()
    for conversation in conversations:
        _check_names(conversation)
        captured = _capture_one(conversation, turn)
        if captured.case.id in seen:
            continue  # the same conversation exported twice
        seen.add(captured.case.id)
        out.append(captured)
    return out


def responses_from_traces(path: Path) -> list[RecordedResponse]:
    """Recorded responses from an OTLP/JSON file (``agentgauge score --responses trace.json``).

    A trace of agentgauge's own export answers its ``agentgauge.case.id``; any other trace is
    read as ``capture`` reads it (the case id ``capture`` gives it).
    """
    out: list[RecordedResponse] = []
    for conversation in read_conversations([path]):
        if conversation.case_id is not None and conversation.user_indexes:
            start = conversation.user_indexes[-1] + 1
            reply = conversation.messages[start:]
            calls = [c for m in reply if m.role == "assistant" for c in m.tool_calls]
            finals = [m.content for m in reply if m.role == "assistant" and m.content]
            out.append(
                RecordedResponse(
                    case_id=conversation.case_id,
                    trial=conversation.trial,
                    calls=calls,
                    text=finals[-1] if finals else None,
                    where=conversation.where,
                    form="otlp",
                    messages=reply or None,
                    labels=conversation.labels,
                    trace=list(conversation.steps),
                    latency_ms=conversation.duration_ms,
                    # scored per user turn of the case, as the run scored it
                    conversation=list(conversation.messages),
                    trace_id=conversation.trace_id,
                    feedback=conversation.feedback,
                )
            )
        else:
            out.append(_capture_one(conversation, None).response)
    return out
