"""A matrix's ranking never puts one agent ahead of another on nothing: members equal on every
figure it reads share a rank, and an unknown cost is not the cheapest (it is left out of the
ranking, which says so), in comparison.json, the console/Markdown line and the dashboard."""

from __future__ import annotations

import re
from pathlib import Path

from agentgauge.metrics import compare_matrix
from agentgauge.report import render_matrix_markdown, write_matrix_reports
from agentgauge.runner import MatrixMember, RunConfig, parse_agents, run_matrix
from agentgauge.testing import FakeOpenAIServer

SUITE = """name: hello
cases:
  - {id: a, input: say hello, expect: {response_contains: [hello]}}
  - {id: b, input: hello again, expect: {response_contains: [hello]}}
"""
#: a bare reply: no token usage, so no cost (unknown, not $0)
BARE = "def agent(messages, tools):\n    return messages[-1].content\n"


def _suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return path


def _ranking(out: Path) -> tuple[dict[str, int], str]:
    comparison = compare_matrix(out)
    ranks = {a.label: a.rank for a in comparison.agents}
    md = render_matrix_markdown(comparison)
    line = next(x for x in md.splitlines() if "ranking (" in x)
    return ranks, line


def test_members_equal_on_every_figure_share_a_rank(tmp_path: Path) -> None:
    out = tmp_path / "out"
    agents = parse_agents(["one=mock:echo", "two=mock:echo", "three=mock:"])
    run_matrix(_suite(tmp_path), RunConfig(progress=False, cache=False), agents, out)
    ranks, line = _ranking(out)
    assert ranks == {"one": 1, "two": 1, "three": 3}
    assert "1. one 100.0%, 1. two 100.0%, 3. three 0.0%; equal ranks: tied" in line
    write_matrix_reports(out, compare_matrix(out))
    page = (out / "dashboard.html").read_text()
    marks = re.findall(r'title="rank in the matrix">#(\d)<', page)
    assert set(marks) == {"1", "3"}  # on each agent's cards: no "#2" for an equal agent


def test_an_unknown_cost_is_not_the_cheapest(tmp_path: Path) -> None:
    (tmp_path / "bare.py").write_text(BARE)
    out = tmp_path / "out"
    with FakeOpenAIServer(["hello"] * 8, model="gpt-4o-mini", record=False) as srv:
        priced = MatrixMember(
            label="priced",
            agent="openai:gpt-4o-mini",
            options={"base_url": srv.base_url, "api_key": "sk-ranking-key"},
        )
        bare = MatrixMember(label="bare", agent=f"python:{tmp_path / 'bare.py'}:agent")
        config = RunConfig(progress=False, cache=False, allow_suite_code=True)
        run_matrix(_suite(tmp_path), config, [priced, bare], out)
    comparison = compare_matrix(out)
    costs = {a.label: a.cost.cost_usd.mean for a in comparison.agents}
    assert costs["bare"] is None
    assert costs["priced"] is not None
    assert costs["priced"] > 0
    ranks, line = _ranking(out)
    # both pass every case with no error: the unknown cost does not put "bare" ahead
    assert ranks == {"priced": 1, "bare": 1}
    assert "cost not used, unknown for bare" in line
    assert re.search(r"1\. priced 100\.0%, 1\. bare 100\.0%", line), line
