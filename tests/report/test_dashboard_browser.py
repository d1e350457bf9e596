"""The dashboard in a real browser (Playwright driving the system Chromium).

What a user does: open OUT/dashboard.html of a three-agent run, read the cards, the radar, the
bars and the matrix, and hide an agent from the legend — with no console error, no network
request and no untrusted text run as code. With ``CI`` set these tests fail instead of
skipping when Playwright or Chromium is missing.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from test_dashboard import EVIL, EVIL_CAT, NAMES, _rate, _summary  # tests/report is on sys.path

from agentgauge.metrics import compare_matrix
from agentgauge.report._dashboard import (
    DashboardAgent,
    PairDelta,
    PairSignificance,
    render_dashboard,
)
from agentgauge.report._dashboard_matrix import write_matrix_dashboard
from agentgauge.runner import MatrixMember, RunConfig, run_matrix

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
AGENTS = HERE / "dashboard_agents.py"


class Watched:
    """A page with every console error, page error, dialog and outside request recorded."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page(viewport={"width": 1320, "height": 900})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", dialog)

        def request(route: Any) -> None:
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                self.requests.append(route.request.url)
                route.abort()

        self.page.route("**/*", request)

    def clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.dialogs == [], f"untrusted text ran as code: {self.dialogs}"
        assert self.requests == [], f"the page reached out to the network: {self.requests}"


@pytest.fixture(scope="module")
def matrix_page(tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("dashb") / "matrix"
    members = [MatrixMember(label=n, agent=f"python:{AGENTS}:{n}") for n in NAMES]
    config = RunConfig(allow_suite_code=True, cache=False)
    # in a thread of its own: Playwright's sync API keeps an event loop running in this one
    with ThreadPoolExecutor(1) as pool:
        pool.submit(run_matrix, REPO / "examples" / "modules", config, members, out).result()
    comparison = compare_matrix(out)
    assert [a.status for a in comparison.agents] == ["done"] * 3, comparison.warnings
    return write_matrix_dashboard(out, comparison).as_uri()


def _box(locator: Any) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, "not rendered"
    return dict(box)


def test_the_page_renders_cards_radar_bars_and_matrix(browser: Any, matrix_page: str) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(matrix_page)
    cards = page.locator(".agd-card")
    assert cards.count() == 9  # three columns × three agents
    for i in range(9):
        assert cards.nth(i).is_visible()
    assert page.locator(".agd-row.agd-best").count() > 0
    # the radar: one polygon per agent, each with an area on screen
    polys = page.locator("svg.agd-radar polygon.agd-poly")
    assert polys.count() == 3
    for i in range(3):
        box = _box(polys.nth(i))
        assert box["width"] > 20
        assert box["height"] > 20
    assert page.locator("svg.agd-radar").is_visible()
    # bars: filled segments of a visible width, a legend of input / output tokens
    segs = page.locator(".agd-brow .agd-seg")
    assert segs.count() > 0
    assert _box(segs.first)["width"] > 1
    assert page.locator(".agd-parts").first.inner_text().split() == ["input", "output"]
    # per-scenario progress: careful fills its track, kb_router's long_dialogue bar is empty
    track = page.locator(".agd-progress .agd-prow[data-agent='0'] .agd-track").first
    fill = page.locator(".agd-progress .agd-prow[data-agent='0'] .agd-seg").first
    assert abs(_box(fill)["width"] - _box(track)["width"]) < 2
    # the matrix: careful beats both others
    first_row = page.locator("table.agd-matrix tbody tr").first.locator("td")
    assert [first_row.nth(k).get_attribute("class") for k in range(3)] == [
        "agd-diag",
        "agd-up",
        "agd-up",
    ]
    w.clean()


def test_unticking_an_agent_hides_it_everywhere(browser: Any, matrix_page: str) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(matrix_page)
    hasty = page.locator("[data-agent='1']")
    shown = hasty.count()
    assert shown > 20  # cards, radar series, bars, progress rows
    box = page.locator("input[data-toggle='1']")
    box.uncheck()
    assert page.locator("[data-agent='1']:visible").count() == 0
    assert page.locator("svg.agd-radar g.agd-series[data-agent='1']").is_hidden()
    assert page.locator("[data-agent='0']:visible").count() > 0  # the others stay
    assert page.locator(".agd-card:visible").count() == 6
    box.check()
    assert page.locator("[data-agent='1']:visible").count() == shown
    w.clean()


def _three(p_ac: float) -> tuple[list[DashboardAgent], list[PairSignificance]]:
    """strong passes significantly more cases than cheap (p = 0.002) and than mid at
    ``p_ac``; cheap's tokens are significantly the lowest (paired bootstrap); cheap and mid
    pass about as many cases (10 % and 20 %)."""
    agents = [
        DashboardAgent(name="strong", summary=_summary(passed=9, tokens=900.0)),
        DashboardAgent(name="cheap", summary=_summary(passed=1, tokens=200.0)),
        DashboardAgent(name="mid", summary=_summary(passed=2, tokens=700.0)),
    ]
    lower = (PairDelta(metric="tokens", delta=-500.0, low=-600.0, high=-400.0),)
    higher = (PairDelta(metric="tokens", delta=500.0, low=400.0, high=600.0),)
    pairs = [
        PairSignificance(
            a="strong", b="cheap", a_only=12, b_only=0, paired=20, p_value=0.002, deltas=lower
        ),
        PairSignificance(a="strong", b="mid", a_only=3, b_only=1, paired=20, p_value=p_ac),
        PairSignificance(
            a="cheap", b="mid", a_only=0, b_only=3, paired=20, p_value=0.25, deltas=higher
        ),
    ]
    return agents, pairs


def _marks(page: Any, row: str) -> list[str]:
    """Per agent card of the row labelled ``row``: ★, ⚠ or ""."""
    rows = page.locator(".agd-row", has=page.locator(f"dt:text-is('{row}')"))
    return [rows.nth(k).locator(".agd-mark").inner_text() for k in range(rows.count())]


def test_hiding_an_agent_recomputes_the_marks_and_hides_its_columns(
    browser: Any, tmp_path: Path
) -> None:
    agents, pairs = _three(p_ac=0.625)
    path = tmp_path / "three.html"
    path.write_text(render_dashboard(agents, pairs), encoding="utf-8")
    w = Watched(browser)
    page = w.page
    page.goto(path.as_uri())
    # strong is not significantly better than mid: no ★ on the pass rate; cheap has the
    # fewest tokens but passes significantly fewer cases than strong: ⚠, not ★
    assert _marks(page, "pass rate") == ["", "", ""]
    assert _marks(page, "tokens / result") == ["", "⚠", ""]
    caveat = page.locator(".agd-card[data-agent='1'] .agd-caveat:visible")
    assert caveat.first.inner_text().startswith("but passes significantly fewer cases than strong")
    # hide mid: strong now beats every shown agent on the pass rate
    page.locator("input[data-toggle='2']").uncheck()
    assert _marks(page, "pass rate") == ["★", "", ""]
    title = page.locator(".agd-card[data-agent='0'] .agd-star").first.get_attribute("title")
    assert "McNemar p = 0.002" in (title or "")
    # its columns leave the module table and the pairwise matrix (rows and columns)
    for table in ("table.agd-radar-values", "table.agd-matrix"):
        assert page.locator(f"{table} [data-agent='2']:visible").count() == 0
        assert page.locator(f"{table} thead th:visible").count() == 3  # corner + two agents
    assert page.locator("table.agd-matrix tbody tr:visible").count() == 2
    # hide strong instead: cheap's tokens earn their ★ (no shown agent passes more cases)
    page.locator("input[data-toggle='2']").check()
    page.locator("input[data-toggle='0']").uncheck()
    assert _marks(page, "tokens / result") == ["", "★", ""]
    assert _marks(page, "pass rate") == ["", "", ""]
    assert page.locator(".agd-caveat:visible").count() == 0
    page.locator("input[data-toggle='0']").check()
    assert _marks(page, "tokens / result") == ["", "⚠", ""]
    w.clean()


def test_hostile_names_are_text(browser: Any, tmp_path: Path) -> None:
    evil = _summary(categories={EVIL_CAT: _rate(3, 5)})
    agents = [
        DashboardAgent(name=EVIL, summary=evil),
        DashboardAgent(name="ok", summary=_summary()),
    ]
    pairs = [PairSignificance(a=EVIL, b="ok", a_only=9, b_only=0, paired=10, p_value=0.004)]
    path = tmp_path / "evil.html"
    path.write_text(render_dashboard(agents, pairs, title=EVIL), encoding="utf-8")
    w = Watched(browser)
    page = w.page
    page.goto(path.as_uri())
    assert page.title() == EVIL
    assert page.locator(".agd-card[data-agent='0'] h4").first.inner_text().strip() == EVIL
    assert EVIL_CAT in page.locator(".agd-progress").inner_text()
    assert page.locator("img").count() == 0
    assert page.locator("script:not([type='application/json'])").count() == 1
    page.wait_for_timeout(100)
    w.clean()


def test_the_watch_catches_script_errors_and_dialogs(browser: Any, tmp_path: Path) -> None:
    """The checks above can fail: a page that runs injected code is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        "<!doctype html><title>x</title><script>alert('pwned'); nope()</script>"
        "<img src='http://127.0.0.1:9/x.png'>",
        encoding="utf-8",
    )
    w = Watched(browser)
    w.page.goto(bad.as_uri())
    w.page.wait_for_timeout(200)
    assert w.dialogs == ["pwned"]
    assert any("nope" in e for e in w.errors)
    assert w.requests == ["http://127.0.0.1:9/x.png"]
    with pytest.raises(AssertionError):
        w.clean()


def test_the_run_report_shows_the_section_for_its_agent(browser: Any, tmp_path: Path) -> None:
    import io

    from agentgauge.report import write_report

    buf = io.StringIO()
    write_report(HERE / "fixtures" / "new", "html", buf)
    path = tmp_path / "report.html"
    path.write_text(buf.getvalue(), encoding="utf-8")
    w = Watched(browser)
    page = w.page
    page.goto(path.as_uri())
    section = page.locator("section#dashboard")
    assert section.is_visible()
    assert section.locator(".agd-card").count() == 3  # one agent, three columns
    assert section.locator(".agd-best").count() == 0  # nothing to compare with
    assert section.locator("svg.agd-radar polygon.agd-poly").count() == 1
    assert section.locator("table.agd-matrix").count() == 0
    assert section.locator("input[data-toggle]").count() == 0  # no script of its own needed
    w.clean()
