"""`score --responses traces.json` carries the spans' steps into the results: latency from the
agent's root span, tokens summed over the model spans, one trace event per model / tool span,
time to first token when a span records it; a trace without timing or usage leaves them unset
(not 0) in the results and in summary.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.exchange._otlp import Span, otlp_document, read_spans
from agentgauge.io import iter_results
from agentgauge.schema import CaseResult

T0 = 1_764_583_200_000_000_000  # ns
MS = 1_000_000
TRACE = "cd" * 16
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather of a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
USER = {"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}
CALL = {
    "role": "assistant",
    "parts": [
        {"type": "tool_call", "id": "c1", "name": "get_weather", "arguments": {"city": "Paris"}}
    ],
}
RESULT = {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c1", "response": "21C"}]}
ANSWER = {"role": "assistant", "parts": [{"type": "text", "content": "It is 21C in Paris."}]}


def _spans(*, usage: bool = True, timed: bool = True) -> list[Span]:
    """An agent (0 .. 2500 ms) with two model calls (100 .. 900 ms: 100 in / 20 out tokens;
    1300 .. 2300 ms: 150 / 30, ttft 250 ms) and one tool call (1000 .. 1200 ms)."""

    def at(ms: int) -> int:
        return T0 + ms * MS if timed else 0

    def chat(sid: str, start: int, end: int, ins: list[Any], out: Any, tokens: tuple[int, int],
             **extra: Any) -> Span:  # fmt: skip
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.input.messages": json.dumps(ins),
            "gen_ai.output.messages": json.dumps([out]),
            "gen_ai.tool.definitions": json.dumps(TOOLS),
            **extra,
        }
        if usage:
            attrs["gen_ai.usage.input_tokens"] = tokens[0]
            attrs["gen_ai.usage.output_tokens"] = tokens[1]
        return Span(TRACE, sid, "1" * 16, "chat gpt-4o-mini", at(start), at(end), attrs)

    tool_attrs = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "c1",
        "gen_ai.tool.call.arguments": json.dumps({"city": "Paris"}),
        "gen_ai.tool.call.result": "21C",
    }
    root = {"gen_ai.operation.name": "invoke_agent", "gen_ai.conversation.id": "paris"}
    return [
        Span(TRACE, "1" * 16, None, "invoke_agent weather", at(0), at(2500), root),
        chat("2" * 16, 100, 900, [USER], CALL, (100, 20)),
        Span(TRACE, "3" * 16, "1" * 16, "execute_tool get_weather", at(1000), at(1200), tool_attrs),
        chat("4" * 16, 1300, 2300, [USER, CALL, RESULT], ANSWER, (150, 30),
             **({"gen_ai.server.time_to_first_token": 0.25} if timed else {})),
    ]  # fmt: skip


def _score(tmp_path: Path, spans: list[Span]) -> tuple[CaseResult, dict[str, Any]]:
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(otlp_document(spans, {}, ("weather-agent", "1"))))
    cases, run = tmp_path / "cases.jsonl", tmp_path / "run"
    runner = CliRunner()
    made = runner.invoke(cli, ["capture", str(trace), "-o", str(cases)])
    assert made.exit_code == 0, made.output
    scored = runner.invoke(cli, ["score", str(cases), "--responses", str(trace), "-o", str(run)])
    assert scored.exit_code == 0, scored.output
    (result,) = iter_results(run)
    summary = json.loads((run / "summary.json").read_text())
    return result, summary


def test_a_traced_agent_s_steps_become_the_result_s_performance_and_cost(
    tmp_path: Path,
) -> None:
    result, summary = _score(tmp_path, _spans())
    assert result.case_id == "paris-turn1"
    assert result.latency_ms == pytest.approx(2500)  # the root span, not the steps' sum
    assert (result.usage.input_tokens, result.usage.output_tokens) == (250, 50)
    assert result.usage_recorded
    assert (result.model_calls, result.tool_calls) == (2, 1)
    assert result.ttft_ms == pytest.approx(250)
    steps = [(e.kind, e.tool or e.model, e.latency_ms) for e in result.trace]
    assert steps == [
        ("model", "gpt-4o-mini", pytest.approx(800)),
        ("tool", "get_weather", pytest.approx(200)),
        ("model", "gpt-4o-mini", pytest.approx(1000)),
    ]
    usages = [e.usage and (e.usage.input_tokens, e.usage.output_tokens) for e in result.trace]
    assert usages == [(100, 20), None, (150, 30)]
    assert [e.ttft_ms for e in result.trace] == [None, None, pytest.approx(250)]

    cost, perf = summary["cost"], summary["performance"]
    assert cost["input_tokens"]["n"] == 1
    assert cost["input_tokens"]["mean"] == pytest.approx(250)
    assert cost["output_tokens"]["mean"] == pytest.approx(50)
    assert cost["model_calls"]["mean"] == pytest.approx(2)
    assert cost["tool_calls"]["mean"] == pytest.approx(1)
    assert perf["latency_mean"]["mean"] == pytest.approx(2500)
    assert perf["latency"]["p50"] == pytest.approx(2500, rel=0.02)  # histogram buckets: 1 %
    assert perf["ttft"]["p50"] == pytest.approx(250, rel=0.02)


def test_a_trace_without_usage_or_times_leaves_them_unset_not_zero(tmp_path: Path) -> None:
    result, summary = _score(tmp_path, _spans(usage=False, timed=False))
    assert [e.kind for e in result.trace] == ["model", "tool", "model"]
    assert [e.usage for e in result.trace] == [None, None, None]  # not Usage(0, 0)
    assert not result.usage_recorded
    assert result.model_calls == 2  # the steps are still counted
    assert result.latency_ms == 0.0  # "not measured" for metrics, as for a driven case
    assert result.ttft_ms is None
    cost, perf = summary["cost"], summary["performance"]
    # no 0-token mean out of unknown usage, no 0 ms latency out of missing times
    assert cost["input_tokens"]["n"] == 0
    assert cost["input_tokens"]["mean"] is None
    assert cost["output_tokens"]["n"] == 0
    assert perf["latency_mean"]["n"] == 0
    assert perf["latency"]["n"] == 0
    assert perf["ttft"]["n"] == 0
    exported = tmp_path / "export.json"  # exported again: no made-up 0 tokens on the agent span
    out = CliRunner().invoke(cli, ["export-otel", str(tmp_path / "run"), "-o", str(exported)])
    assert out.exit_code == 0, out.output
    (root,) = [s for s in read_spans([exported]) if s.parent_id is None]
    assert "gen_ai.usage.input_tokens" not in root.attributes
    assert "gen_ai.usage.output_tokens" not in root.attributes


def test_a_span_counting_zero_tokens_is_zero_not_unknown(tmp_path: Path) -> None:
    spans = _spans()
    for s in spans:
        if "gen_ai.usage.input_tokens" in s.attributes:
            s.attributes["gen_ai.usage.input_tokens"] = 0
            s.attributes["gen_ai.usage.output_tokens"] = 0
    result, summary = _score(tmp_path, spans)
    assert result.usage_recorded
    assert summary["cost"]["input_tokens"]["n"] == 1
    assert summary["cost"]["input_tokens"]["mean"] == 0
