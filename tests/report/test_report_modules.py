"""The module metrics in every report: console, Markdown, HTML and the matrix comparison
(docs/metrics.md#module-metrics); nothing measured is shown as unknown, never as 0."""

from __future__ import annotations

import io
from typing import Any

from lxml import html as lxml_html
from rich.console import Console

from agentgauge.metrics import MatrixAgentStats, MatrixComparison, Summary, summarize_results
from agentgauge.metrics._matrix import _quality
from agentgauge.report import render_console, render_html, render_markdown
from agentgauge.report._matrix import render_matrix_markdown
from agentgauge.schema import CaseResult, Feedback, Labels


def _res(case_id: str, **kw: Any) -> CaseResult:
    return CaseResult(case_id=case_id, status="passed", **kw)


def _summary() -> Summary:
    results = [
        _res(
            "kb-ok",
            labels=Labels(route="kb", knowledge=["k1", "k2"], fallback=False),
            predicted_labels=Labels(route="kb", knowledge=["k1", "x"], fallback=False),
            feedback=Feedback(score=5, scale=(1, 5)),
        ),
        _res(
            "kb-misrouted",
            labels=Labels(route="kb", knowledge=["k3"]),
            predicted_labels=Labels(route="skill", knowledge=["k9"]),
            feedback=Feedback(score=1, scale=(1, 5)),
        ),
        _res(
            "handoff-missed",
            labels=Labels(fallback=True),
            predicted_labels=Labels(fallback=False),
        ),
    ]
    return summarize_results(results, reviews={("kb-ok", 0): 5, ("handoff-missed", 0): 2})


def _console(s: Summary) -> str:
    buf = io.StringIO()
    render_console(s, Console(file=buf, width=200, no_color=True))
    return buf.getvalue()


def test_every_text_report_has_the_module_metrics() -> None:
    s = _summary()
    for text in (_console(s), render_markdown(s)):
        assert "retrieval precision" in text
        assert "50.0% [" in text  # precision 1/2 and recall 1/2 of the routed case
        assert "degradation-trigger accuracy" in text
        assert "missed 1" in text
        assert "user satisfaction" in text
        assert "planning-path grade" in text
        assert "3.50 of 5" in text
        assert "excluded from retrieval" in text
        assert "routing failed: expected kb, got skill" in text
        assert "handoff-missed" in text  # the case that should have fallen back


def test_the_html_report_has_a_module_section_and_a_2x2_matrix() -> None:
    page = render_html(_summary(), [])
    doc = lxml_html.fromstring(page)
    (section,) = doc.xpath('//section[@id="modules"]')
    text = section.text_content()
    assert "retrieval recall" in text
    assert "routing failed: expected kb, got skill" in text
    (matrix,) = section.xpath('.//table[@class="confusion-2x2"]')
    cells = [td.text_content() for td in matrix.xpath(".//td")]
    assert cells == ["should fall back", "0", "1", "should not", "0", "1"]
    assert doc.xpath('//nav//a[@href="#modules"]')


def test_no_module_data_no_module_section() -> None:
    s = summarize_results([_res("a")])
    assert s.modules is None
    assert "module metrics" not in _console(s)
    assert "Module metrics" not in render_markdown(s)
    assert 'id="modules"' not in render_html(s, [])


def test_unmeasured_retrieval_is_unknown_not_zero() -> None:
    s = summarize_results([_res("a", labels=Labels(knowledge=["k1"]))])
    md = render_markdown(s)
    row = next(line for line in md.splitlines() if line.startswith("| retrieval precision"))
    assert "| – |" in row
    assert "1 result(s) with unknown retrieval: not measured" in row
    assert "0.0%" not in row


def test_the_matrix_comparison_has_the_module_metrics() -> None:
    good, bare = _summary(), summarize_results([_res("a")])
    q = _quality(good)
    assert q.module_means["retrieval_recall"].mean == 0.5
    assert q.module_means["planning_grade"].mean == 3.5
    assert q.modules["fallback_accuracy"].n == 2
    assert q.modules["user_satisfaction"].passed == 1
    # a run without such data has no entry, not a 0
    assert _quality(bare).module_means == {}
    c = MatrixComparison(
        agents=[
            MatrixAgentStats(label="good", agent="a", run_dir="good", quality=q),
            MatrixAgentStats(label="bare", agent="b", run_dir="bare", quality=_quality(bare)),
        ],
        ranking=["good", "bare"],
    )
    text = render_matrix_markdown(c)
    assert "retrieval recall" in text
    assert "planning grade (1–5)" in text
    assert "degradation trigger" in text
    bare_line = next(
        line for line in text.splitlines() if line.startswith("| bare |") and "–" in line
    )
    assert "0.00" not in bare_line
    assert "–" in bare_line
