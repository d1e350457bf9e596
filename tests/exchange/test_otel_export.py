"""A run exported as OpenTelemetry traces: the span tree a loopback OTLP/HTTP receiver gets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.exchange._otlp import decode_value
from otlp_receiver import Receiver, attrs, receiver_factory

__all__ = ["receiver_factory"]  # the fixture, imported for pytest

SUITE = """
name: weather
tools:
  - name: get_weather
    description: Current weather for a city.
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
    simulation: {result: {temp_c: 18}}
cases:
  - id: paris
    input: Weather in Paris?
    expect:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - id: rome
    input: Weather in Rome?
    expect:
      tool_calls: [{name: get_weather, arguments: {city: Rome}}]
"""
SCRIPT = [
    {"calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
    {"text": "18 degrees in Paris."},
    {"calls": [{"name": "get_weather", "arguments": {"city": "Lyon"}}]},
    {"text": "18 degrees."},
]


@pytest.fixture
def receiver(receiver_factory: Any) -> Receiver:
    r: Receiver = receiver_factory()
    return r


_attrs = attrs


def _run(tmp_path: Path, *extra: str) -> tuple[Path, str]:
    (tmp_path / "suite.yaml").write_text(SUITE)
    script = tmp_path / "script.jsonl"
    script.write_text("".join(json.dumps(x) + "\n" for x in SCRIPT))
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(
        cli,
        ["run", str(tmp_path / "suite.yaml"), "--agent", f"mock:{script}", "-o", str(run_dir),
         "--max-concurrency", "1", "--no-cache", *extra],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    return run_dir, result.output


def test_run_with_otel_endpoint_sends_the_genai_span_tree(
    tmp_path: Path, receiver: Receiver
) -> None:
    _, out = _run(tmp_path, "--otel-endpoint", receiver.url)
    assert "otel: sent 8 span(s) to the OTLP endpoint" in out
    request = receiver.requests[0]  # OTLP/HTTP's default body: protobuf
    assert (request.path, request.headers["content-type"]) == (
        "/v1/traces",
        "application/x-protobuf",
    )
    spans = receiver.spans()
    roots = [s for s in spans if "parentSpanId" not in s]
    assert len(roots) == 2
    by_case = {_attrs(r)["agentgauge.case.id"]: r for r in roots}
    for case, status, code in (("paris", "passed", 1), ("rome", "failed", 2)):
        root = by_case[case]
        attrs = _attrs(root)
        assert root["name"].startswith("invoke_agent mock:")
        assert attrs["gen_ai.operation.name"] == "invoke_agent"
        assert attrs["agentgauge.status"] == status
        assert root["status"]["code"] == code
        children = [s for s in spans if s.get("parentSpanId") == root["spanId"]]
        assert all(c["traceId"] == root["traceId"] for c in children)
        kinds = [_attrs(c)["gen_ai.operation.name"] for c in children]
        assert kinds == ["chat", "execute_tool", "chat"]
        tool = _attrs(children[1])
        assert tool["gen_ai.tool.name"] == "get_weather"
        assert tool["gen_ai.tool.call.id"]
        assert json.loads(tool["gen_ai.tool.call.arguments"])["city"] in ("Paris", "Lyon")
        assert json.loads(tool["gen_ai.tool.call.result"]) == {"temp_c": 18}
        evaluations = [e for e in root["events"] if e["name"] == "gen_ai.evaluation.result"]
        assert evaluations
        labels = {
            next(decode_value(a["value"]) for a in e["attributes"]
                 if a["key"] == "gen_ai.evaluation.score.label")
            for e in evaluations
        }  # fmt: skip
        assert ("fail" in labels) == (status == "failed")
    rome = _attrs(by_case["rome"])
    assert "Rome" in rome["agentgauge.explanation"]
    assert "Lyon" in rome["agentgauge.explanation"]
    messages = json.loads(rome["gen_ai.input.messages"])
    assert messages[0] == {
        "role": "user",
        "parts": [{"type": "text", "content": "Weather in Rome?"}],
    }


def test_export_otel_file_is_stable_and_matches_what_is_posted(
    tmp_path: Path, receiver: Receiver
) -> None:
    run_dir, _ = _run(tmp_path)
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    for out in (first, second):
        result = CliRunner().invoke(cli, ["export-otel", str(run_dir), "-o", str(out)])
        assert result.exit_code == 0, result.output
        assert "exported 8 span(s)" in result.output
    assert first.read_text() == second.read_text()  # deterministic ids: a re-export is stable
    result = CliRunner().invoke(cli, ["export-otel", str(run_dir), "--endpoint", receiver.url])
    assert result.exit_code == 0, result.output
    posted = receiver.requests[0].doc  # decoded from protobuf: the same spans as the file
    written = json.loads(first.read_text())
    assert _span_set(posted) == _span_set(written)
    result = CliRunner().invoke(
        cli, ["export-otel", str(run_dir), "--endpoint", receiver.url, "--protocol", "http/json"]
    )
    assert result.exit_code == 0, result.output
    assert receiver.requests[1].headers["content-type"] == "application/json"
    assert receiver.requests[1].doc == written  # OTLP/JSON on request: the file's document


def _span_set(doc: dict[str, Any]) -> list[tuple[str, str, str, dict[str, Any]]]:
    return sorted(
        (s["traceId"], s["spanId"], s["name"], attrs(s))
        for rs in doc["resourceSpans"]
        for ss in rs["scopeSpans"]
        for s in ss["spans"]
    )


def test_an_unreachable_or_refusing_endpoint_is_one_line_exit_2(tmp_path: Path) -> None:
    run_dir, _ = _run(tmp_path)
    result = CliRunner().invoke(cli, ["export-otel", str(run_dir), "--endpoint", "ftp://x"])
    assert result.exit_code == 2
    assert result.output.strip().endswith("expected an http:// or https:// URL, got 'ftp://x'")
    result = CliRunner().invoke(
        cli, ["export-otel", str(run_dir), "--endpoint", "http://127.0.0.1:9"]
    )
    assert result.exit_code == 2
    assert "OTLP export failed" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_run_keeps_its_summary_when_the_receiver_is_down(tmp_path: Path) -> None:
    run_dir, out = _run(tmp_path, "--otel-endpoint", "http://user:secret@127.0.0.1:9")
    assert (run_dir / "summary.json").exists()
    assert "OTLP export failed" in out
    assert "secret" not in out
