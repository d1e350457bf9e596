"""Issue 22 item 2: an agent that reports no token usage has *unknown* usage, never 0 tokens —
in its results, the console, Markdown and HTML reports, the matrix comparison and ``compare``."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from agentgauge.io import iter_results
from agentgauge.metrics import compare, compare_matrix, summarize
from agentgauge.report import render_markdown, render_matrix_markdown, write_report
from agentgauge.report._console import render_console
from agentgauge.report._dashboard_runs import load_agents
from agentgauge.runner import RunConfig, parse_agents, run_matrix
from matrix_helpers import words_suite

#: a python: agent that answers with bare text (no usage); mock:echo reports its tokens
AGENT = "def agent(messages, tools):\n    return 'mock reply ' + messages[-1].content\n"


def _matrix(tmp_path: Path) -> Path:
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    out = tmp_path / "out"
    agents = parse_agents([f"py=python:{agent}:agent", "echo=mock:echo"])
    run_matrix(words_suite(tmp_path), RunConfig(progress=False, cache=False), agents, out)
    return out


def test_unknown_usage_is_recorded_as_unknown_and_reported_as_na(tmp_path: Path) -> None:
    out = _matrix(tmp_path)
    py, echo = out / "py", out / "echo"
    results = list(iter_results(py))
    assert results
    assert all(not r.usage_recorded for r in results)
    steps = [e for r in results for e in r.trace if e.kind == "model"]
    assert steps
    assert all(e.usage is None and e.cost_usd is None for e in steps)
    assert all(r.cost_usd is None for r in results)
    assert all(r.usage_recorded for r in iter_results(echo))

    summary = summarize(py)
    assert summary.cost.input_tokens.n == 0
    console = io.StringIO()
    render_console(summary, Console(file=console, width=120))
    line = next(x for x in console.getvalue().splitlines() if "tokens in / out" in x)
    assert "n/a (no usage reported)" in line
    assert " 0 / 0" not in line
    md = render_markdown(summary)
    assert "| tokens in / out (total) | n/a |" in md
    html = io.StringIO()
    write_report(py, "html", html)
    page = html.getvalue()
    assert "<td>input tokens</td><td>n/a (no usage reported)</td><td>n/a</td>" in page

    # comparison.md: the member's tokens are "–", not "0 [0–0]"
    cmd = render_matrix_markdown(compare_matrix(out))
    row = next(x for x in cmd.splitlines() if x.startswith("| py |") and "[" in x)
    assert "0 [0–0]" not in row
    # the dashboard's tokens per scenario leave the unreported results out (no 0 bar)
    assert load_agents([("py", py)])[0].tokens_by_category == {}


def test_compare_never_turns_unknown_usage_into_a_drop_to_zero(tmp_path: Path) -> None:
    out = _matrix(tmp_path)
    cmp = compare(out / "echo", out / "py")
    assert cmp.delta("tokens") is not None
    assert cmp.delta("tokens").delta is None  # type: ignore[union-attr]
    assert (
        "tokens: not compared: the new run reported no token usage on the shared cases "
        "(unknown, not 0)" in cmp.warnings
    )
    from agentgauge.report._text import comparison_lines

    text = "\n".join(comparison_lines(cmp))
    assert "tokens:" in text
    assert "-> 0 " not in text
    assert "tokens)" not in text
