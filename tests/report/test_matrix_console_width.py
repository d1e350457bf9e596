"""Issue 22 item 11: the matrix comparison is readable in an 80-column terminal: no line wider
than the console, no cell cut with an ellipsis, every word of every table whole."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from agentgauge.metrics import compare_matrix
from agentgauge.report import matrix_tables, render_matrix_console
from agentgauge.report._matrix_console import fit_table
from agentgauge.runner import RunConfig, parse_agents, run_matrix
from matrix_helpers import words_suite

AGENT = "def agent(messages, tools):\n    return 'mock reply ' + messages[-1].content\n"


@pytest.mark.parametrize("width", [80, 100])
def test_every_matrix_table_is_whole_at_the_console_width(tmp_path: Path, width: int) -> None:
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT)
    out = tmp_path / "out"
    specs = [f"scripted=python:{agent}:agent", "echo=mock:echo", "plain=mock:"]
    gates = "gates: {min_pass_rate: 0.5}\n"
    suite = words_suite(tmp_path, extra=gates)
    run_matrix(suite, RunConfig(progress=False, cache=False), parse_agents(specs), out)
    c = compare_matrix(out, gate=True)
    buf = io.StringIO()
    render_matrix_console(c, Console(file=buf, width=width, force_terminal=False))
    text = buf.getvalue()
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    assert "…" not in text
    words = set(text.split())
    for t in matrix_tables(c):
        for cell in (*t.header, *(x for row in t.rows for x in row)):
            for word in cell.split():
                # a longer word (a path) is folded, it cannot fit whole; a turned table folds
                # the rank column "#" into the agent's name ("1. echo")
                if len(word) <= 24 and word != "#":
                    assert word in words or f"{word}." in words, (t.title, cell, word)


def test_a_table_too_wide_is_turned_then_split() -> None:
    from agentgauge.report import MatrixTable

    cell = "100.0% [83.9–100.0] (20/20)"
    rows = tuple((f"agent{i}", *([cell] * 8)) for i in range(6))
    header = ("agent", *(f"m{k}" for k in range(8)))
    t = MatrixTable(title="Quality", header=header, rows=rows)
    assert fit_table(t, 400) == [(t.header, t.rows)]
    grids = fit_table(t, 80)  # six agents side by side do not fit: groups of them
    assert len(grids) > 1
    assert [g[0][0] for g in grids] == ["agent"] * len(grids)
    assert sum(len(g[0]) - 1 for g in grids) == 6
