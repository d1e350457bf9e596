"""The Markdown report's heading shows the suite name literally (issue 10 part 5)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agentgauge.io import ResultsWriter, write_record
from agentgauge.report import write_report
from agentgauge.schema import CaseResult, RunRecord


def _markdown(tmp_path: Path, suite: str) -> str:
    record = RunRecord(
        run_id="r1", suite=suite, agent="mock:", started_at="2026-12-01", agentgauge_version="0"
    )
    write_record(tmp_path, record)
    with ResultsWriter(tmp_path) as writer:
        writer.write(CaseResult(case_id="c1", status="passed", score=1.0))
    out = io.StringIO()
    write_report(tmp_path, "markdown", out)
    return out.getvalue()


def _heading(text: str) -> str:
    line = next(line for line in text.splitlines() if line.startswith("## "))
    return line.removesuffix(" — ✅ gate passed")


def test_plain_name_is_unchanged(tmp_path: Path) -> None:
    assert _heading(_markdown(tmp_path, "weather-suite v2")) == "## agentgauge: weather-suite v2"


@pytest.mark.parametrize(
    ("name", "heading"),
    [
        ("<img src=x onerror=alert(1)>", "## agentgauge: &lt;img src=x onerror=alert\\(1\\)&gt;"),
        ("[click](https://evil.example)", "## agentgauge: \\[click\\]\\(https://evil.example\\)"),
        ("*bold* _it_ `code`", "## agentgauge: \\*bold\\* \\_it\\_ \\`code\\`"),
        ("a\n## injected heading", "## agentgauge: a \\#\\# injected heading"),
        ("pipes | and ![img](x)", "## agentgauge: pipes \\| and \\!\\[img\\]\\(x\\)"),
    ],
)
def test_markdown_in_the_suite_name_is_escaped(tmp_path: Path, name: str, heading: str) -> None:
    text = _markdown(tmp_path, name)
    assert _heading(text) == heading
    assert "\n## injected" not in text
    assert "<img" not in text
