"""Markdown, JUnit, CSV, JSON and console reports of the small fixture runs."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from lxml import etree
from rich.console import Console

from agentgauge.metrics import Summary, compare, evaluate_gates, summarize
from agentgauge.report import (
    CSV_COLUMNS,
    MARKER,
    render_console,
    render_markdown,
    write_csv,
    write_junit,
    write_report,
)
from agentgauge.schema import Gates

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"

GATES = Gates(min_pass_rate=0.8, max_latency_s={"p95": 3}, max_regression_points=2)


def _markdown() -> str:
    s = summarize(FIXTURES / "new", gates=GATES)
    cmp = compare(FIXTURES / "base", FIXTURES / "new")
    return render_markdown(s, gates=evaluate_gates(s, GATES, cmp), comparison=cmp)


def test_markdown_snapshot(snapshot: Callable[[str, str], None]) -> None:
    text = _markdown()
    assert text.startswith(MARKER)
    assert "❌ gate failed" in text
    assert "Broken: `book-trip`, `delete-account`" in text
    assert "forbidden_tools: called forbidden tool delete_account" in text
    assert text == _markdown()  # deterministic
    snapshot("new_vs_base.md", text)


def test_markdown_without_gates_or_baseline(snapshot: Callable[[str, str], None]) -> None:
    text = render_markdown(summarize(FIXTURES / "base"))
    assert "Gates" not in text
    assert "baseline" not in text
    snapshot("base.md", text)


def _junit(run: str) -> str:
    out = io.StringIO()
    write_report(FIXTURES / run, "junit", out)
    return out.getvalue()


def test_junit_snapshot_and_schema(snapshot: Callable[[str, str], None]) -> None:
    text = _junit("new")
    schema = etree.XMLSchema(etree.parse(str(HERE / "junit.xsd")))
    doc = etree.fromstring(text.encode())
    schema.assertValid(doc)
    cases = doc.findall(".//testcase")
    assert len(cases) == 10
    assert cases[0].get("classname") == "happy_path"
    assert cases[0].get("name") == "weather-paris [0]"
    assert len(doc.findall(".//failure")) == 3
    error = doc.find(".//error")
    assert error is not None
    assert "HTTP 503" in (error.get("message") or "")
    props = {p.get("name"): p.get("value") for p in doc.iter("property")}
    assert props == {"suite": "weather-demo", "agent": "mock:demo", "git_commit": "2" * 40}
    suite = doc.find("testsuite")
    assert suite is not None
    assert (suite.get("failures"), suite.get("errors")) == ("3", "1")
    snapshot("new.junit.xml", text)


def test_junit_escapes_hostile_text(tmp_path: Path) -> None:
    from agentgauge.io import ResultsWriter
    from agentgauge.schema import CaseResult

    with ResultsWriter(tmp_path) as w:
        w.write(
            CaseResult(
                case_id='x"<&>',
                status="failed",
                category="a&b",
                explanation='bad \x01 <tag> & "quote"\nsecond line',
            )
        )
    out = io.StringIO()
    write_junit(tmp_path, out)
    doc = etree.fromstring(out.getvalue().encode())
    etree.XMLSchema(etree.parse(str(HERE / "junit.xsd"))).assertValid(doc)
    failure = doc.find(".//failure")
    assert failure is not None
    assert failure.text is not None
    assert "<tag>" in failure.text
    assert "second line" in failure.text
    assert failure.get("message") == 'bad \ufffd <tag> & "quote"'


def test_csv_rows() -> None:
    out = io.StringIO()
    write_csv(FIXTURES / "new", out)
    rows = list(csv.reader(io.StringIO(out.getvalue())))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 11
    by_id = {r[0]: r for r in rows[1:]}
    assert by_id["weather-nice"][3:6] == ["get_weather", "get_forecast", "failed"]
    assert by_id["chitchat-joke"][3:5] == ["answer", "answer"]
    assert by_id["weather-oslo"][5] == "error"


def test_json_report_is_a_versioned_summary() -> None:
    out = io.StringIO()
    write_report(FIXTURES / "new", "json", out)
    summary = Summary.model_validate(orjson.loads(out.getvalue()))
    assert summary.version == 1
    assert summary.overall.pass_rate.passed == 6


def test_console_report_mentions_the_essentials() -> None:
    s = summarize(FIXTURES / "new")
    buf = io.StringIO()
    console = Console(file=buf, width=120, no_color=True)
    cmp = compare(FIXTURES / "base", FIXTURES / "new")
    render_console(s, console, gates=evaluate_gates(s, GATES, cmp), comparison=cmp)
    text = buf.getvalue()
    for needle in (
        "weather-demo",
        "66.7% [35.4–87.9] (6/9)",
        "tool selection",
        "get_forecast",
        "worst failures",
        "HTTP 503",
        "gate: FAILED",
        "3 fixed, 2 broken",
    ):
        assert needle in text, needle


def test_unknown_format_and_missing_run(tmp_path: Path) -> None:
    from agentgauge.errors import UserError

    with pytest.raises(UserError):
        write_report(FIXTURES / "new", "pdf", io.StringIO())  # type: ignore[arg-type]
    with pytest.raises(UserError):
        write_report(tmp_path / "nope", "markdown", io.StringIO())


def test_trials_rows_in_markdown_and_console() -> None:
    from agentgauge.metrics import summarize_results
    from agentgauge.schema import CaseResult

    rs = [
        CaseResult(case_id=c, trial=t, status="passed" if (c, t) != ("b", 2) else "failed")
        for c in ("a", "b")
        for t in range(3)
    ]
    s = summarize_results(rs)
    text = render_markdown(s)
    assert "| pass@3 / pass^3 | 100.0% / 50.0% |" in text
    assert "flaky cases | 50.0%" in text
    buf = io.StringIO()
    render_console(s, Console(file=buf, width=120, no_color=True))
    assert "pass@3 / pass^3" in buf.getvalue()
