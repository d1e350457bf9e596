"""A production trace of a failing conversation becomes a case in one command; the edited case
fails on the recorded behaviour and passes on a corrected one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.exchange._capture import capture_cases
from agentgauge.io import iter_results, load_cases, read_responses

FIXTURES = Path(__file__).parent / "fixtures" / "otel"
BOOKING = FIXTURES / "failed_booking.json"
WEATHER = FIXTURES / "weather_openllmetry.jsonl"


def _invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def _statuses(run_dir: Path) -> dict[str, str]:
    return {r.case_id: r.status for r in iter_results(run_dir)}


def test_capture_turns_the_failing_turn_into_a_valid_case(tmp_path: Path) -> None:
    out = tmp_path / "cases.jsonl"
    code, text = _invoke("capture", str(BOOKING), str(WEATHER), "-o", str(out))
    assert code == 0, text
    assert "conv-8841-turn2: turn 2 (failed: execute_tool book_flight: fare for XA101" in text
    booking, weather = load_cases(out)
    assert isinstance(booking.input, list)
    assert booking.input[0].role == "system"
    assert booking.input[-1].content == "Book the cheaper one, window seat please."
    assert [m.role for m in booking.input] == [
        "system", "user", "assistant", "tool", "assistant", "user"
    ]  # fmt: skip
    (call,) = booking.expect.tool_calls  # the observed call, as a starting point
    assert call.name == "book_flight"
    assert {k: m.value for k, m in call.arguments.items()} == {"flight": "XA101", "seat": "aisle"}
    assert [t.name for t in booking.tools or []] == ["search_flights", "book_flight"]
    (sim,) = booking.tool_results["book_flight"]  # type: ignore[misc]
    assert (sim.fault, sim.error) == ("error", "fare for XA101 changed, booking refused")
    assert "failed-in-production" in booking.tags
    # OpenLLMetry's indexed attributes, a file-exporter JSONL split over two lines
    assert weather.input[-1].content == "Is it raining in Lisbon?"  # type: ignore[index, union-attr]
    assert [c.name for c in weather.expect.tool_calls] == ["get_weather"]
    assert [t.name for t in weather.tools or []] == ["get_weather"]
    code, text = _invoke("validate", str(out))
    assert code == 0, text


def _edit_expectation(path: Path, case_id: str, arguments: dict[str, Any]) -> None:
    lines = []
    for line in path.read_text().splitlines():
        case = json.loads(line)
        if case["id"] == case_id:
            case["expect"]["tool_calls"][0]["arguments"] = arguments
        lines.append(json.dumps(case))
    path.write_text("\n".join(lines) + "\n")


def test_edited_case_fails_on_the_recorded_behaviour_and_passes_on_a_corrected_one(
    tmp_path: Path,
) -> None:
    cases = tmp_path / "cases.jsonl"
    assert _invoke("capture", str(BOOKING), "-o", str(cases))[0] == 0
    # as captured, the expectation is what production did: the recording passes it
    code, text = _invoke(
        "score", str(cases), "--responses", str(BOOKING), "-o", str(tmp_path / "r0")
    )
    assert code == 0, text
    assert _statuses(tmp_path / "r0") == {"conv-8841-turn2": "passed"}
    # the user writes down what should have happened: the cheaper flight, a window seat
    _edit_expectation(cases, "conv-8841-turn2", {"flight": "XA205", "seat": "window"})
    code, text = _invoke(
        "score", str(cases), "--responses", str(BOOKING), "-o", str(tmp_path / "r1")
    )
    assert code == 0, text
    assert _statuses(tmp_path / "r1") == {"conv-8841-turn2": "failed"}
    (result,) = iter_results(tmp_path / "r1")
    assert "XA205" in result.explanation
    assert "XA101" in result.explanation
    # a corrected agent's transcript, recorded as OpenAI chat messages
    corrected = tmp_path / "corrected.jsonl"
    messages = [
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_x",
                    "type": "function",
                    "function": {
                        "name": "book_flight",
                        "arguments": '{"flight": "XA205", "seat": "window"}',
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_x", "content": '{"booked": true}'},
        {"role": "assistant", "content": "Booked XA205 with a window seat."},
    ]
    corrected.write_text(json.dumps({"case_id": "conv-8841-turn2", "messages": messages}) + "\n")
    code, text = _invoke(
        "score", str(cases), "--responses", str(corrected), "-o", str(tmp_path / "r2")
    )
    assert code == 0, text
    assert _statuses(tmp_path / "r2") == {"conv-8841-turn2": "passed"}


def test_turn_option_and_recorded_labels(tmp_path: Path) -> None:
    (first,) = capture_cases([BOOKING], turn=1)
    assert first.case.id == "conv-8841-turn1"
    assert first.case.input[-1].content.startswith("Which flights")  # type: ignore[index, union-attr]
    assert [c.name for c in first.case.expect.tool_calls] == ["search_flights"]
    assert first.case.tool_results["search_flights"][0].result[1]["flight"] == "XA205"  # type: ignore[index]
    responses = {r.case_id: r for r in read_responses(WEATHER)}
    (weather,) = responses.values()
    assert weather.labels is not None
    assert (weather.labels.skill, weather.labels.intents) == ("weather", ["weather.current"])
    assert [c.name for c in weather.calls] == ["get_weather"]


def test_agentgauge_own_export_scores_back_to_the_same_verdicts(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\n"
        "tools: [{name: f, parameters: {type: object, properties: {x: {type: integer}}}, "
        "simulation: {result: ok}}]\n"
        "cases:\n"
        "  - {id: good, input: go, expect: {tool_calls: [{name: f, arguments: {x: 1}}]}}\n"
        "  - {id: bad, input: go, expect: {tool_calls: [{name: f, arguments: {x: 2}}]}}\n"
    )
    script = tmp_path / "script.jsonl"
    script.write_text('{"calls": [{"name": "f", "arguments": {"x": 1}}]}\n{"text": "done"}\n' * 2)
    run = tmp_path / "run"
    code, text = _invoke(
        "run", str(suite), "--agent", f"mock:{script}", "-o", str(run), "--max-concurrency", "1"
    )
    assert code in (0, 1), text
    exported = tmp_path / "trace.json"
    assert _invoke("export-otel", str(run), "-o", str(exported))[0] == 0
    code, text = _invoke(
        "score", str(suite), "--responses", str(exported), "-o", str(tmp_path / "s")
    )
    assert code == 0, text
    assert _statuses(tmp_path / "s") == _statuses(run) == {"good": "passed", "bad": "failed"}


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x"}]}]}]}', "without traceId"),
        ('{"resourceSpans": []}', "no trace records its messages"),
        ('{"resourceSpans": [\n', "invalid JSON"),
        ("[1, 2]", "neither an OTLP trace export (resourceSpans) nor a conversation"),
        ('{"traces": []}', "neither an OTLP trace export (resourceSpans) nor a conversation"),
        ("", "the file is empty"),
    ],
)
def test_a_bad_trace_file_is_one_line_exit_2(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    code, text = _invoke("capture", str(path), "-o", str(tmp_path / "c.jsonl"))
    assert code == 2
    assert needle in text
    assert len(text.strip().splitlines()) == 1
    assert text.startswith(str(path))


def test_turn_out_of_range_and_existing_output_are_refused(tmp_path: Path) -> None:
    code, text = _invoke("capture", str(BOOKING), "--turn", "5", "-o", str(tmp_path / "c.jsonl"))
    assert code == 2
    assert "--turn 5: the conversation has 2 user turn(s)" in text
    (tmp_path / "c.jsonl").write_text("")
    code, text = _invoke("capture", str(BOOKING), "-o", str(tmp_path / "c.jsonl"))
    assert code == 2
    assert "already exists" in text


def test_captured_case_runs_fails_on_a_replay_of_production_and_passes_a_fixed_agent(
    tmp_path: Path,
) -> None:
    cases = tmp_path / "cases.jsonl"
    assert _invoke("capture", str(BOOKING), "-o", str(cases))[0] == 0
    _edit_expectation(cases, "conv-8841-turn2", {"flight": "XA205", "seat": "window"})

    def run(name: str, replies: list[dict[str, Any]]) -> str:
        script = tmp_path / f"{name}.jsonl"
        script.write_text("".join(json.dumps(r) + "\n" for r in replies))
        out = tmp_path / name
        code, text = _invoke("run", str(cases), "--agent", f"mock:{script}", "-o", str(out))
        assert code in (0, 1), text
        (result,) = iter_results(out)
        if name == "production":  # the simulated tool replays the failure production met
            tool_steps = [e for e in result.trace if e.kind == "tool"]
            assert tool_steps[0].error == "fare for XA101 changed, booking refused"
        return result.status

    production = [
        {"calls": [{"name": "book_flight", "arguments": {"flight": "XA101", "seat": "aisle"}}]},
        {"text": "Sorry, I could not book XA101."},
    ]
    fixed = [
        {"calls": [{"name": "book_flight", "arguments": {"flight": "XA205", "seat": "window"}}]},
        {"text": "Booked XA205, window seat."},
    ]
    assert run("production", production) == "failed"
    assert run("fixed", fixed) == "passed"


def test_a_handoff_to_a_sub_agent_is_the_route_and_explicit_labels_win(tmp_path: Path) -> None:
    from agentgauge.exchange._otlp import Span, otlp_document

    def span(sid: str, parent: str | None, start: int, **attrs: str) -> Span:
        attrs = {k.replace("__", "."): v for k, v in attrs.items()}
        return Span("ab" * 16, sid, parent, attrs["gen_ai.operation.name"], start, start + 1, attrs)

    user = json.dumps([{"role": "user", "parts": [{"type": "text", "content": "refund?"}]}])
    out = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "Sure."}]}])
    op = "gen_ai__operation__name"
    a, b, c = "1" * 16, "2" * 16, "3" * 16
    spans = [
        span(a, None, 1, **{op: "invoke_agent", "gen_ai__agent__name": "triage"}),
        span(b, a, 2, **{op: "invoke_agent", "gen_ai__agent__name": "refunds"}),
        span(c, b, 3, **{op: "chat", "gen_ai__input__messages": user,
                         "gen_ai__output__messages": out}),
    ]  # fmt: skip
    path = tmp_path / "handoff.json"
    path.write_text(json.dumps(otlp_document(spans, {}, ("t", "1"))))
    (response,) = read_responses(path)
    assert response.labels is not None
    assert response.labels.route == "refunds"
    spans[0] = span(a, None, 1, **{op: "invoke_agent", "agentgauge__route": "billing"})
    path.write_text(json.dumps(otlp_document(spans, {}, ("t", "1"))))
    (response,) = read_responses(path)
    assert response.labels is not None
    assert response.labels.route == "billing"


def test_openinference_spans_are_read(tmp_path: Path) -> None:
    from agentgauge.exchange._otlp import STATUS_ERROR, Span, otlp_document

    tool_def = {
        "type": "function",
        "function": {
            "name": "cancel_order",
            "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}},
        },
    }
    out = "llm.output_messages.0.message.tool_calls.0.tool_call"
    llm = {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-4o",
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "Cancel order 42",
        "llm.output_messages.0.message.role": "assistant",
        f"{out}.id": "t1",
        f"{out}.function.name": "cancel_order",
        f"{out}.function.arguments": '{"order_id": "24"}',
        "llm.tools.0.tool.json_schema": json.dumps(tool_def),
        "session.id": "sess-7",
    }  # fmt: skip
    tool = {"openinference.span.kind": "TOOL", "tool.name": "cancel_order", "tool_call.id": "t1"}
    spans = [
        Span("cd" * 16, "1" * 16, None, "Agent", 1, 9, {"openinference.span.kind": "AGENT"}),
        Span("cd" * 16, "2" * 16, "1" * 16, "ChatCompletion", 2, 3, llm),
        Span("cd" * 16, "3" * 16, "1" * 16, "cancel_order", 4, 5, tool, (), STATUS_ERROR,
             "no order 24"),
    ]  # fmt: skip
    path = tmp_path / "oi.json"
    path.write_text(json.dumps(otlp_document(spans, {}, ("openinference", "1"))))
    (captured,) = capture_cases([path])
    case = captured.case
    assert case.id == "sess-7-turn1"
    assert captured.reason == "failed: cancel_order: no order 24"
    assert [c.name for c in case.expect.tool_calls] == ["cancel_order"]
    assert [t.name for t in case.tools or []] == ["cancel_order"]
    assert captured.response.calls[0].arguments == {"order_id": "24"}


def test_a_logged_request_body_in_any_format_is_captured_too(tmp_path: Path) -> None:
    body = {
        "model": "claude-sonnet-4",
        "system": "You manage orders.",
        "tools": [{"name": "cancel_order", "input_schema": {"type": "object", "properties": {}}}],
        "messages": [
            {"role": "user", "content": "Cancel my last order"},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "tu1", "name": "cancel_order", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "tu1", "content": "ok"}],
            },
            {"role": "assistant", "content": "Done."},
        ],
    }  # fmt: skip
    path = tmp_path / "support-ticket-77.json"
    path.write_text(json.dumps(body))
    lines = tmp_path / "more.jsonl"
    openai = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    lines.write_text(json.dumps(openai) + "\n" + json.dumps({"messages": openai}) + "\n")
    captured = capture_cases([path, lines])
    assert [c.case.id for c in captured] == [
        "support-ticket-77-turn1", "more-1-turn1", "more-2-turn1"
    ]  # fmt: skip
    ticket = captured[0].case
    assert [m.role for m in ticket.input] == ["system", "user"]  # type: ignore[union-attr]
    assert [c.name for c in ticket.expect.tool_calls] == ["cancel_order"]
    assert [t.name for t in ticket.tools or []] == ["cancel_order"]
    assert ticket.tool_results["cancel_order"][0].result == "ok"  # type: ignore[index]
    assert captured[1].case.expect.behavior == "answer"
    assert captured[1].case.expect.reference == "hello"
    bad = tmp_path / "bad.jsonl"
    bad.write_text('[{"role": "user", "content": "x"}]\n[{"role": "wizard"}]\n')
    with pytest.raises(UserError) as info:
        capture_cases([bad])
    assert str(info.value).startswith(f"{bad}:2: ")


def test_a_turn_whose_model_call_failed_without_a_reply_scores_as_no_reply(
    tmp_path: Path,
) -> None:
    doc = json.loads(BOOKING.read_text())
    spans = doc["resourceSpans"][0]["scopeSpans"][0]["spans"]
    kept = []
    for span in spans:
        if span["spanId"][:2] in ("e1", "f1"):  # the booking call and the reply after it
            continue
        if span["spanId"].startswith("d1"):  # turn 2's model call: rate limited, no output
            span["attributes"] = [
                a for a in span["attributes"] if a["key"] != "gen_ai.output.messages"
            ]
            span["status"] = {"code": 2, "message": "429 rate limited"}
        kept.append(span)
    doc["resourceSpans"][0]["scopeSpans"][0]["spans"] = kept
    trace = tmp_path / "ratelimit.json"
    trace.write_text(json.dumps(doc))
    cases = tmp_path / "cases.jsonl"
    responses = tmp_path / "responses.jsonl"
    code, text = _invoke("capture", str(trace), "-o", str(cases), "--responses", str(responses))
    assert code == 0, text
    assert "turn 2 (failed: chat gpt-4o-mini: 429 rate limited); observed: no call" in text
    _edit_expectation_to(cases, {"tool_calls": [{"name": "book_flight"}]})
    for recorded in (trace, responses):
        run = tmp_path / f"r-{recorded.stem}"
        code, text = _invoke("score", str(cases), "--responses", str(recorded), "-o", str(run))
        assert code == 0, text
        assert _statuses(run) == {"conv-8841-turn2": "failed"}


def _edit_expectation_to(path: Path, expect: dict[str, Any]) -> None:
    case = json.loads(path.read_text())
    case["expect"] = expect
    path.write_text(json.dumps(case) + "\n")


def test_responses_from_traces_carry_the_steps_of_their_turn() -> None:
    (booking,) = capture_cases([BOOKING])
    trace = booking.response.trace or []
    assert [(e.kind, e.tool or e.model) for e in trace] == [
        ("model", "gpt-4o-mini-2024-07-18"),
        ("tool", "book_flight"),
        ("model", "gpt-4o-mini-2024-07-18"),
    ]  # turn 2 only: turn 1's search and answer are left out
    assert all(e.turn == 0 for e in trace)
    assert trace[0].usage is not None
    assert (trace[0].usage.input_tokens, trace[0].usage.output_tokens) == (301, 27)
    assert trace[0].latency_ms == pytest.approx(1100)
    assert trace[1].arguments == {"flight": "XA101", "seat": "aisle"}
    assert trace[1].error == "fare for XA101 changed, booking refused"
    (weather,) = read_responses(WEATHER)  # OpenLLMetry: prompt_tokens, traceloop.entity.*
    steps = weather.trace or []
    assert [(e.kind, e.tool or e.model) for e in steps] == [
        ("model", "gpt-4o-2024-08-06"), ("tool", "get_weather"), ("model", "gpt-4o")
    ]  # fmt: skip
    assert steps[0].usage is not None
    assert steps[0].usage.input_tokens == 95
    assert steps[1].result == {"rain": False, "temp_c": 21}
