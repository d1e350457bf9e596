"""`agentgauge review RUN_DIR`: a person grades planning paths in the terminal; the grades feed
the planning-path metric, its gate and `agentgauge calibrate` (docs/metrics.md#module-metrics)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from agentgauge.judges._rulejudge import _planning_path
from agentgauge.metrics import read_reviews
from agentgauge.schema import CaseResult, ToolCall, TraceEvent


def _tool(name: str, error: str | None = None, **args: object) -> TraceEvent:
    return TraceEvent(
        kind="tool", start=0, end=0, latency_ms=1, tool=name, arguments=dict(args), error=error
    )


def _run(tmp_path: Path) -> Path:
    results = [
        CaseResult(
            case_id="refund",
            status="passed",
            expected_tools=["search_orders", "refund"],
            calls=[ToolCall(name="search_orders"), ToolCall(name="refund")],
            trace=[_tool("search_orders", id="A1"), _tool("refund", id="A1")],
            text="Refunded.",
        ),
        CaseResult(
            case_id="hasty",
            status="failed",
            expected_tools=["search_orders", "refund"],
            calls=[ToolCall(name="refund")],
            trace=[_tool("refund", error="no such order", id="B2")],
            text="Done!",
        ),
        CaseResult(case_id="broken", status="error", error="timeout"),
    ]
    run = tmp_path / "run"
    run.mkdir()
    lines = [r.model_dump_json(exclude_defaults=True) for r in results]
    (run / "results.jsonl").write_text("".join(f"{line}\n" for line in lines))
    return run


def _review(run: Path, answers: str, *args: str) -> Result:
    return CliRunner().invoke(cli, ["review", str(run), *args], input=answers)


def test_grades_are_written_as_labelled_examples_and_become_the_metric(tmp_path: Path) -> None:
    run = _run(tmp_path)
    out = _review(run, "5\nthe expert path\n7\n2\nrefunded without looking it up\n")
    assert out.exit_code == 0, out.output
    assert '1. refund(id="B2")  -> error: no such order' in out.output
    assert "'7' is not a grade" in out.output  # asked again
    assert "2 graded, 0 skipped" in out.output
    assert "broken" not in out.output  # an errored result has no path to grade
    lines = [json.loads(x) for x in (run / "reviews.jsonl").read_text().splitlines()]
    assert [(x["id"], x["label"]) for x in lines] == [("refund#0", 5), ("hasty#0", 2)]
    assert lines[1]["inputs"]["expected"] == "search_orders, refund"
    assert lines[1]["note"] == "refunded without looking it up"
    report = CliRunner().invoke(cli, ["report", str(run), "--format", "json"])
    planning = json.loads(report.output)["modules"]["planning"]
    assert planning["grade"]["mean"] == pytest.approx(3.5)
    assert planning["poor_cases"] == ["hasty"]
    gates = tmp_path / "gates.yaml"
    gates.write_text("min_planning_grade: 4\n")
    gate = CliRunner().invoke(cli, ["gate", str(run), "--gates", str(gates)])
    assert gate.exit_code == 1
    assert "planning-path grade 3.50 of 5 is below the minimum 4.00 of 5" in gate.output


def test_skip_stop_and_regrade(tmp_path: Path) -> None:
    run = _run(tmp_path)
    out = _review(run, "s\nq\n")
    assert "0 graded, 1 skipped" in out.output
    assert read_reviews(run) == {}
    _review(run, "4\n\n")  # grades refund only, then the input ends: stopped
    assert read_reviews(run) == {("refund", 0): 4}
    again = _review(run, "2\n\n", "--case", "refund")
    assert "1 graded before (--regrade shows them)" in again.output
    assert read_reviews(run) == {("refund", 0): 4}
    _review(run, "3\n\n", "--case", "refund", "--regrade")
    assert read_reviews(run) == {("refund", 0): 3}  # the later line replaces the earlier one


def test_unknown_case_is_refused(tmp_path: Path) -> None:
    out = _review(_run(tmp_path), "", "--case", "nope")
    assert out.exit_code == 2
    assert "no scored result of case(s) nope" in out.output


def test_calibrate_reads_the_reviews_file(tmp_path: Path) -> None:
    """The reviewers' file, notes included, is a calibrate labels file (the note was refused
    before: labelled examples had no note field)."""
    run = _run(tmp_path)
    _review(run, "5\nexpert\n2\nno lookup\n")
    out = CliRunner().invoke(
        cli,
        ["calibrate", "--labels", str(run / "reviews.jsonl"), "--judge", "mock:judge",
         "--task", "planning_path", "--no-cache", "--json"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    report = json.loads(out.output)
    (task,) = report["tasks"]
    assert task["task"] == "planning_path"
    assert task["n"] == 2
    assert task["agreement"] == 1.0  # the rule judge grades these two as the reviewer did


@pytest.mark.parametrize(
    ("plan", "grade"),
    [
        ('1. search_orders(id="A1")\n2. refund(id="A1")', 5),
        ('1. refund(id="A1")\n2. search_orders(id="A1")', 4),
        ("1. search_orders()\n2. search_orders()\n3. search_orders()\n4. refund()", 3),
        ("1. search_orders()\n2. refund()  -> error: declined", 3),
        ('1. refund(id="A1")', 2),
        ("(no tool call)", 1),
    ],
)
def test_the_rule_judge_grades_planning_paths(plan: str, grade: int) -> None:
    verdict = _planning_path({"expected": "search_orders, refund", "plan": plan})
    assert verdict["score"] == grade


def test_a_huge_integer_argument_is_shown_whole() -> None:
    """A path with an argument beyond 64 bits (which orjson refuses) is still shown."""
    from agentgauge.metrics import plan_text

    r = CaseResult(case_id="big", status="passed", trace=[_tool("pay", amount=10**30)])
    assert plan_text(r) == "1. pay(amount=1000000000000000000000000000000)"
