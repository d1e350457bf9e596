"""The model and tool steps of a traced conversation, as agentgauge trace events.

A span without a token count gives a model step with ``usage`` None, and one without times a
step with ``latency_ms`` 0 (TraceEvent's "not measured"): nothing unrecorded is written as 0
tokens.

Each model-call span becomes a ``model`` :class:`~agentgauge.schema.TraceEvent` (model, token
usage, latency, error) and each tool span a ``tool`` event (tool, arguments, result, error), so
responses read from production traces carry the same per-step record a run writes. Attribute
names: the GenAI conventions' first (``gen_ai.response.model`` / ``gen_ai.request.model``,
``gen_ai.usage.input_tokens`` / ``output_tokens``, ``gen_ai.tool.name``,
``gen_ai.tool.call.arguments`` / ``.result``), then OpenLLMetry's (``gen_ai.usage.prompt_tokens``,
``traceloop.entity.name`` / ``.input`` / ``.output``) and OpenInference's (``llm.model_name``,
``llm.token_count.prompt`` / ``.completion``, ``tool.name``, ``input.value``, ``output.value``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..schema import Message, TraceEvent, Usage
from ._otel_mcp import is_mcp_tool_span, mcp_tool_name, nested_in_tool
from ._otlp import Span

__all__ = ["span_latency_ms", "trace_steps"]


def _first(attrs: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if attrs.get(key) is not None:
            return attrs[key]
    return None


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (ValueError, RecursionError):
            return value
    return value


def _tokens(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None


def _usage(a: Mapping[str, Any]) -> Usage | None:
    """The span's token usage; None when it records no token count (never a made-up 0)."""
    inp = _tokens(
        _first(
            a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"
        )
    )
    out = _tokens(_first(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
                         "llm.token_count.completion"))  # fmt: skip
    if inp is None and out is None:
        return None
    return Usage(input_tokens=inp or 0, output_tokens=out or 0)


def _ttft_ms(a: Mapping[str, Any]) -> float | None:
    """Time to first token when the span records it: ``agentgauge.ttft_ms`` (milliseconds, our
    own export) or ``gen_ai.server.time_to_first_token`` (seconds, the GenAI metric's name)."""
    for key, scale in (("agentgauge.ttft_ms", 1.0), ("gen_ai.server.time_to_first_token", 1e3)):
        value = a.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
            return float(value) * scale
    return None


def span_latency_ms(span: Span) -> float | None:
    """The span's duration; None when it has no start or end time (or ends before it starts)."""
    if span.start_ns <= 0 or span.end_ns <= 0 or span.end_ns < span.start_ns:
        return None
    return (span.end_ns - span.start_ns) / 1e6


def _model_event(span: Span, turn: int) -> TraceEvent:
    a = span.attributes
    model = _first(a, "gen_ai.response.model", "gen_ai.request.model", "llm.model_name")
    return TraceEvent(
        kind="model",
        turn=turn,
        start=span.start_ns / 1e9,
        end=span.end_ns / 1e9,
        latency_ms=span_latency_ms(span) or 0.0,
        model=model if isinstance(model, str) else None,
        usage=_usage(a),
        ttft_ms=_ttft_ms(a),
        error=(span.status_message or "error") if span.is_error else None,
    )


def _tool_event(span: Span, turn: int) -> TraceEvent:
    a = span.attributes
    name = _first(a, "gen_ai.tool.name", "tool.name", "traceloop.entity.name")
    if name is None and is_mcp_tool_span(span):
        name = mcp_tool_name(span)  # ``tools/call NAME``
    arguments = _json(_first(a, "gen_ai.tool.call.arguments", "traceloop.entity.input",
                             "tool.parameters", "input.value"))  # fmt: skip
    result = _json(_first(a, "gen_ai.tool.call.result", "traceloop.entity.output", "output.value"))
    return TraceEvent(
        kind="tool",
        turn=turn,
        start=span.start_ns / 1e9,
        end=span.end_ns / 1e9,
        latency_ms=span_latency_ms(span) or 0.0,
        tool=name if isinstance(name, str) else None,
        arguments=arguments if isinstance(arguments, dict) else None,
        result=result,
        error=(span.status_message or "error") if span.is_error else None,
    )


def trace_steps(
    spans: Sequence[Span],
    operation: Callable[[Span], str | None],
    chat_inputs: Mapping[str, list[Message]],
    turn_of_call: Mapping[str, int],
) -> list[TraceEvent]:
    """The steps of one trace in time order; ``turn`` is the conversation's 0-based user turn.

    ``chat_inputs`` holds each model-call span's input messages (its turn is the number of user
    messages it was sent); a tool span takes its call's turn (``turn_of_call``, 1-based, by
    ``gen_ai.tool.call.id``), else the turn of the model call before it.
    """
    out: list[TraceEvent] = []
    turn = 0
    by_id = {s.span_id: s for s in spans}
    for span in spans:
        op = operation(span)
        if op == "execute_tool" and nested_in_tool(span, by_id, operation) is not None:
            continue  # an MCP client span inside a tool step: that step, not another
        own = _own_turn(span)
        if op in ("chat", "text_completion", "generate_content", "completion"):
            users = sum(1 for m in chat_inputs.get(span.span_id, []) if m.role == "user")
            turn = own if own is not None else max(0, users - 1)
            out.append(_model_event(span, turn))
        elif op == "execute_tool":
            call_id = _first(span.attributes, "gen_ai.tool.call.id", "tool_call.id")
            tool_turn = (
                turn_of_call.get(call_id, turn + 1) - 1 if isinstance(call_id, str) else turn
            )
            out.append(_tool_event(span, own if own is not None else tool_turn))
    return out


def _own_turn(span: Span) -> int | None:
    """The 0-based user turn agentgauge's own export records on each step (``agentgauge.turn``)."""
    value = span.attributes.get("agentgauge.turn")
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return None
