"""The dashboard's structure: the radar (a polygon per agent over its measured axes, n/a axes),
the best value per row, the significance marks and matrix, escaping, and the page written for
real run directories (scripted agents over examples/modules)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from lxml import html as lxml_html

from agentgauge.metrics import (
    Cost,
    Diagnosis,
    Latency,
    MatrixComparison,
    Mean,
    Performance,
    Rate,
    Slice,
    Summary,
    ToolSelection,
    compare_matrix,
)
from agentgauge.metrics._model import ScorerStats
from agentgauge.report._dashboard import (
    RADAR_AXES,
    DashboardAgent,
    PairDelta,
    PairSignificance,
    dashboard_section,
    holm,
    render_dashboard,
)
from agentgauge.report._dashboard_matrix import matrix_agents, write_matrix_dashboard
from agentgauge.report._dashboard_runs import (
    load_agents,
    pairwise_significance,
    write_dashboard,
)
from agentgauge.runner import MatrixMember, RunConfig, run_matrix

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
AGENTS = HERE / "dashboard_agents.py"
NAMES = ("careful", "hasty", "kb_router")
EVIL = '<script>alert("x")</script>'
EVIL_CAT = '<img src=x onerror="alert(2)">'


def _rate(passed: int, n: int) -> Rate:
    v = passed / n
    return Rate(passed=passed, n=n, value=v, low=max(0.0, v - 0.1), high=min(1.0, v + 0.1))


def _mean(value: float, n: int = 10) -> Mean:
    return Mean(n=n, mean=value, low=value * 0.9, high=value * 1.1, total=value * n)


def _lat(p50: float, p95: float, n: int = 10) -> Latency:
    return Latency(n=n, p50=p50, p90=p95, p95=p95, max=p95, mean=p50)


def _summary(
    *,
    passed: int = 8,
    p50: float = 100.0,
    tokens: float = 300.0,
    usd: float | None = 0.01,
    memory: Rate | None = None,
    clarification: Rate | None = None,
    categories: dict[str, Rate] | None = None,
    judge: float | None = None,
) -> Summary:
    cats = categories or {
        "billing": _rate(passed // 2, 5),
        "roaming": _rate(passed - passed // 2, 5),
    }
    scorers = {}
    if judge is not None:
        scorers["response_quality"] = ScorerStats(mean=_mean(judge), pass_rate=_rate(7, 10))
    return Summary(
        cases=10,
        overall=Slice(results=10, pass_rate=_rate(passed, 10), latency=_lat(p50, p50 * 3)),
        by_category={
            c: Slice(results=r.n, pass_rate=r, latency=_lat(p50, p50 * 2, r.n))
            for c, r in cats.items()
        },
        tool_selection=ToolSelection(accuracy=_rate(9, 10)),
        arguments_strict=_rate(7, 10),
        behavior=_rate(3, 4),
        diagnosis=Diagnosis(
            intent_accuracy=_rate(6, 10),
            clarification_rate=clarification or Rate(),
            routing_accuracy=_rate(8, 10),
            call_decision_accuracy=_rate(9, 10),
            memory_retention=memory or Rate(),
        ),
        cost=Cost(
            model_calls=_mean(2.0),
            tool_calls=_mean(1.0),
            input_tokens=_mean(tokens * 0.8),
            output_tokens=_mean(tokens * 0.2),
            cost_usd=_mean(usd / 10) if usd is not None else Mean(),
        ),
        performance=Performance(latency=_lat(p50, p50 * 3), ttft=Latency()),
        scorers=scorers,
    )


def _doc(html_text: str) -> Any:
    return lxml_html.fromstring(html_text)


def _points(poly: Any) -> list[tuple[float, float]]:
    raw = poly.get("points").split()
    return [(float(x), float(y)) for x, y in (p.split(",") for p in raw)]


def _row(doc: Any, column: str, label: str) -> list[Any]:
    """The row ``label`` of every agent's card in ``column``, in agent order."""
    return [
        dt.getparent()
        for dt in doc.xpath(f'//div[@data-column="{column}"]//div[contains(@class,"agd-row")]/dt')
        if dt.text_content() == label
    ]


# --- the radar -----------------------------------------------------------------------------------


def test_radar_has_one_polygon_per_agent_over_its_measured_axes() -> None:
    agents = [
        DashboardAgent(name="a", summary=_summary(memory=_rate(9, 10), clarification=_rate(3, 4))),
        DashboardAgent(name="b", summary=_summary(clarification=_rate(1, 4))),  # no memory data
    ]
    doc = _doc(dashboard_section(agents))
    polys = doc.xpath('//svg[@class="agd-radar"]//g[contains(@class,"agd-series")]')
    assert [g.get("data-agent") for g in polys] == ["0", "1"]
    assert len(_points(polys[0].xpath("polygon")[0])) == len(RADAR_AXES) == 7
    assert len(_points(polys[1].xpath("polygon")[0])) == 6  # memory skipped, not drawn at 0
    assert len(polys[1].xpath("circle")) == 6
    # the value table says n/a for b's memory, the value for a's
    cells = doc.xpath(
        '//table[contains(@class,"agd-radar-values")]//tr[th[contains(.,"retention")]]/td'
    )
    assert [c.text_content() for c in cells] == ["90.0%", "n/a"]


def test_an_axis_nobody_measured_is_na_never_zero() -> None:
    agents = [
        DashboardAgent(name="a", summary=_summary()),
        DashboardAgent(name="b", summary=_summary()),
    ]
    doc = _doc(dashboard_section(agents))
    labels = doc.xpath('//svg[@class="agd-radar"]//text[contains(@class,"agd-axis-label")]')
    na = [t.text_content() for t in labels if "agd-na" in t.get("class")]
    assert na == ["perception · clarification (n/a)", "memory · retention (n/a)"]
    svg = doc.xpath('//svg[@class="agd-radar"]')[0]
    ring = _points(svg.xpath('.//polygon[@class="agd-ring"]')[0])
    centre = (sum(x for x, _ in ring) / len(ring), sum(y for _, y in ring) / len(ring))
    for poly in svg.xpath('.//polygon[@class="agd-poly"]'):
        pts = _points(poly)
        assert len(pts) == 5
        assert all(abs(x - centre[0]) + abs(y - centre[1]) > 1 for x, y in pts)  # no 0 vertex
    cells = [
        c.text_content() for c in doc.xpath('//table[contains(@class,"agd-radar-values")]//td')
    ]
    assert cells.count("n/a") == 4
    assert "0.0%" not in cells


def test_a_run_without_module_labels_says_so() -> None:
    empty = Summary()
    doc = _doc(dashboard_section([DashboardAgent(name="solo", summary=empty)]))
    assert "No module-level rate was measured" in doc.text_content()
    assert _points_or_none(doc) == [""]


def _points_or_none(doc: Any) -> list[str]:
    return [p.get("points") for p in doc.xpath('//polygon[@class="agd-poly"]')]


# --- best per row, significance ------------------------------------------------------------------


def _best(doc: Any, column: str, label: str) -> list[bool]:
    return ["agd-best" in r.get("class") for r in _row(doc, column, label)]


def _caution(doc: Any, column: str, label: str) -> list[str]:
    return [
        r.xpath('.//span[@class="agd-caveat"]')[0].text_content() for r in _row(doc, column, label)
    ]


def _cheaper(p_value: float, a_only: int) -> list[PairSignificance]:
    """strong against cheap: the pass rates' McNemar p as given; cheap's tokens and latency
    significantly lower (paired bootstrap intervals of cheap - strong below 0)."""
    deltas = (
        PairDelta(metric="tokens", delta=-700.0, low=-800.0, high=-600.0),
        PairDelta(metric="latency_ms", delta=-220.0, low=-250.0, high=-190.0),
        PairDelta(metric="tool_selection_accuracy", delta=0.0, low=0.0, high=0.0, p_value=1.0),
    )
    return [
        PairSignificance(
            a="strong",
            b="cheap",
            a_only=a_only,
            b_only=1,
            paired=20,
            p_value=p_value,
            deltas=deltas,
        )
    ]


def test_a_best_mark_needs_a_difference_a_named_test_finds_significant() -> None:
    # issue 22 item 1: 15 % against 5 % with McNemar p = 0.625 was starred (here 20 % / 10 %)
    agents = [
        DashboardAgent(name="strong", summary=_summary(passed=2, p50=300.0, tokens=900.0)),
        DashboardAgent(name="cheap", summary=_summary(passed=1, p50=80.0, tokens=200.0)),
    ]
    doc = _doc(dashboard_section(agents, _cheaper(0.625, a_only=3)))
    assert _best(doc, "quality", "pass rate") == [False, False]
    assert _best(doc, "quality", "tool selection") == [False, False]
    # cheaper and faster by a paired bootstrap interval, and not significantly worse: ★
    assert _best(doc, "cost", "tokens / result") == [False, True]
    assert _best(doc, "performance", "latency p50") == [False, True]
    star = _row(doc, "cost", "tokens / result")[1].xpath('.//span[contains(@class,"agd-star")]')
    assert "paired bootstrap 95 % interval" in star[0].get("title")
    # rows without a test are never marked, nor are rows with equal or unmeasured values
    assert _best(doc, "performance", "latency p95") == [False, False]
    assert _best(doc, "cost", "cost (USD, total)") == [False, False]
    # calls per result: the same intervals overlap, no mark
    assert _best(doc, "cost", "model calls / result") == [False, False]
    # no pairs at all: no rate is marked, whatever the values
    bare = _doc(dashboard_section(agents))
    assert _best(bare, "quality", "pass rate") == [False, False]
    assert _best(bare, "cost", "tokens / result") == [False, False]
    assert "★ marks a value better than every other shown agent" in doc.text_content()


def test_a_cheap_agent_that_passes_far_fewer_cases_is_never_rewarded_silently() -> None:
    agents = [
        DashboardAgent(name="strong", summary=_summary(passed=9, p50=300.0, tokens=900.0)),
        DashboardAgent(name="cheap", summary=_summary(passed=1, p50=80.0, tokens=200.0)),
    ]
    doc = _doc(dashboard_section(agents, _cheaper(0.002, a_only=12)))
    assert _best(doc, "quality", "pass rate") == [True, False]
    star = _row(doc, "quality", "pass rate")[0].xpath('.//span[contains(@class,"agd-star")]')
    assert "McNemar p = 0.002" in star[0].get("title")
    for column, label in (("cost", "tokens / result"), ("performance", "latency p50")):
        assert _best(doc, column, label) == [False, False]
        strong, cheap = _caution(doc, column, label)
        assert strong == ""
        assert cheap.startswith("but passes significantly fewer cases than strong (McNemar p")


def test_a_far_lower_pass_rate_no_test_confirms_is_said_too() -> None:
    # 3 cases: 100 % against 0 %, McNemar p = 0.25: not significant, but far lower
    agents = [
        DashboardAgent(name="strong", summary=_summary(passed=9, p50=300.0, tokens=900.0)),
        DashboardAgent(name="cheap", summary=_summary(passed=1, p50=80.0, tokens=200.0)),
    ]
    doc = _doc(dashboard_section(agents, _cheaper(0.25, a_only=3)))
    assert _best(doc, "quality", "pass rate") == [False, False]
    assert _best(doc, "cost", "tokens / result") == [False, False]
    assert _caution(doc, "cost", "tokens / result")[1] == (
        "but its pass rate is 80 points below strong's (no test finds it significant: more "
        "cases may)"
    )
    # a small gap with no test behind it leaves the cheap agent its ★
    close = [
        DashboardAgent(name="strong", summary=_summary(passed=6, tokens=900.0)),
        DashboardAgent(name="cheap", summary=_summary(passed=5, tokens=200.0)),
    ]
    near = _doc(dashboard_section(close, _cheaper(1.0, a_only=1)))
    assert _best(near, "cost", "tokens / result") == [False, True]


def test_one_agent_has_no_best_marks_and_no_matrix() -> None:
    doc = _doc(dashboard_section([DashboardAgent(name="solo", summary=_summary())]))
    # no tokens per scenario known: the chart is left out, not drawn as zeros
    assert "Tokens per result per scenario" not in doc.text_content()
    assert doc.xpath('//*[contains(@class,"agd-best")]') == []
    assert doc.xpath('//table[contains(@class,"agd-matrix")]') == []
    assert len(doc.xpath('//div[contains(@class,"agd-card")]')) == 3  # one per column


def test_judge_means_get_a_row() -> None:
    agents = [
        DashboardAgent(name="a", summary=_summary(judge=0.8)),
        DashboardAgent(name="b", summary=_summary(judge=0.6)),
    ]
    doc = _doc(dashboard_section(agents))
    rows = _row(doc, "quality", "judge: response_quality")
    assert ["agd-best" in r.get("class") for r in rows] == [True, False]
    assert rows[1].xpath('.//span[@class="agd-val"]')[0].text == "0.60"


def test_holm_adjusts_and_keeps_none() -> None:
    assert holm([0.01, None, 0.04, 0.03]) == pytest.approx([0.03, None, 0.06, 0.06])  # type: ignore[arg-type]
    assert holm([]) == []


def test_significance_marks_on_cards_and_matrix() -> None:
    agents = [DashboardAgent(name=n, summary=_summary()) for n in ("a", "b", "c")]
    pairs = [
        PairSignificance(a="a", b="b", a_only=12, b_only=1, paired=40, p_value=0.003),
        PairSignificance(a="a", b="c", a_only=2, b_only=3, paired=40, p_value=1.0),
        # significant alone (0.03 < 0.05) but not after Holm (second smallest: 2 × 0.03)
        PairSignificance(a="c", b="b", a_only=6, b_only=1, paired=40, p_value=0.03),
    ]
    doc = _doc(dashboard_section(agents, pairs))
    marks = [
        [s.text_content() for s in r.xpath('.//span[@class="agd-sig"]')]
        for r in _row(doc, "quality", "pass rate")
    ]
    assert marks == [["▲ b"], [], []]
    matrix = doc.xpath('//table[contains(@class,"agd-matrix")]')[0]
    cells = [[td.get("class") for td in tr.xpath("td")] for tr in matrix.xpath("tbody/tr")]
    assert cells == [
        ["agd-diag", "agd-up", "agd-ns"],
        ["agd-down", "agd-diag", "agd-ns"],  # b against c read from the (c, b) pair
        ["agd-ns", "agd-ns", "agd-diag"],
    ]
    assert "+1 / −12" in matrix.xpath("tbody/tr")[1].xpath("td")[0].text_content()
    # without the other comparisons c beats b: the pair alone at 0.03 is marked
    alone = _doc(dashboard_section(agents, pairs[2:]))
    c_marks = _row(alone, "quality", "pass rate")[2].xpath('.//span[@class="agd-sig"]')
    assert [s.text_content() for s in c_marks] == ["▲ b"]


# --- escaping ------------------------------------------------------------------------------------


def test_every_string_from_results_is_escaped() -> None:
    evil = _summary(categories={EVIL_CAT: _rate(3, 5)}, judge=0.5)
    evil.scorers[f"judge.{EVIL}"] = ScorerStats(mean=_mean(0.4))
    agents = [
        DashboardAgent(name=EVIL, summary=evil),
        DashboardAgent(name="ok", summary=_summary()),
    ]
    pairs = [PairSignificance(a=EVIL, b="ok", a_only=9, b_only=0, paired=10, p_value=0.004)]
    page = render_dashboard(agents, pairs, title=f"suite {EVIL}")
    assert EVIL not in page
    assert EVIL_CAT not in page
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page
    doc = _doc(page)
    # the page's own script, and the marks' data (JSON, never run)
    assert len(doc.xpath('//script[not(@type="application/json")]')) == 1
    data = doc.xpath('//script[@type="application/json"]')
    assert len(data) == 1
    assert "<" not in data[0].text
    assert doc.xpath("//img") == []
    assert doc.xpath("//@onerror") == []
    assert EVIL in doc.xpath('//div[@data-agent="0"]/h4')[0].text_content()
    assert EVIL_CAT in doc.text_content()


# --- pages for real runs -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def matrix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/modules run by the three scripted agents as one matrix (OUT/<label>/)."""
    out = tmp_path_factory.mktemp("dash") / "matrix"
    members = [MatrixMember(label=n, agent=f"python:{AGENTS}:{n}") for n in NAMES]
    config = RunConfig(allow_suite_code=True, cache=False)
    run_matrix(REPO / "examples" / "modules", config, members, out)
    return out


@pytest.fixture(scope="module")
def runs(matrix: Path) -> list[tuple[str, Path]]:
    return [(n, matrix / n) for n in NAMES]


def test_a_page_for_three_real_runs(runs: list[tuple[str, Path]], tmp_path: Path) -> None:
    path = write_dashboard(tmp_path, runs, title="examples/modules")
    assert path == tmp_path / "dashboard.html"
    doc = _doc(path.read_text(encoding="utf-8"))
    # the wrong router loses routing, and it is significantly worse than the careful agent
    pass_rates = [
        r.xpath('.//span[@class="agd-val"]')[0].text for r in _row(doc, "quality", "pass rate")
    ]
    assert pass_rates[0] == "100.0%"
    assert float(pass_rates[2].rstrip("%")) < 20
    careful_marks = _row(doc, "quality", "pass rate")[0].xpath('.//span[@class="agd-sig"]')
    assert [s.text_content() for s in careful_marks] == ["▲ hasty", "▲ kb_router"]
    routing = doc.xpath(
        '//table[contains(@class,"agd-radar-values")]//tr[th[contains(.,"routing")]]/td'
    )
    assert routing[0].text_content() == "100.0%"
    assert float(routing[2].text_content().rstrip("%")) < 50
    # tokens and USD were reported; the hasty agent is cheaper per result than the careful one
    tokens = [
        r.xpath('.//span[@class="agd-val"]')[0].text for r in _row(doc, "cost", "tokens / result")
    ]
    assert all(re.fullmatch(r"[\d,]+", t) for t in tokens), tokens
    assert int(tokens[1].replace(",", "")) < int(tokens[0].replace(",", ""))
    usd = _row(doc, "cost", "cost (USD, total)")
    assert usd[0].xpath('.//span[@class="agd-val"]')[0].text.startswith("$")
    # per-scenario bars: one group per category, with a bar per agent; tokens per scenario too
    groups = doc.xpath('//div[contains(@class,"agd-progress")]/div[@class="agd-bgroup"]')
    assert len(groups) == 8
    assert all(len(g.xpath('div[contains(@class,"agd-prow")]')) == 3 for g in groups)
    assert "Tokens per result per scenario" in doc.text_content()


def test_pairwise_significance_counts_the_discordant_cases(runs: list[tuple[str, Path]]) -> None:
    pairs = {(p.a, p.b): p for p in pairwise_significance(runs)}
    assert set(pairs) == {("careful", "hasty"), ("careful", "kb_router"), ("hasty", "kb_router")}
    ck = pairs[("careful", "kb_router")]
    assert ck.paired == 64
    assert ck.b_only == 0  # kb_router passes nothing careful fails
    assert ck.a_only > 40
    assert ck.p_value is not None
    assert ck.p_value < 1e-6


def test_load_agents_names_a_missing_run(tmp_path: Path) -> None:
    from agentgauge.errors import UserError

    with pytest.raises(UserError, match=r"no such run directory \(agent 'x'\)"):
        load_agents([("x", tmp_path / "nope")])


def _marks(doc: Any) -> list[list[str]]:
    return [
        [m.text_content() for m in r.xpath('.//span[@class="agd-sig"]')]
        for r in _row(doc, "quality", "pass rate")
    ]


def test_the_matrix_page_marks_what_comparison_json_calls_significant(matrix: Path) -> None:
    comparison = compare_matrix(matrix)
    path = write_matrix_dashboard(matrix, comparison)
    assert path == matrix / "dashboard.html"
    doc = _doc(path.read_text(encoding="utf-8"))
    assert doc.xpath("//title")[0].text == "agentgauge: modules"
    expected: list[list[str]] = [[] for _ in NAMES]
    for p in comparison.significant_pairs():
        loser = p.b if p.better == p.a else p.a
        assert p.better is not None
        expected[NAMES.index(p.better)].append(f"▲ {loser}")
    assert _marks(doc) == expected
    assert expected[0] == ["▲ hasty", "▲ kb_router"]
    ranks = [r.text for r in doc.xpath('//div[@data-column="quality"]//span[@class="agd-rank"]')]
    assert ranks == [f"#{comparison.agent(n).rank}" for n in NAMES]  # type: ignore[union-attr]
    # per-scenario latency and tokens come from the comparison: drawn, never n/a
    bars = doc.xpath('//div[contains(@class,"agd-brow")]')
    assert bars
    assert not [b for b in bars if b.xpath('.//span[@class="agd-na"]')]
    # the radar: careful routes everything right, kb_router little
    routing = doc.xpath(
        '//table[contains(@class,"agd-radar-values")]//tr[th[contains(.,"routing")]]/td'
    )
    shown = [c.text_content() for c in routing]
    assert shown[0] == "100.0%"
    assert float(shown[2].rstrip("%")) < 50


def test_the_comparisons_adjusted_p_values_are_used_not_recomputed() -> None:
    agents = [DashboardAgent(name=n, summary=_summary()) for n in ("a", "b")]
    raw = PairSignificance(a="a", b="b", a_only=9, b_only=1, paired=20, p_value=0.02)
    assert _marks(_doc(dashboard_section(agents, [raw]))) == [["▲ b"], []]
    given = PairSignificance(
        a="a", b="b", a_only=9, b_only=1, paired=20, p_value=0.02, p_adjusted=0.2
    )
    assert _marks(_doc(dashboard_section(agents, [given]))) == [[], []]


def test_a_member_that_failed_is_a_note_not_a_card(matrix: Path) -> None:
    comparison = compare_matrix(matrix)
    broken = comparison.agents[1].model_copy(
        update={"label": "broken", "status": "failed", "error": "ProviderError: 401 <b>x</b>"}
    )
    odd = MatrixComparison.model_validate(
        {**comparison.model_dump(), "agents": [*comparison.model_dump()["agents"], broken]}
    )
    agents, _, notes = matrix_agents(odd)
    assert [a.name for a in agents] == list(NAMES)
    assert any(n.startswith("broken (") and "401" in n for n in notes)
    page = render_dashboard(*matrix_agents(odd)[:2], notes=notes)
    assert "ProviderError: 401 &lt;b&gt;x&lt;/b&gt;" in page
    assert len(_doc(page).xpath('//div[@data-column="quality"]/div[@data-agent]')) == 3


def test_a_matrix_where_no_agent_finished_still_says_why() -> None:
    page = render_dashboard([], notes=["careful (python:a.py:careful) did not run: ImportError"])
    doc = _doc(page)
    assert "no agent finished" in doc.xpath("//h2")[0].text_content()
    assert doc.xpath('//p[@class="agd-warning"]')[0].text_content().endswith("ImportError")
    assert doc.xpath('//div[contains(@class,"agd-card")]') == []


def test_a_secret_in_the_environment_never_reaches_the_page(
    matrix: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-dashboard-test-0123456789abcdef"
    monkeypatch.setenv("DASHBOARD_TEST_API_KEY", secret)
    comparison = compare_matrix(matrix)
    leaky = comparison.agents[2].model_copy(
        update={"status": "failed", "error": f"401 for key {secret}"}
    )
    odd = comparison.model_copy(update={"agents": [*comparison.agents[:2], leaky]})
    page = write_matrix_dashboard(tmp_path, odd).read_text(encoding="utf-8")
    assert "401 for key ***" in page
    assert secret not in page
