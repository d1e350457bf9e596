"""OpenTelemetry traces of an agent as conversations: the input of ``capture`` and ``score``.

Each trace is one conversation. Its messages come from the model-call spans: the GenAI semantic
conventions' ``gen_ai.input.messages`` / ``gen_ai.output.messages`` (with
``gen_ai.system_instructions``), as span attributes or on a
``gen_ai.client.inference.operation.details`` event, or the older indexed attributes that
OpenLLMetry writes (``gen_ai.prompt.N.role`` / ``.content`` / ``.tool_calls.M.name``,
``gen_ai.completion.N...``), or OpenInference's (``llm.input_messages.N.message.role`` /
``.content`` / ``.tool_calls.M.tool_call.function.name``, ``llm.output_messages...``,
``openinference.span.kind``). The model call with the most input messages holds the history; its
output completes it. Tool definitions come from ``gen_ai.tool.definitions``,
``llm.request.functions.N.*`` or ``llm.tools.N.tool.json_schema``; failures from spans with
error status (or ``error.type``). A call an MCP ``tools/call`` span records is marked as an MCP
call (``_otel_mcp.py``).

Module labels the agent reports ride on any span of the trace: ``agentgauge.route``,
``agentgauge.skill`` and ``agentgauge.intents`` (a string or a list), see
docs/bring-your-agent.md. Without ``agentgauge.route``, an ``invoke_agent`` span nested in
another (a handoff to a sub-agent) names the route by its ``gen_ai.agent.name``.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..errors import UserError
from ..formats import TranscriptError, messages_from_data
from ..schema import Feedback, Labels, Message, ToolSpec, TraceEvent
from ._feedback import span_feedback
from ._otel_mcp import is_mcp_tool_span, mark_mcp_calls
from ._otel_steps import span_latency_ms, trace_steps
from ._otlp import Span, read_spans

__all__ = ["TracedConversation", "conversations_from_spans", "read_conversations"]

_CHAT_OPS: Final = frozenset({"chat", "text_completion", "generate_content", "completion"})
#: OpenLLMetry's ``gen_ai.prompt.N.*`` / ``gen_ai.completion.N.*``
_INDEXED: Final = re.compile(r"^gen_ai\.(prompt|completion)\.(\d{1,6})\.(.+)$")
#: OpenInference's ``llm.input_messages.N.message.*`` / ``llm.output_messages.N.message.*``
_OPENINFERENCE: Final = re.compile(r"^llm\.(input|output)_messages\.(\d{1,6})\.message\.(.+)$")
_OI_CALL: Final = re.compile(
    r"^tool_calls\.(\d{1,6})\.tool_call\.(?:function\.)?(id|name|arguments)$"
)
_CALL: Final = re.compile(r"^tool_calls\.(\d{1,6})\.(id|name|arguments)$")
_FUNCTIONS: Final = re.compile(
    r"^llm\.request\.functions\.(\d{1,6})\.(name|description|parameters)$"
)
_OI_TOOLS: Final = re.compile(r"^llm\.tools\.(\d{1,6})\.tool\.json_schema$")


@dataclass(frozen=True, slots=True)
class TracedConversation:
    """One trace read as a conversation, with what failed in it."""

    trace_id: str
    #: ``gen_ai.conversation.id`` (or a session id) when the trace carries one
    conversation_id: str | None
    messages: list[Message]
    tools: list[ToolSpec]
    #: index into ``messages`` of each user message (the turns)
    user_indexes: list[int]
    #: the turn (1-based, counting user messages) a failing span belongs to; None: nothing failed
    failing_turn: int | None
    #: the failing span's name and status message
    failure: str | None
    #: call ids of tool calls whose execute_tool span failed -> the error message
    failed_calls: dict[str, str] = field(default_factory=dict)
    labels: Labels | None = None
    #: ``file:line`` of the trace's first span
    where: str = ""
    #: the agentgauge case id and trial, when the trace is agentgauge's own export
    case_id: str | None = None
    trial: int = 0
    #: the model and tool steps, ``turn`` counting user turns from 0
    steps: list[TraceEvent] = field(default_factory=list)
    #: the root span's duration (the agent's whole run); None when the trace records no times
    duration_ms: float | None = None
    #: the user's feedback on the conversation (``user.feedback.score`` span attributes)
    feedback: Feedback | None = None


def _operation(span: Span) -> str | None:
    op = span.attributes.get("gen_ai.operation.name")
    if isinstance(op, str):
        return op
    if span.attributes.get("llm.request.type") in ("chat", "completion"):
        return "chat"
    kind = span.attributes.get("traceloop.span.kind")
    if kind == "tool":
        return "execute_tool"
    if kind in ("agent", "workflow"):
        return "invoke_agent"
    kind = span.attributes.get("openinference.span.kind")  # OpenInference (Phoenix, Arize)
    if isinstance(kind, str) and kind.upper() in ("LLM", "TOOL", "AGENT"):
        return {"LLM": "chat", "TOOL": "execute_tool", "AGENT": "invoke_agent"}[kind.upper()]
    if "gen_ai.tool.name" in span.attributes or is_mcp_tool_span(span):
        return "execute_tool"
    return None


def _loads(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):  # not JSON, or nested past Python's limit
            return value
    return value


def _semconv_messages(attrs: dict[str, Any], key: str) -> list[Any] | None:
    value = _loads(attrs.get(key))
    return value if isinstance(value, list) else None


def _indexed(attrs: dict[str, Any], which: str) -> list[dict[str, Any]]:
    """Indexed message attributes as OpenAI chat messages: OpenLLMetry's ``gen_ai.prompt.N.*``
    (``which``: prompt / completion) or OpenInference's ``llm.input_messages.N.message.*``."""
    rows: dict[int, dict[str, Any]] = defaultdict(dict)
    for key, value in attrs.items():
        m = _INDEXED.match(key)
        if m is not None and m.group(1) == which:
            rows[int(m.group(2))][m.group(3)] = value
            continue
        m = _OPENINFERENCE.match(key)
        if m is not None and m.group(1) == ("input" if which == "prompt" else "output"):
            field_ = m.group(3)
            call = _OI_CALL.match(field_)
            if call is not None:
                field_ = f"tool_calls.{call.group(1)}.{call.group(2)}"
            rows[int(m.group(2))][field_] = value
    out: list[dict[str, Any]] = []
    for _, row in sorted(rows.items()):
        message: dict[str, Any] = {
            "role": row.get("role", "assistant"),
            "content": row.get("content"),
        }
        calls: dict[int, dict[str, Any]] = defaultdict(dict)
        for key, value in row.items():
            cm = _CALL.match(key)
            if cm:
                calls[int(cm.group(1))][cm.group(2)] = value
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.get("id"),
                    "type": "function",
                    "function": {"name": c.get("name"), "arguments": c.get("arguments") or "{}"},
                }
                for _, c in sorted(calls.items())
            ]
        if row.get("tool_call_id") is not None:
            message["tool_call_id"] = row["tool_call_id"]
        out.append(message)
    return out


def _chat_messages(span: Span) -> tuple[list[Message], list[Message]]:
    """A model call's input and output messages (empty when the span records none)."""
    attrs = dict(span.attributes)
    for event in span.events:  # the content may ride on an event instead of the span
        if event.name == "gen_ai.client.inference.operation.details":
            attrs = {**event.attributes, **attrs}
    try:
        inp = _semconv_messages(attrs, "gen_ai.input.messages")
        out = _semconv_messages(attrs, "gen_ai.output.messages")
        if inp is not None or out is not None:
            system = _semconv_messages(attrs, "gen_ai.system_instructions")
            head = [{"role": "system", "parts": system}] if system else []
            ins = messages_from_data([*head, *(inp or [])], "otel")[0]
            outs = messages_from_data(out or [], "otel")[0]
            return ins, outs
        prompt, completion = _indexed(attrs, "prompt"), _indexed(attrs, "completion")
        if prompt or completion:
            return (
                messages_from_data(prompt, "openai")[0],
                messages_from_data(completion, "openai")[0],
            )
    except TranscriptError as err:
        raise UserError(f"{span.where}: span {span.name!r}: messages: {err.detail}") from None
    return [], []


def _tools(spans: Sequence[Span]) -> list[ToolSpec]:
    from ..formats import tools_from_data

    for span in spans:
        definitions = _loads(span.attributes.get("gen_ai.tool.definitions"))
        rows: dict[int, dict[str, Any]] = defaultdict(dict)
        for key, value in span.attributes.items():
            m = _FUNCTIONS.match(key)
            if m:
                rows[int(m.group(1))][m.group(2)] = _loads(value)
        if not definitions and rows:
            definitions = [r for _, r in sorted(rows.items())]
        if not definitions:
            schemas = {
                int(m.group(1)): _loads(v)
                for k, v in span.attributes.items()
                if (m := _OI_TOOLS.match(k)) is not None
            }
            definitions = [d for _, d in sorted(schemas.items())]
        if definitions:
            try:
                return tools_from_data(definitions)
            except UserError as err:
                raise UserError(f"{span.where}: gen_ai.tool.definitions: {err}") from None
    return []


def _labels(spans: Sequence[Span]) -> Labels | None:
    route = skill = None
    intents: list[str] = []
    for span in spans:
        a = span.attributes
        route = route or (
            a.get("agentgauge.route") if isinstance(a.get("agentgauge.route"), str) else None
        )
        skill = skill or (
            a.get("agentgauge.skill") if isinstance(a.get("agentgauge.skill"), str) else None
        )
        raw = a.get("agentgauge.intents")
        for intent in [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []:
            if isinstance(intent, str) and intent not in intents:
                intents.append(intent)
    if route is None:  # a handoff: the first agent invoked inside another agent is the route
        agents = {s.span_id for s in spans if _operation(s) == "invoke_agent"}
        for s in spans:
            name = s.attributes.get("gen_ai.agent.name")
            if s.parent_id in agents and _operation(s) == "invoke_agent" and isinstance(name, str):
                route = name
                break
    if route is None and skill is None and not intents:
        return None
    return Labels(route=route, skill=skill, intents=intents)


def _turn_of_index(user_indexes: list[int], index: int) -> int:
    """The 1-based turn a message at ``index`` belongs to (the last user message before it)."""
    return max(1, sum(1 for u in user_indexes if u < index))


def _conversation(spans: list[Span]) -> TracedConversation:
    spans.sort(key=lambda s: (s.start_ns, s.span_id))
    chats = [(s, *_chat_messages(s)) for s in spans if _operation(s) in _CHAT_OPS]
    chat_inputs = {c[0].span_id: c[1] for c in chats}
    recorded = [c for c in chats if c[1] or c[2]]
    messages: list[Message] = []
    if recorded:
        best = max(recorded, key=lambda c: (len(c[1]), c[0].start_ns))
        messages = [*best[1], *best[2]]
    else:  # an agent span that records the conversation itself (agentgauge's own export)
        for s in spans:
            ins, outs = _chat_messages(s)
            if ins or outs:
                messages = [*ins, *outs]
                break
    messages = mark_mcp_calls(messages, spans, _operation)
    user_indexes = [i for i, m in enumerate(messages) if m.role == "user"]
    call_index = {c.id: i for i, m in enumerate(messages) for c in m.tool_calls if c.id}
    failed_calls: dict[str, str] = {}
    failing_turn: int | None = None
    failure: str | None = None
    for s in spans:
        if not s.is_error:
            continue
        reason = s.status_message or str(s.attributes.get("error.type", "error"))
        call_id = s.attributes.get("gen_ai.tool.call.id", s.attributes.get("tool_call.id"))
        turn: int | None = None
        if isinstance(call_id, str) and call_id in call_index:
            failed_calls[call_id] = reason
            turn = _turn_of_index(user_indexes, call_index[call_id])
        elif _operation(s) in _CHAT_OPS:
            n_users = sum(1 for m in chat_inputs.get(s.span_id, []) if m.role == "user")
            turn = max(1, n_users)
        if failing_turn is None:
            failing_turn = turn if turn is not None else max(1, len(user_indexes))
            failure = f"{s.name}: {reason}"
    attrs = {k: v for s in reversed(spans) for k, v in s.attributes.items()}
    conversation_id = next(
        (
            attrs[k]
            for k in ("gen_ai.conversation.id", "session.id")
            if isinstance(attrs.get(k), str)
        ),
        None,
    )
    case_id = attrs.get("agentgauge.case.id")
    trial = attrs.get("agentgauge.trial")
    turn_of_call = {cid: _turn_of_index(user_indexes, i) for cid, i in call_index.items()}
    return TracedConversation(
        trace_id=spans[0].trace_id,
        conversation_id=conversation_id,
        messages=messages,
        tools=_tools(spans),
        user_indexes=user_indexes,
        failing_turn=failing_turn,
        failure=failure,
        failed_calls=failed_calls,
        labels=_labels(spans),
        where=spans[0].where,
        case_id=case_id if isinstance(case_id, str) else None,
        trial=trial if isinstance(trial, int) and trial >= 0 else 0,
        steps=trace_steps(spans, _operation, chat_inputs, turn_of_call),
        duration_ms=_duration_ms(spans),
        feedback=span_feedback(spans),
    )


def _duration_ms(spans: Sequence[Span]) -> float | None:
    """The duration of the trace's root span (the first without a parent in the trace)."""
    ids = {s.span_id for s in spans}
    for s in spans:
        if s.parent_id is None or s.parent_id not in ids:
            return span_latency_ms(s)
    return None


def conversations_from_spans(spans: Sequence[Span]) -> list[TracedConversation]:
    """Each trace among ``spans`` as a conversation, in order of first appearance."""
    by_trace: dict[str, list[Span]] = {}
    for s in spans:
        by_trace.setdefault(s.trace_id, []).append(s)
    return [_conversation(group) for group in by_trace.values()]


def read_conversations(paths: Sequence[str | Path]) -> list[TracedConversation]:
    """The conversations in OTLP/JSON trace files; traces without messages are left out.

    Raises :class:`UserError` when no trace records any message (content capture off).
    """
    conversations = [c for c in conversations_from_spans(read_spans(paths)) if c.messages]
    if not conversations:
        raise UserError(
            f"{paths[0]}:1: no trace records its messages (turn on the instrumentation's "
            "content capture, e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)"
        )
    return conversations
