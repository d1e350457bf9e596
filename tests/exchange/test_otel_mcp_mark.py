"""The MCP mark through OpenTelemetry: spans of MCP tool calls (the MCP semantic conventions'
``mcp.method.name: tools/call`` client span, nested in an agent's ``execute_tool`` span or on its
own) mark the calls a captured trace records, so ``agentgauge score --responses trace.json``
fails ``forbidden_types: [mcp]`` on them and passes on the same trace without MCP spans; a run's
OTel export writes the mark on the tool span and reads it back (round trip), and the transcript
export keeps it where the format has a shape for it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentgauge.exchange import OtelExport, capture_cases, export_run_otlp, read_responses
from agentgauge.exchange._otel_export import case_spans
from agentgauge.exchange._otel_import import conversations_from_spans, read_conversations
from agentgauge.formats import messages_from_data, messages_to_format
from agentgauge.runner import score_responses
from agentgauge.schema import CaseResult, Message, Suite, ToolCall, TraceEvent
from agentgauge.scoring import ScoringConfig

TRACE = "5b8efff798038103d269b633813fc60c"
SUITE = Suite.model_validate(
    {
        "name": "s",
        "tools": [{"name": "kb", "parameters": {"type": "object", "properties": {"q": {}}}}],
        "cases": [
            {
                "id": "leave",
                "input": "Leave?",
                "expect": {"behavior": "any_tool", "forbidden_types": ["mcp"]},
            }
        ],
    }
)


def _attrs(d: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for k, v in d.items():
        value = {"intValue": str(v)} if isinstance(v, int) else {"stringValue": v}
        out.append({"key": k, "value": value})
    return out


def _span(sid: str, name: str, attrs: dict[str, Any], parent: str | None, t: int) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": TRACE,
        "spanId": sid,
        "name": name,
        "kind": 1,
        "startTimeUnixNano": str(1764583200000000000 + t * 1000000),
        "endTimeUnixNano": str(1764583200000000000 + t * 1000000 + 500000),
        "attributes": _attrs(attrs),
    }
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def _trace(tmp_path: Path, mcp: str | None) -> Path:
    """A chat span (the conversation: a call of kb with its result, then the answer) and a tool
    step: ``mcp`` None: a plain execute_tool span; ``nested``: an execute_tool span holding an
    MCP client span (no call id of its own); ``alone``: only the MCP client span."""
    inp = [
        {"role": "user", "parts": [{"type": "text", "content": "Leave?"}]},
        {
            "role": "assistant",
            "parts": [
                {"type": "tool_call", "id": "call_1", "name": "kb", "arguments": {"q": "leave"}}
            ],
        },
        {
            "role": "tool",
            "parts": [{"type": "tool_call_response", "id": "call_1", "response": "25 days"}],
        },
    ]
    out = [{"role": "assistant", "parts": [{"type": "text", "content": "25 days."}]}]
    chat = {
        "gen_ai.operation.name": "chat",
        "gen_ai.request.model": "m",
        "gen_ai.input.messages": json.dumps(inp),
        "gen_ai.output.messages": json.dumps(out),
    }
    tool = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "kb",
        "gen_ai.tool.call.id": "call_1",
    }
    client = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": "kb",
        "gen_ai.operation.name": "execute_tool",
        "mcp.session.id": "s1",
        "jsonrpc.request.id": "7",
    }
    spans = [
        _span(
            "a000000000000001",
            "invoke_agent",
            {"gen_ai.operation.name": "invoke_agent", "agentgauge.case.id": "leave"},
            None,
            0,
        )
    ]
    if mcp in (None, "nested"):
        spans.append(_span("a000000000000002", "execute_tool kb", tool, "a000000000000001", 1))
    if mcp == "nested":
        spans.append(_span("a000000000000003", "tools/call kb", client, "a000000000000002", 2))
    if mcp == "alone":
        spans.append(_span("a000000000000003", "tools/call kb", client, "a000000000000001", 2))
    spans.append(_span("a000000000000004", "chat m", chat, "a000000000000001", 3))
    doc = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [{"spans": spans}]}]}
    path = tmp_path / f"trace-{mcp}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _score(tmp_path: Path, responses: Path, name: str) -> CaseResult:
    run = tmp_path / name
    score_responses(SUITE, read_responses(responses), run, ScoringConfig(), skip_missing=True)
    (row,) = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return CaseResult.model_validate_json(row)


def test_mcp_tool_spans_mark_the_calls_of_a_trace(tmp_path: Path) -> None:
    for mcp in ("nested", "alone"):
        (conversation,) = read_conversations([_trace(tmp_path, mcp)])
        calls = [c for m in conversation.messages for c in m.tool_calls]
        assert [(c.name, c.mcp) for c in calls] == [("kb", True)], mcp
        # one tool step: the MCP client span inside the execute_tool span is that step
        assert [s.tool for s in conversation.steps if s.kind == "tool"] == ["kb"], mcp
    (plain,) = read_conversations([_trace(tmp_path, None)])
    assert [c.mcp for m in plain.messages for c in m.tool_calls] == [False]


def test_forbidden_types_fails_on_a_traced_mcp_call_and_passes_without(tmp_path: Path) -> None:
    for mcp in ("nested", "alone"):
        result = _score(tmp_path, _trace(tmp_path, mcp), f"run-{mcp}")
        assert result.status == "failed", mcp
        assert "call(s) to a forbidden mcp tool: kb" in result.explanation
    result = _score(tmp_path, _trace(tmp_path, None), "run-plain")
    assert result.status == "passed", result.explanation


def _responses(tmp_path: Path, mcp: bool) -> Path:
    call = {"name": "kb", "arguments": {"q": "leave"}, "id": "call_1"}
    if mcp:
        call["mcp"] = True
    path = tmp_path / f"responses-{mcp}.jsonl"
    messages = [
        {"role": "user", "content": "Leave?"},
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "content": "25 days", "tool_call_id": "call_1", "name": "kb"},
        {"role": "assistant", "content": "25 days."},
    ]
    line = {"case_id": "leave", "messages": messages}
    path.write_text(json.dumps(line) + "\n", encoding="utf-8")
    return path


def test_the_mark_round_trips_through_results_and_the_otel_export(tmp_path: Path) -> None:
    for mcp in (True, False):
        first = _score(tmp_path, _responses(tmp_path, mcp), f"first-{mcp}")
        assert first.status == ("failed" if mcp else "passed")
        # results.jsonl keeps the mark
        assert [c.mcp for m in first.messages for c in m.tool_calls] == [mcp]
        out = tmp_path / f"export-{mcp}.json"
        export_run_otlp(tmp_path / f"first-{mcp}", OtelExport(run_id="r", agent="mock"), output=out)
        # the conversation's call is the conventions' server_tool_call part of type mcp
        assert ("server_tool_call" in out.read_text()) is mcp
        # read back and scored again: the same verdict
        again = _score(tmp_path, out, f"again-{mcp}")
        assert again.status == first.status, again.explanation
        assert [c.mcp for m in again.messages for c in m.tool_calls] == [mcp]


def test_the_tool_span_of_a_marked_call_says_tools_call(tmp_path: Path) -> None:
    first = _score(tmp_path, _responses(tmp_path, True), "first")
    step = TraceEvent(kind="tool", start=1.0, end=1.5, latency_ms=500.0, tool="kb")
    export = OtelExport(run_id="r", agent="mock")
    for mark in (True, False):
        messages = [
            m.model_copy(
                update={"tool_calls": [c.model_copy(update={"mcp": mark}) for c in m.tool_calls]}
            )
            for m in first.messages
        ]
        result = first.model_copy(update={"trace": [step], "messages": messages})
        spans = case_spans(result, export)
        (tool,) = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
        assert (tool.attributes.get("mcp.method.name") == "tools/call") is mark
        (conversation,) = conversations_from_spans(spans)
        assert [c.mcp for m in conversation.messages for c in m.tool_calls] == [mark]


def test_transcript_export_keeps_the_mark_where_the_format_can() -> None:
    messages = [
        Message(role="user", content="Leave?"),
        Message(
            role="assistant",
            content="Let me look.",
            tool_calls=[
                ToolCall(name="kb", id="m1", arguments={"q": "x"}, mcp=True, mcp_server="docs")
            ],
        ),
        Message(role="tool", content='{"error": "down"}', tool_call_id="m1", name="kb"),
        Message(role="assistant", content="Sorry."),
    ]
    for fmt in ("native", "anthropic", "openai-responses", "otel"):
        back, _ = messages_from_data(messages_to_format(messages, fmt), fmt)
        assert back == messages, fmt
    anthropic = messages_to_format(messages, "anthropic")["messages"]
    assert [b["type"] for b in anthropic[1]["content"]] == [
        "text",
        "mcp_tool_use",
        "mcp_tool_result",
        "text",
    ]
    # chat completions has no shape for it: the call is a plain function call there
    back, _ = messages_from_data(messages_to_format(messages, "openai"), "openai")
    assert [c.mcp for m in back for c in m.tool_calls] == [False]


def test_a_captured_case_expects_the_traced_mcp_call_to_be_one(tmp_path: Path) -> None:
    (captured,) = capture_cases([_trace(tmp_path, "alone")])
    assert captured.data["expect"]["tool_calls"][0]["type"] == "mcp"
    (expected,) = captured.case.expect.tool_calls if captured.case.expect else []
    assert expected.type == "mcp"
    (plain,) = capture_cases([_trace(tmp_path, None)])
    assert "type" not in plain.data["expect"]["tool_calls"][0]
