"""Issue 22 items 6 and 7: every run prints its scorers' means (not only with ``--gate``), and
each on its own declared scale everywhere — a 1..5 judge's value 0.5 is 3.00 in the console,
Markdown, the HTML report, the dashboard, summary.json, comparison.json and the gate alike."""

from __future__ import annotations

import io
from pathlib import Path

from click.testing import CliRunner
from rich.console import Console

from agentgauge.cli import cli
from agentgauge.metrics import evaluate_gates, summarize_results
from agentgauge.metrics._matrix import _quality
from agentgauge.report import render_html, render_markdown
from agentgauge.report._console import render_console
from agentgauge.report._dashboard import DashboardAgent, dashboard_section
from agentgauge.report._text import gate_lines
from agentgauge.schema import CaseResult, Gates, Score


def _results() -> list[CaseResult]:
    """Two cases judged 0.25 and 0.75 for groundedness (1..5: 2 and 4, a mean of 3.00) and a
    rubric on 0..10 at 0.7 (7.00)."""
    out = []
    for i, v in enumerate((0.25, 0.75)):
        scores = [
            Score(name="judge.groundedness", value=v, passed=v > 0.5, explanation="x"),
            Score(name="judge.tone", value=0.7, passed=True, explanation="y", scale=(0, 10)),
        ]
        out.append(CaseResult(case_id=f"c{i}", status="passed", score=1.0, scores=scores))
    return out


def test_every_report_shows_a_judge_mean_on_its_own_scale() -> None:
    summary = summarize_results(_results())
    st = summary.scorers["judge.groundedness"]
    assert st.mean.mean == 0.5  # the 0..1 value stays in summary.json ...
    assert st.scale == (1.0, 5.0)  # ... with the scale it is read on
    assert st.mean_on_scale.mean == 3.0  # ... and the mean on it
    assert summary.scorers["judge.tone"].mean_on_scale.mean == 7.0

    text = io.StringIO()
    render_console(summary, Console(file=text, width=140))  # a plain run: no gates
    console = text.getvalue()
    row = next(line for line in console.splitlines() if "judge.groundedness" in line)
    assert "3.00 [" in row
    assert "on 1–5" in row
    assert "7.00 [" in next(line for line in console.splitlines() if "judge.tone" in line)

    md = render_markdown(summary)
    assert "**Scorers**" in md
    assert "| judge.groundedness | 3.00 [" in md
    assert "on 1–5 |" in md

    html = render_html(summary, _results())
    assert '<section id="scorers">' in html
    assert "3.00 [" in html
    assert "0.50 [" not in html  # no 0..1 reading of the same score anywhere on the page
    card = dashboard_section([DashboardAgent(name="a", summary=summary)])
    assert '<span class="agd-val">3.00</span>' in card
    assert "on 1–5" in card

    gates = Gates.model_validate({"scorers": {"groundedness": {"min_mean": 3}}})
    report = evaluate_gates(summary, gates)
    assert report.passed
    assert any("3.00 [" in line for line in gate_lines(report))

    quality = _quality(summary)  # comparison.json and comparison.md
    assert quality.scorer_scales["judge.groundedness"] == (1.0, 5.0)
    assert quality.scorers_on_scale["judge.groundedness"].mean == 3.0


def test_a_plain_run_prints_its_scorer_means(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\nscorers:\n  - scorer: assert\n    args: {contains: [word]}\n"
        "cases:\n  - id: c1\n    input: please say word1\n"
        "    expect: {response_contains: [word1]}\n"
    )
    out = CliRunner().invoke(
        cli,
        ["run", str(suite), "--agent", "mock:echo", "-o", str(tmp_path / "r"), "--no-cache"],
    )
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert any(line.startswith("scorers") for line in lines), out.output
    row = next(line for line in lines if line.startswith("assert "))
    assert "1.00 [1.00–1.00]" in row
    assert "100.0% (1/1)" in row
