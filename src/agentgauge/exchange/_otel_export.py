"""A run as OpenTelemetry traces following the GenAI semantic conventions.

One trace per case and trial: a root ``invoke_agent`` span with the verdict and scores, a
``chat`` child per model call and an ``execute_tool`` child per tool call (docs/bring-your-agent.md
lists every attribute). Trace and span ids are derived from the run id, case id and trial, so
exporting the same run twice gives the same ids (a backend deduplicates a re-export).

:func:`results_to_otlp` is pure (OTLP/JSON documents); :mod:`._otlp_send` sends them to an
OTLP/HTTP receiver as protobuf (the official ``opentelemetry-proto`` classes) or JSON, configured
by the ``OTEL_EXPORTER_OTLP_*`` variables as the SDKs are. No OpenTelemetry SDK is needed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .._version import __version__
from ..formats import messages_to_format
from ..schema import CaseResult, Message, ToolCall, TraceEvent
from ._otel_mcp import MCP_TOOL_CALL
from ._otlp import (
    SPAN_KIND_CLIENT,
    SPAN_KIND_INTERNAL,
    STATUS_ERROR,
    STATUS_OK,
    Span,
    SpanEvent,
    otlp_document,
)
from ._otlp_post import post_documents
from ._otlp_send import OtlpTarget, otlp_target

__all__ = [
    "OtelExport",
    "case_spans",
    "export_run_otlp",
    "otlp_batches",
    "provider_name",
    "request_model",
    "results_to_otlp",
    "trace_id_for",
]

#: the GenAI semantic conventions version the attribute names follow
SEMCONV_VERSION: Final = "1.41.0"
#: cases per OTLP request when posting
BATCH_CASES: Final = 200
#: agent spec prefix -> the GenAI conventions' ``gen_ai.provider.name``
_PROVIDERS: Final = {
    "openai": "openai",
    "azure": "azure.ai.openai",
    "anthropic": "anthropic",
    "gemini": "gcp.gemini",
    "local": "llama_cpp",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class OtelExport:
    """What the export needs to know about the run besides its results."""

    run_id: str
    agent: str
    suite: str = ""
    #: record what may quote the conversation: the messages (system prompt included), tool
    #: arguments and results, explanations and error messages. Off (``--no-content``): the spans
    #: keep names, ids, times, counts, statuses and scores only
    content: bool = True


def provider_name(agent: str) -> str:
    """``gen_ai.provider.name`` of an agent spec: the convention's well-known name for a wire
    API (``openai``, ``anthropic``, ``gcp.gemini`` ...), else the spec's prefix (``python``)."""
    prefix = agent.split(":", 1)[0] if ":" in agent else agent
    if prefix in ("http", "https"):
        return "http"
    return _PROVIDERS.get(prefix, prefix or "_OTHER")


def request_model(agent: str) -> str | None:
    """The model an agent spec asks for (``openai:gpt-4o-mini?x=1`` -> ``gpt-4o-mini``); None for
    a spec that names code or a URL rather than a model."""
    prefix, sep, rest = agent.partition(":")
    if not sep or (prefix not in _PROVIDERS and prefix != "local"):
        return None
    return rest.split("?", 1)[0] or None


def _feedback_attrs(result: CaseResult, content: bool) -> dict[str, Any]:
    """The user's feedback as the span attributes ``agentgauge capture`` reads back (the
    comment is the user's own words: content only)."""
    fb = result.feedback
    if fb is None:
        return {}
    return {
        "user.feedback.score": fb.score,
        "user.feedback.scale": list(fb.scale),
        "user.feedback.comment": fb.comment if content else None,
    }


def trace_id_for(run_id: str, case_id: str, trial: int) -> str:
    """The trace id of one case and trial of a run (32 hex digits, stable)."""
    key = f"agentgauge\0{run_id}\0{case_id}\0{trial}".encode()
    return hashlib.sha256(key).hexdigest()[:32]


def _span_id(trace_id: str, n: int) -> str:
    return hashlib.sha256(f"{trace_id}\0{n}".encode()).hexdigest()[:16]


def _ns(seconds: float) -> int:
    return round(seconds * 1e9)


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _tool_call_ids(messages: Sequence[Message]) -> list[ToolCall]:
    """The agent's calls in order (the trace's tool steps follow the same order)."""
    return [c for m in messages if m.role == "assistant" for c in m.tool_calls]


def _labels_attrs(labels: Any) -> dict[str, Any]:
    if labels is None:
        return {}
    return {
        "agentgauge.route": labels.route,
        "agentgauge.skill": labels.skill,
        "agentgauge.intents": list(labels.intents) or None,
    }


def _event_span(
    e: TraceEvent,
    trace_id: str,
    n: int,
    root: str,
    name: str,
    attrs: dict[str, Any],
    content: bool,
    kind: int = SPAN_KIND_INTERNAL,
) -> Span:
    """The ``n``-th step's span under the case's root span: the event's times, its error as
    the status (the error's text only when ``content`` is exported)."""
    return Span(
        trace_id=trace_id,
        span_id=_span_id(trace_id, n),
        parent_id=root,
        name=name,
        start_ns=_ns(e.start),
        end_ns=_ns(e.end),
        attributes=attrs,
        status_code=STATUS_ERROR if e.error else 0,
        status_message=(e.error or "") if content else "",
        kind=kind,
    )


def _model_span(e: TraceEvent, trace_id: str, n: int, root: str, export: OtelExport) -> Span:
    usage = e.usage  # None: the agent reported no token counts (left out, never 0)
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider_name(export.agent),
        "gen_ai.request.model": request_model(export.agent) or e.model,
        "gen_ai.response.model": e.response_model,
        "gen_ai.response.id": e.response_id,
        "gen_ai.response.finish_reasons": [e.finish_reason] if e.finish_reason else None,
        "gen_ai.usage.input_tokens": usage.input_tokens if usage else None,
        "gen_ai.usage.output_tokens": usage.output_tokens if usage else None,
        "agentgauge.turn": e.turn,
        "agentgauge.cached": e.cached or None,
        "agentgauge.attempts": e.attempts if e.attempts != 1 else None,
        "agentgauge.ttft_ms": e.ttft_ms,
        "agentgauge.cost_usd": e.cost_usd,
        **_labels_attrs(e.labels),
    }
    if e.error:
        attrs["error.type"] = _error_type(e.error)
    model = attrs["gen_ai.request.model"]
    name = f"chat {model}" if model else "chat"
    return _event_span(e, trace_id, n, root, name, attrs, export.content, kind=SPAN_KIND_CLIENT)


def _error_type(error: str) -> str:
    """``ProviderError: HTTP 429 ...`` -> ``ProviderError`` (the class name the loop records)."""
    head = error.split(":", 1)[0].strip()
    return head if head.isidentifier() else "_OTHER"


def _tool_span(
    e: TraceEvent, call: ToolCall | None, trace_id: str, n: int, root: str, content: bool
) -> Span:
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": e.tool,
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.id": call.id if call is not None else None,
        "agentgauge.turn": e.turn,
        "agentgauge.fault": e.fault,
    }
    if call is not None and call.mcp:
        # the MCP conventions' method of a tool call; the server, when the transcript names it
        attrs["mcp.method.name"] = MCP_TOOL_CALL
        attrs["agentgauge.mcp.server"] = call.mcp_server
    if content:
        attrs["gen_ai.tool.call.arguments"] = (
            _json(e.arguments) if e.arguments is not None else None
        )
        attrs["gen_ai.tool.call.result"] = _json(e.result) if e.result is not None else None
    if e.error:
        attrs["error.type"] = e.fault or "_OTHER"
    name = f"execute_tool {e.tool}" if e.tool else "execute_tool"
    return _event_span(e, trace_id, n, root, name, attrs, content)


def _user_span(e: TraceEvent, trace_id: str, n: int, root: str, content: bool) -> Span:
    """A simulated user's turn (docs/users.md): no ``gen_ai.operation.name`` and no
    ``gen_ai.usage.*`` (its tokens are not the agent's), so no reader counts it as the
    agent's model call; its own figures under ``agentgauge.user.*``."""
    usage = e.usage
    attrs: dict[str, Any] = {
        "agentgauge.step": "simulated_user",
        "agentgauge.turn": e.turn,
        "agentgauge.user.model": e.model,
        "agentgauge.user.input_tokens": usage.input_tokens if usage else None,
        "agentgauge.user.output_tokens": usage.output_tokens if usage else None,
        "agentgauge.user.cost_usd": e.cost_usd,
        "agentgauge.user.cached": e.cached or None,
    }
    name = f"simulated_user {e.model}" if e.model else "simulated_user"
    return _event_span(e, trace_id, n, root, name, attrs, content)


def _user_attrs(result: CaseResult, content: bool) -> dict[str, Any]:
    """The root span's ``agentgauge.user.*``: who played the user and what it cost, apart
    from the agent's ``gen_ai.usage.*`` (none without a simulated user)."""
    u = result.user
    if u is None:
        return {}
    return {
        "agentgauge.user.kind": u.kind,
        "agentgauge.user.model": u.model,
        "agentgauge.user.template": u.template,
        "agentgauge.user.seed": u.seed,
        "agentgauge.user.turns": u.turns,
        "agentgauge.user.ended_by": u.ended_by,
        # the reason quotes the agent's message: content
        "agentgauge.user.error": u.error if content else None,
        "agentgauge.user.model_calls": u.model_calls,
        "agentgauge.user.input_tokens": u.usage.input_tokens,
        "agentgauge.user.output_tokens": u.usage.output_tokens,
        "agentgauge.user.cost_usd": u.cost_usd,
    }


def _evaluations(result: CaseResult, at: int, content: bool) -> tuple[SpanEvent, ...]:
    events: list[SpanEvent] = []
    for s in result.scores:
        label = "skipped" if s.passed is None else ("pass" if s.passed else "fail")
        attrs = {
            "gen_ai.evaluation.name": s.name,
            "gen_ai.evaluation.score.value": float(s.value),
            "gen_ai.evaluation.score.label": label,
            # an explanation quotes arguments and replies: content
            "gen_ai.evaluation.explanation": (s.explanation or None) if content else None,
        }
        events.append(SpanEvent("gen_ai.evaluation.result", at, attrs))
    return tuple(events)


def _conversation_attrs(result: CaseResult) -> dict[str, Any]:
    messages = list(result.messages)
    if not messages:
        return {}
    output: list[Message] = []
    if messages[-1].role == "assistant":
        output = [messages.pop()]
    attrs: dict[str, Any] = {"gen_ai.input.messages": _json(messages_to_format(messages, "otel"))}
    if output:
        (final,) = messages_to_format(output, "otel")
        final["finish_reason"] = "tool_call" if output[0].tool_calls else "stop"
        attrs["gen_ai.output.messages"] = _json([final])
    return attrs


def case_spans(result: CaseResult, export: OtelExport) -> list[Span]:
    """The spans of one case and trial: the root ``invoke_agent`` span first."""
    trace_id = trace_id_for(export.run_id, result.case_id, result.trial)
    root_id = _span_id(trace_id, 0)
    children: list[Span] = []
    call_ids = iter(_tool_call_ids(result.messages))
    for n, e in enumerate(result.trace, start=1):
        if e.kind == "model":
            children.append(_model_span(e, trace_id, n, root_id, export))
        elif e.kind == "user":
            # a simulated user's turn: a span of its own, its usage not the agent's
            children.append(_user_span(e, trace_id, n, root_id, export.content))
        else:
            children.append(
                _tool_span(e, next(call_ids, None), trace_id, n, root_id, export.content)
            )
    if children:
        start, end = min(s.start_ns for s in children), max(s.end_ns for s in children)
        # the root span lasts as long as the case took (scored back, its latency is the same)
        end = max(end, start + _ns(result.latency_ms / 1000))
    else:
        start, end = 0, _ns(result.latency_ms / 1000)
    # unknown usage (an agent or a trace that reports no token counts) is left out, not 0
    known = result.usage_recorded
    attrs: dict[str, Any] = {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": export.agent,
        "gen_ai.provider.name": provider_name(export.agent),
        "gen_ai.conversation.id": result.case_id,
        "gen_ai.usage.input_tokens": result.usage.input_tokens if known else None,
        "gen_ai.usage.output_tokens": result.usage.output_tokens if known else None,
        "agentgauge.case.id": result.case_id,
        "agentgauge.trial": result.trial,
        "agentgauge.status": result.status,
        "agentgauge.score": float(result.score),
        "agentgauge.category": result.category,
        "agentgauge.tags": list(result.tags) or None,
        "agentgauge.explanation": (result.explanation or None) if export.content else None,
        "agentgauge.behavior": result.behavior,
        "agentgauge.expected_tools": list(result.expected_tools) or None,
        "agentgauge.cost_usd": result.cost_usd,
        "agentgauge.replayed": result.replayed or None,
        **_labels_attrs(result.predicted_labels),
        **_user_attrs(result, export.content),
        **_feedback_attrs(result, export.content),
    }
    if export.content:
        attrs.update(_conversation_attrs(result))
    reason = (result.error or result.explanation or result.status).splitlines()
    message = f"{result.status}: {reason[0]}" if export.content else result.status
    root = Span(
        trace_id=trace_id,
        span_id=root_id,
        parent_id=None,
        name=f"invoke_agent {export.agent}",
        start_ns=start,
        end_ns=end,
        attributes=attrs,
        events=_evaluations(result, end, export.content),
        status_code=STATUS_OK if result.status == "passed" else STATUS_ERROR,
        status_message="" if result.status == "passed" else message,
        kind=SPAN_KIND_INTERNAL,
    )
    return [root, *children]


def _document(spans: list[Span], export: OtelExport) -> dict[str, Any]:
    resource = {
        "service.name": "agentgauge",
        "agentgauge.run.id": export.run_id,
        "agentgauge.suite": export.suite or None,
        "agentgauge.semconv": f"gen_ai {SEMCONV_VERSION}",
    }
    return otlp_document(spans, resource, ("agentgauge", __version__))


def results_to_otlp(results: Iterable[CaseResult], export: OtelExport) -> dict[str, Any]:
    """Every case and trial as one OTLP/JSON ``ExportTraceServiceRequest``."""
    spans = [s for r in results for s in case_spans(r, export)]
    return _document(spans, export)


def otlp_batches(
    results: Iterable[CaseResult], export: OtelExport, cases: int = BATCH_CASES
) -> Iterator[dict[str, Any]]:
    """The same as :func:`results_to_otlp`, ``cases`` cases per document (for posting)."""
    spans: list[Span] = []
    n = 0
    for r in results:
        spans.extend(case_spans(r, export))
        n += 1
        if n == cases:
            yield _document(spans, export)
            spans, n = [], 0
    if spans:
        yield _document(spans, export)


def export_run_otlp(
    run_dir: Path,
    export: OtelExport,
    *,
    output: Path | None = None,
    endpoint: str | OtlpTarget | None = None,
) -> int:
    """Write a run's results as OTLP/JSON to ``output`` and/or send them to ``endpoint`` (a base
    URL, or an :class:`OtlpTarget` with its protocol, headers and timeout).

    Returns the number of spans exported (written, else sent).
    """
    from .. import _secrets
    from ..rundir import iter_results

    _secrets.register_env()
    count = 0
    if output is not None:
        doc = results_to_otlp(iter_results(run_dir), export)
        output.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
        output.write_text(_secrets.scrub(text), encoding="utf-8")  # keys of this process too
        count = sum(len(ss["spans"]) for rs in doc["resourceSpans"] for ss in rs["scopeSpans"])
    if endpoint is not None:
        target = otlp_target(endpoint) if isinstance(endpoint, str) else endpoint
        assert target is not None  # an endpoint was given
        count = post_documents(otlp_batches(iter_results(run_dir), export), target)
    return count
