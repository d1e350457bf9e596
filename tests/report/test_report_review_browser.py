"""The HTML report's Planning review in a real browser (Playwright, system Chromium): a person
grades paths in the page, the grades survive a reload (localStorage), and the downloaded
reviews.jsonl is what `agentgauge review` writes — the planning-path metric and calibrate read
it. Untrusted text never runs as code."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentgauge.judges._calibration import read_labels
from agentgauge.metrics import read_reviews, summarize
from agentgauge.report._html import write_html
from agentgauge.rundir import iter_results
from agentgauge.schema import CaseResult, Message, ToolCall, TraceEvent

EVIL = '<img src=x onerror="alert(1)">'


def _run(tmp_path: Path) -> Path:
    def tool(name: str) -> TraceEvent:
        return TraceEvent(kind="tool", start=0, end=0, latency_ms=1, tool=name, arguments={})

    results = [
        CaseResult(
            case_id="refund",
            status="passed",
            expected_tools=["search_orders", "refund"],
            calls=[ToolCall(name="search_orders"), ToolCall(name="refund")],
            trace=[tool("search_orders"), tool("refund")],
            messages=[Message(role="user", content="Refund order A1")],
            text="Refunded.",
        ),
        CaseResult(
            case_id="hasty",
            status="failed",
            expected_tools=["search_orders", "refund"],
            calls=[ToolCall(name="refund")],
            trace=[tool("refund")],
            messages=[Message(role="user", content=EVIL)],
            text=EVIL,
        ),
        CaseResult(case_id="broken", status="error", error="timeout"),
    ]
    run = tmp_path / "run"
    run.mkdir()
    lines = [r.model_dump_json(exclude_defaults=True) for r in results]
    (run / "results.jsonl").write_text("".join(f"{line}\n" for line in lines))
    return run


@pytest.fixture
def page_url(tmp_path: Path) -> tuple[str, Path]:
    run = _run(tmp_path)
    path = tmp_path / "report.html"
    write_html(path, summarize(run), iter_results(run))
    return path.as_uri(), run


def _grade(page: Any, case: str, grade: int, note: str = "") -> None:
    item = page.locator(f'.review-item[data-id="{case}#0"]')
    item.locator(f'input[type=radio][value="{grade}"]').check()
    if note:
        item.locator(".review-note").fill(note)


def test_grades_in_the_page_download_as_reviews_jsonl(
    browser: Any, page_url: tuple[str, Path], tmp_path: Path
) -> None:
    url, run = page_url
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    errors: list[str] = []
    dialogs: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    items = page.locator(".review-item")
    assert items.count() == 2  # the errored result has no path to grade
    assert EVIL in items.nth(1).inner_text()  # shown as text
    assert page.locator("#review-count").inner_text() == "0 of 2 graded"
    _grade(page, "refund", 5, "the expert path")
    _grade(page, "hasty", 2)
    assert page.locator("#review-count").inner_text() == "2 of 2 graded"

    page.reload()  # kept in the browser, per run
    assert page.locator("#review-count").inner_text() == "2 of 2 graded"
    checked = page.locator('.review-item[data-id="refund#0"] input[value="5"]')
    assert checked.is_checked()
    note = page.locator('.review-item[data-id="refund#0"] .review-note')
    assert note.input_value() == "the expert path"

    with page.expect_download() as info:
        page.click("#review-download")
    download = info.value
    assert download.suggested_filename == "reviews.jsonl"
    target = run / "reviews.jsonl"
    download.save_as(str(target))
    assert errors == []
    assert dialogs == [], "untrusted text ran as code"
    context.close()

    assert read_reviews(run) == {("refund", 0): 5, ("hasty", 0): 2}
    planning = summarize(run).modules
    assert planning is not None
    assert planning.planning is not None
    assert planning.planning.grade.mean == pytest.approx(3.5)
    examples = read_labels(target)  # a calibrate labels file, notes included
    assert [e.label for e in examples] == ["5", "2"]
    assert examples[0].note == "the expert path"
    assert examples[1].inputs["expected"] == "search_orders, refund"
    assert examples[1].inputs["plan"] == "1. refund()"


def test_no_scored_result_no_review_section(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    line = CaseResult(case_id="x", status="error", error="boom").model_dump_json()
    (run / "results.jsonl").write_text(line + "\n")
    path = tmp_path / "report.html"
    write_html(path, summarize(run), iter_results(run))
    page = path.read_text()
    assert 'id="review"' not in page
    assert "review-list" not in page
    assert "agentgaugeReviewLines" not in page  # nor its script
