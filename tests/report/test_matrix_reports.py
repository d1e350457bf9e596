"""Reports of a matrix run: console, Markdown, JUnit and the files written into OUT."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from rich.console import Console

from agentgauge.metrics import MatrixComparison, compare_matrix
from agentgauge.report import (
    MATRIX_MARKER,
    matrix_lines,
    render_matrix_console,
    render_matrix_markdown,
    write_matrix_junit,
    write_matrix_reports,
)
from agentgauge.runner import RunConfig, parse_agents, run_matrix
from matrix_helpers import words_suite

SECRET = "sk-test-0123456789abcdefXYZ"


def comparison(tmp_path: Path, *agents: str) -> tuple[Path, MatrixComparison]:
    out = tmp_path / "out"
    config = RunConfig(progress=False, cache=False)
    run_matrix(words_suite(tmp_path, name="'words <&> |'"), config, parse_agents(agents), out)
    return out, compare_matrix(out)


def test_markdown_is_a_pr_comment_with_every_table(tmp_path: Path) -> None:
    _, c = comparison(tmp_path, "mock:", "echo=mock:echo", "down=openai:no-key")
    md = render_matrix_markdown(c)
    lines = md.splitlines()
    assert lines[0] == MATRIX_MARKER
    assert lines[1] == "## agentgauge: 3 agents on `words &lt;&amp;&gt; \\|`"
    for title in ("Quality", "Cost (per result)", "Performance", "Pass rate per scenario"):
        assert f"### {title}" in md
    assert "### Pairwise (exact McNemar on shared cases, Holm-adjusted, alpha 0.05)" in md
    assert (
        "| 1 | echo | mock:echo | 88.9% [56.5–98.0] (8/9) | 0.0% | – | – | – | not checked |"
        in lines
    )
    assert "| 3 | down | openai:no-key | – | – | – | – | – | failed |" in lines
    assert "| echo vs mock | 9 | 1 | 8 | +77.8 pts [" in md
    # scenarios are rows, the finished agents columns, best first (as in every table)
    assert "| scenario | echo | mock |" in lines
    assert "| fixed | 0.0% (0/1) | 100.0% (1/1) |" in lines
    cost = lines.index("### Cost (per result)")
    assert lines[cost + 4].startswith("| echo |")
    assert "- echo passes significantly more cases than mock" in md
    assert any(line.startswith("- warning: down (openai:no-key) did not run:") for line in lines)


def test_lines_say_when_nothing_differs(tmp_path: Path) -> None:
    _, c = comparison(tmp_path, "a=mock:", "b=mock:")
    lines = matrix_lines(c)
    # equal on every figure the ranking reads: neither is ahead
    assert lines[0] == (
        "ranking (pass rate, then errors, cost): 1. a 11.1%, 1. b 11.1%; equal ranks: tied"
    )
    assert lines[1].startswith("no pair of agents differs significantly at alpha 0.05")


def test_console_renders_the_tables(tmp_path: Path) -> None:
    _, c = comparison(tmp_path, "mock:", "echo=mock:echo")
    buf = io.StringIO()
    render_matrix_console(c, Console(file=buf, width=240, no_color=True))
    text = buf.getvalue()
    for title in ("Quality", "Cost (per result)", "Performance", "Pairwise"):
        assert title in text
    assert "echo better" in text
    assert "88.9% [56.5–98.0] (8/9)" in text


def test_junit_has_one_testsuite_per_finished_agent(tmp_path: Path) -> None:
    out, c = comparison(tmp_path, "mock:", "echo=mock:echo", "down=openai:no-key")
    buf = io.StringIO()
    write_matrix_junit(out, c, buf)
    root = ET.fromstring(buf.getvalue())
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("18", "9", "0")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["mock", "echo"]
    props = {p.get("name"): p.get("value") for p in suites[1].iter("property")}
    assert props["agent"] == "mock:echo"
    failed = [t.get("name") for t in suites[1].iter("testcase") if t.find("failure") is not None]
    assert failed == ["mock-only [0]"]


def test_files_are_written_and_secrets_scrubbed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out, c = comparison(tmp_path, f"leaky=mock:?text={SECRET}", "mock:echo")
    paths = write_matrix_reports(out, c)
    names = [p.name for p in paths]
    assert names[:3] == ["comparison.json", "comparison.md", "junit.xml"]
    assert "dashboard.html" in names
    for p in paths:
        assert SECRET not in p.read_text(encoding="utf-8"), p.name
    assert "leaky" in (out / "comparison.md").read_text()


def test_the_spec_column_is_left_out_when_every_label_is_the_spec(tmp_path: Path) -> None:
    _, c = comparison(tmp_path, "mock:", "mock:echo")
    lines = render_matrix_markdown(c).splitlines()
    header = lines.index("### Quality") + 2
    assert lines[header].startswith("| # | agent | pass rate |")
    assert lines[header + 2].startswith("| 1 | mock-echo | 88.9% [56.5–98.0] (8/9) |")
