"""A matrix whose members differ in their system prompt shows each member's prompt: in
comparison.md (a table, the long ones whole in <details>), the console and the dashboard's
card headers (escaped); a matrix whose members share one prompt shows none."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from agentgauge.cli import cli
from agentgauge.metrics import MatrixAgentStats, MatrixComparison, compare_matrix
from agentgauge.report import render_matrix_console, render_matrix_markdown
from agentgauge.report._dashboard_matrix import matrix_dashboard

LONG = "Be <b>careful</b> | check twice & " + "think " * 30 + "THE-END"


def suite_file(tmp_path: Path, matrix: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: prompts\ndefaults: {system: Suite prompt.}\n"
        f"{matrix}"
        "cases:\n"
        "  - {id: a, input: say word, expect: {response_contains: [word]}}\n"
        "  - {id: b, input: say other, expect: {response_contains: [other]}}\n"
    )
    return path


def run_matrix(tmp_path: Path, matrix: str, *extra: str) -> Path:
    out = tmp_path / "out"
    args = ["run", str(suite_file(tmp_path, matrix)), "-o", str(out), "--no-history", *extra]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "cache"))


DIFFERENT = (
    "matrix:\n  agents:\n"
    "    - {agent: 'mock:echo', label: plain}\n"
    "    - {agent: 'mock:echo', label: terse, system: Answer in one sentence.}\n"
    f"    - {{agent: 'mock:echo', label: long, system: {json.dumps(LONG)}}}\n"
    "    - {agent: 'mock:echo', label: bare, system: ''}\n"
)


def console_text(c: MatrixComparison) -> str:
    buf = io.StringIO()
    render_matrix_console(c, Console(file=buf, width=300, no_color=True))
    return buf.getvalue()


def test_members_with_different_prompts_show_them_everywhere(tmp_path: Path) -> None:
    out = run_matrix(tmp_path, DIFFERENT)
    comparison = compare_matrix(out)
    systems = {a.label: a.system for a in comparison.agents}
    # read from each member's run.json (None: the member used the suite's defaults.system)
    assert systems == {
        "plain": None,
        "terse": "Answer in one sentence.",
        "long": LONG,
        "bare": "",
    }
    saved = json.loads((out / "comparison.json").read_text())
    assert {a["label"]: a["system"] for a in saved["agents"]} == systems

    md = (out / "comparison.md").read_text()
    assert "### System prompts" in md
    assert "| terse | Answer in one sentence. |" in md
    assert "| plain | (the suite's defaults.system) |" in md
    assert "| bare | (no system prompt) |" in md
    # the long one is cut in the table, escaped (no raw tag, no cell-breaking pipe) ...
    row = next(line for line in md.splitlines() if line.startswith("| long |"))
    assert "THE-END" not in row
    assert "…" in row
    assert "&lt;b&gt;careful&lt;/b&gt; \\| check twice &amp;" in row
    # ... and whole, escaped, in a <details> block of its own (only the cut one gets one)
    assert md.count("<details>") == 1
    details = md[md.index("<details>") : md.index("</details>")]
    assert "long: the full system prompt" in details
    assert "THE-END" in details
    assert "Be &lt;b&gt;careful&lt;/b&gt; | check twice &amp; think" in details
    assert "<b>" not in md

    text = console_text(comparison)
    assert "System prompts" in text
    assert "Answer in one sentence." in text
    assert "(no system prompt)" in text

    html = (out / "dashboard.html").read_text()
    assert html.count('class="agd-prompt"') == 4 * 3  # each card of the three columns
    assert "system: Answer in one sentence.</p>" in html
    # the full prompt on hover, escaped in the attribute; the cut one in the line
    assert 'title="Be &lt;b&gt;careful&lt;/b&gt; | check twice &amp; think' in html
    assert "THE-END&quot;" not in html
    assert "THE-END" in html
    assert "<b>careful" not in html


def test_no_prompt_line_when_no_member_sets_one(tmp_path: Path) -> None:
    plain = "matrix:\n  agents: ['mock:echo', 'mock:']\n"
    out = run_matrix(tmp_path, plain)
    comparison = compare_matrix(out)
    assert [a.system for a in comparison.agents] == [None, None]
    assert "System prompts" not in (out / "comparison.md").read_text()
    assert "<details>" not in (out / "comparison.md").read_text()
    assert "System prompts" not in console_text(comparison)
    assert "agd-prompt" not in (out / "dashboard.html").read_text().split("</style>", 1)[1]


def test_no_prompt_line_when_every_member_has_the_same_one(tmp_path: Path) -> None:
    plain = "matrix:\n  agents: ['mock:echo', 'mock:']\n"
    out = run_matrix(tmp_path, plain, "--system", "Shared prompt.")
    comparison = compare_matrix(out)
    assert [a.system for a in comparison.agents] == ["Shared prompt.", "Shared prompt."]
    assert not comparison.prompts_differ()
    assert "System prompts" not in render_matrix_markdown(comparison)


def test_a_script_in_a_prompt_is_escaped_in_the_dashboard() -> None:
    evil = '"><script>alert(1)</script>'
    comparison = MatrixComparison(
        suite="s",
        agents=[
            MatrixAgentStats(label="a", agent="mock:", run_dir="a", system=evil),
            MatrixAgentStats(label="b", agent="mock:", run_dir="b"),
        ],
        ranking=["a", "b"],
    )
    html = matrix_dashboard(comparison)
    assert "<script>alert(1)" not in html
    assert "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    md = render_matrix_markdown(comparison)
    assert "<script>" not in md
    assert "&lt;script&gt;" in md
