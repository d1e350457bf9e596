"""User satisfaction from online feedback (docs/metrics.md#module-metrics): span attributes on
captured traces and a feedback file keyed by trace id (or case id) become the metric, its gate
and a trend in the run history; a bad feedback line is refused at its line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.exchange import read_feedback, trace_id_for
from agentgauge.exchange._feedback import span_feedback
from agentgauge.exchange._otlp import Span, otlp_document, read_spans
from agentgauge.rundir import iter_results, load_record

T0 = 1_764_583_200_000_000_000
MS = 1_000_000


def _trace(n: int, question: str, feedback: dict[str, Any] | None) -> list[Span]:
    """One conversation: an agent span and a chat span answering ``question``; ``feedback``
    the user.feedback.* attributes put on the agent span."""
    trace = f"{n:02x}" * 16
    user = {"role": "user", "parts": [{"type": "text", "content": question}]}
    answer = {"role": "assistant", "parts": [{"type": "text", "content": "Dial 121."}]}
    root: dict[str, Any] = {"gen_ai.operation.name": "invoke_agent", **(feedback or {})}
    chat = {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": json.dumps([user]),
        "gen_ai.output.messages": json.dumps([answer]),
    }
    return [
        Span(trace, f"{n:x}1" * 8, None, "invoke_agent", T0, T0 + 900 * MS, root),
        Span(trace, f"{n:x}2" * 8, f"{n:x}1" * 8, "chat", T0 + 100 * MS, T0 + 800 * MS, chat),
    ]


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _write_traces(tmp_path: Path, spans: list[Span]) -> Path:
    path = tmp_path / "traces.json"
    path.write_text(json.dumps(otlp_document(spans, {}, ("support-agent", "1"))))
    return path


def _score(tmp_path: Path, traces: Path, run: str, *extra: str) -> Result:
    cases = tmp_path / "cases.jsonl"
    if not cases.exists():
        made = _cli("capture", str(traces), "-o", str(cases))
        assert made.exit_code == 0, made.output
    return _cli("score", str(cases), "--responses", str(traces), "-o", str(tmp_path / run), *extra)


def _satisfaction(run_dir: Path) -> dict[str, Any]:
    summary = json.loads((run_dir / "summary.json").read_text())
    sat: dict[str, Any] = summary["modules"]["satisfaction"]
    return sat


STARS = "user.feedback.score", "user.feedback.scale"


def test_span_attributes_and_a_feedback_file_become_user_satisfaction(tmp_path: Path) -> None:
    spans = [
        *_trace(1, "How do I set up voicemail?", {STARS[0]: 5, STARS[1]: [1, 5]}),
        *_trace(2, "Voicemail PIN?", {STARS[0]: 2, STARS[1]: [1, 5]}),
        *_trace(3, "Where is my voicemail?", None),  # rated in the file, by its trace id
        *_trace(4, "Voicemail greeting?", None),  # never rated
    ]
    traces = _write_traces(tmp_path, spans)
    feedback = tmp_path / "feedback.jsonl"
    feedback.write_text(
        json.dumps({"trace_id": "03" * 16, "score": 1, "comment": "thumbs up"})
        + "\n"
        + json.dumps({"trace_id": "ff" * 16, "score": 0})  # a trace this run does not have
        + "\n"
    )
    out = _score(tmp_path, traces, "run", "--feedback", str(feedback))
    assert out.exit_code == 0, out.output
    run = tmp_path / "run"
    by_trace = {r.trace_id: r.feedback for r in iter_results(run)}
    assert by_trace["01" * 16] is not None
    assert by_trace["01" * 16].source == "span user.feedback.score"
    assert by_trace["03" * 16] is None  # from the file: applied when summarised, not stored
    sat = _satisfaction(run)
    assert (sat["rated"], sat["unrated"]) == (3, 1)
    assert (sat["satisfied"]["passed"], sat["satisfied"]["n"]) == (2, 3)  # 5/5 and a thumbs up
    assert sat["score"]["mean"] == pytest.approx((1 + 0.25 + 1) / 3)
    assert sat["satisfied"]["low"] < sat["satisfied"]["value"] < sat["satisfied"]["high"]
    summary = json.loads((run / "summary.json").read_text())
    assert any("1 feedback entr(ies) match no result" in w for w in summary["warnings"])
    # the gate on it fails this run, and passes at a lower bar
    gates = tmp_path / "gates.yaml"
    gates.write_text("min_user_satisfaction: 0.9\n")
    failed = _cli("gate", str(run), "--gates", str(gates))
    assert failed.exit_code == 1
    assert "user satisfaction" in failed.output
    gates.write_text("min_user_satisfaction: 0.5\n")
    assert _cli("gate", str(run), "--gates", str(gates)).exit_code == 0


def test_no_feedback_is_no_satisfaction_not_zero(tmp_path: Path) -> None:
    traces = _write_traces(tmp_path, _trace(1, "How do I set up voicemail?", None))
    assert _score(tmp_path, traces, "run").exit_code == 0
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert (summary["modules"] or {}).get("satisfaction") is None
    gates = tmp_path / "gates.yaml"
    gates.write_text("min_user_satisfaction: 0.1\n")
    out = _cli("gate", str(tmp_path / "run"), "--gates", str(gates))
    assert out.exit_code == 1  # nothing measured cannot meet a minimum
    assert "nothing was measured" in out.output


def test_feedback_keyed_by_the_trace_id_agentgauge_exported(tmp_path: Path) -> None:
    """Feedback collected on a run's exported traces (export-otel) finds its results."""
    traces = _write_traces(tmp_path, _trace(1, "How do I set up voicemail?", None))
    assert _score(tmp_path, traces, "run").exit_code == 0
    run = tmp_path / "run"
    record = load_record(run)
    assert record is not None
    (result,) = iter_results(run)
    exported = trace_id_for(record.run_id, result.case_id, result.trial)
    (run / "feedback.jsonl").write_text(json.dumps({"trace_id": exported, "score": 0}) + "\n")
    report = _cli("report", str(run), "--format", "json")
    assert report.exit_code == 0, report.output
    sat = json.loads(report.output)["modules"]["satisfaction"]
    assert (sat["satisfied"]["passed"], sat["satisfied"]["n"]) == (0, 1)
    assert sat["unsatisfied_cases"] == [result.case_id]


def test_satisfaction_is_a_trend_in_the_history(tmp_path: Path) -> None:
    history = tmp_path / "history.sqlite"
    for week, stars in enumerate(([5, 5, 4], [5, 2, 1])):  # this week's traces, same place
        spans = [
            s
            for i, score in enumerate(stars, 1)
            for s in _trace(i, f"Question {i}?", {STARS[0]: score, STARS[1]: [1, 5]})
        ]
        traces = _write_traces(tmp_path, spans)
        out = _score(tmp_path, traces, f"week{week}", "--history", str(history))
        assert out.exit_code == 0, out.output
    shown = _cli("history", "--history", str(history), "--metric", "user_satisfaction", "--json")
    assert shown.exit_code == 0, shown.output
    (group,) = json.loads(shown.output)["groups"]
    (trend,) = group["trends"]
    assert trend["metric"] == "user_satisfaction"
    assert trend["values"] == [pytest.approx(1.0), pytest.approx(1 / 3)]
    assert trend["change"] == pytest.approx(1 / 3 - 1.0)
    plain = _cli("history", "--history", str(history))  # shown by default once measured
    assert "user_satisfaction" in plain.output


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"score": 1}', "give either trace_id or case_id"),
        ('{"trace_id": "ab", "case_id": "x", "score": 1}', "give either trace_id or case_id"),
        ('{"trace_id": "ab", "score": 4}', "score 4 is outside its scale [0, 1]"),
        ('{"trace_id": "ab", "score": "good"}', "score"),
        ("not json", "feedback line"),
    ],
)
def test_a_bad_feedback_line_is_refused_at_its_line(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "feedback.jsonl"
    path.write_text('{"case_id": "a", "score": 1}\n' + line + "\n")
    with pytest.raises(UserError, match=f"feedback.jsonl:2: .*{re.escape(message)}"):
        read_feedback(path)


def test_a_span_score_outside_its_scale_is_refused(tmp_path: Path) -> None:
    traces = _write_traces(tmp_path, _trace(1, "Q?", {STARS[0]: 7, STARS[1]: [1, 5]}))
    out = _cli("capture", str(traces), "-o", str(tmp_path / "cases.jsonl"))
    assert out.exit_code == 2
    assert "user.feedback.score: score 7 is outside its scale [1, 5]" in out.output


def test_export_otel_keeps_the_feedback_for_the_next_capture(tmp_path: Path) -> None:
    """A scored run exported again carries its feedback as the same span attributes, so what
    capture and score read back is the same feedback (the comment only with content)."""
    spans = _trace(1, "Q?", {STARS[0]: 4, STARS[1]: [1, 5], "user.feedback.comment": "ok"})
    traces = _write_traces(tmp_path, spans)
    assert _score(tmp_path, traces, "run").exit_code == 0
    for flag, comment in (("--no-content", None), ("--content", "ok")):
        exported = tmp_path / f"export{flag}.json"
        out = _cli("export-otel", str(tmp_path / "run"), "-o", str(exported), flag)
        assert out.exit_code == 0, out.output
        back = span_feedback(read_spans([exported]))
        assert back is not None
        assert (back.score, back.scale, back.comment) == (4, (1, 5), comment)
