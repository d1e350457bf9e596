"""The HTML report in a real browser (Playwright driving the system Chromium).

What a user does: open the report, filter the cases, open a case's transcript and trace, go to
the baseline comparison — with no console error, no network request and no untrusted text run
as code. CI installs Chromium (scripts/setup.sh) and sets ``CI``: there these tests never skip.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_html import EVIL_CATEGORY, PAYLOAD, make_run  # tests/report is on sys.path
from test_html_scale import case_id, hostile_index, make_big_run

from agentgauge.io import iter_results
from agentgauge.metrics import compare, evaluate_gates, summarize
from agentgauge.report import render_html
from agentgauge.report._html import write_html
from agentgauge.schema import Gates

FIXTURES = Path(__file__).resolve().parent / "fixtures"


class Watched:
    """A page with every console error, page error, dialog and request recorded."""

    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.files: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", dialog)

        def request(route: Any) -> None:
            url = route.request.url
            if url.startswith("file://"):
                self.files.append(url)
                route.continue_()
            else:
                self.requests.append(url)
                route.abort()

        self.page.route("**/*", request)

    def clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.dialogs == [], f"untrusted text ran as code: {self.dialogs}"
        assert self.requests == [], f"the report reached out to the network: {self.requests}"


def _write(path: Path, page: str) -> str:
    path.write_text(page, encoding="utf-8")
    return path.as_uri()


@pytest.fixture
def hostile_page(tmp_path: Path) -> str:
    run = make_run(tmp_path)
    gates = Gates(min_pass_rate=0.8)
    s = summarize(run, gates=gates)
    page = render_html(s, iter_results(run), gates=evaluate_gates(s, gates))
    return _write(tmp_path / "report.html", page)


@pytest.fixture
def baseline_page(tmp_path: Path) -> str:
    gates = Gates(max_regression_points=2)
    s = summarize(FIXTURES / "new", gates=gates)
    cmp = compare(FIXTURES / "base", FIXTURES / "new")
    report = evaluate_gates(s, gates, cmp)
    page = render_html(s, iter_results(FIXTURES / "new"), gates=report, comparison=cmp)
    return _write(tmp_path / "compare.html", page)


def _ids(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#cases-table tbody tr.row td.id").all_inner_texts()]


def test_open_filter_and_read_a_transcript(browser: Any, hostile_page: str) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(hostile_page)
    assert page.locator("#count").inner_text() == "5 results"
    assert sorted(_ids(page)) == [
        "refuse-delete",
        "weather-lyon",
        "weather-oslo",
        "weather-paris",
        "weather-rome",
    ]
    # filter by status, then by text, then by category
    page.select_option("#status", "failed")
    assert sorted(_ids(page)) == ["refuse-delete", "weather-lyon"]
    assert page.locator("#count").inner_text() == "2 of 5 results (filtered)"
    page.select_option("#status", "")
    page.fill("#q", "oslo")
    assert _ids(page) == ["weather-oslo"]
    assert page.evaluate("location.hash") == "#q=oslo"
    page.fill("#q", "")
    page.select_option("#category", EVIL_CATEGORY)
    assert _ids(page) == ["refuse-delete"]
    page.select_option("#category", "")
    # open a case: its transcript and trace appear, hostile text shown as text
    page.locator("#cases-table tr.row", has_text="weather-lyon").click()
    detail = page.locator("#case-detail")
    assert detail.is_visible()
    assert detail.get_attribute("data-case") == "weather-lyon"
    assert page.locator("#cases-table tr.row.open td.id").inner_text() == "weather-lyon"
    text = detail.inner_text()
    assert f"Sorry {PAYLOAD} & <b>bold</b>" in text
    for needle in ("get_forecast", "Trace timing", "temp_c"):
        assert needle in text
    assert detail.locator("b").count() == 0  # the <b> of the agent's text is not markup
    # keyboard: Enter on the row closes it again
    page.locator("#cases-table tr.row", has_text="weather-lyon").press("Enter")
    assert not detail.is_visible()
    assert page.locator("#cases-table tr.row.open").count() == 0
    # the page holds exactly the two scripts it was written with
    assert page.locator("script").count() == 2
    w.clean()


def test_a_link_to_a_filter_opens_it(browser: Any, hostile_page: str) -> None:
    w = Watched(browser)
    w.page.goto(hostile_page + "#q=refuse")
    assert _ids(w.page) == ["refuse-delete"]
    assert w.page.input_value("#q") == "refuse"
    w.clean()


def test_sort_by_latency(browser: Any, hostile_page: str) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(hostile_page)
    header = page.locator('th[data-key="latency_ms"]')
    header.click()
    header.click()
    assert header.get_attribute("aria-sort") == "descending"
    cells = page.locator("#cases-table tbody tr.row td:nth-child(6)").all_inner_texts()
    assert cells == ["900 ms", "900 ms", "900 ms", "300 ms", "–"]
    w.clean()


def test_go_to_the_baseline_comparison(browser: Any, baseline_page: str) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(baseline_page)
    page.locator('nav a[href="#baseline"]').click()
    assert page.evaluate("location.hash") == "#baseline"
    section = page.locator("section#baseline")
    assert section.is_visible()
    text = section.inner_text()
    assert "3 fixed, 2 broken" in text
    assert "broken (2)" in text.lower()  # the heading is upper-cased by the stylesheet
    assert "book-trip" in text
    # the section is scrolled into view, near the top (below the sticky navigation bar)
    # (the browser may scroll smoothly: wait for it to settle, up to 5 s)
    page.wait_for_function(
        "(() => { const t = document.getElementById('baseline').getBoundingClientRect().top;"
        " return t >= 0 && t < innerHeight / 3; })()",
        timeout=5000,
    )
    w.clean()


def test_the_watch_catches_script_errors_dialogs_and_requests(browser: Any, tmp_path: Path) -> None:
    """The checks above can fail: a page that runs injected code is caught."""
    w = Watched(browser)
    bad = (
        "<!doctype html><title>x</title><script>alert('pwned'); console.error('oops');"
        "</script><img src='http://127.0.0.1:9/x.png'><script>undefinedFn()</script>"
    )
    w.page.goto(_write(tmp_path / "bad.html", bad))
    w.page.wait_for_timeout(200)
    assert w.dialogs == ["pwned"]
    assert any("oops" in e for e in w.errors)
    assert any("undefinedFn" in e for e in w.errors)
    assert w.requests == ["http://127.0.0.1:9/x.png"]
    with pytest.raises(AssertionError):
        w.clean()


# --- a big run: 5,000 results, case details in the sidecar ------------------------------------

BIG = 5000
#: rows the page may hold in its DOM at once (the view plus a few around it), whatever the run
MAX_DOM_ROWS = 80


@pytest.fixture(scope="module")
def big_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("big")
    run = make_big_run(root, BIG)
    written = write_html(root / "report.html", summarize(run), iter_results(run))
    assert written.sidecar is not None
    assert written.chunks == 10
    return written.path


def _rows_in_dom(page: Any) -> int:
    return int(page.locator("#cases-table tbody tr.row").count())


def _scroll(page: Any, top: str) -> None:
    page.evaluate(
        f"(() => {{ const s = document.getElementById('cases-scroll'); s.scrollTop = {top}; }})()"
    )


def test_big_table_keeps_few_rows_in_the_dom_and_scrolls_to_the_end(
    browser: Any, big_page: Path
) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(big_page.as_uri())
    assert page.locator("#count").inner_text() == "5,000 results"
    assert 0 < _rows_in_dom(page) <= MAX_DOM_ROWS
    assert _ids(page)[0] == "case-00000"
    # the scroll box is as tall as every row, so its scroll bar is the whole run
    height = page.evaluate("document.getElementById('cases-scroll').scrollHeight")
    assert height > BIG * 25
    _scroll(page, "s.scrollHeight")
    last = case_id(BIG - 1, BIG)
    page.wait_for_function(
        f"Array.from(document.querySelectorAll('#cases-table td.id'))"
        f".some(td => td.textContent === {last!r})",
        timeout=5000,
    )
    assert _ids(page)[-1] == last
    assert "case-00000" not in _ids(page)
    assert 0 < _rows_in_dom(page) <= MAX_DOM_ROWS
    _scroll(page, "s.scrollHeight / 2")
    page.wait_for_function(
        "Array.from(document.querySelectorAll('#cases-table td.id'))"
        ".some(td => td.textContent === 'case-02500')",
        timeout=5000,
    )
    assert _rows_in_dom(page) <= MAX_DOM_ROWS
    w.clean()


def test_big_table_filters_and_sorts_every_row(browser: Any, big_page: Path) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(big_page.as_uri())
    page.fill("#q", "case-04990")
    assert _ids(page) == ["case-04990"]
    assert page.locator("#count").inner_text() == "1 of 5,000 results (filtered)"
    page.fill("#q", "")
    # status counts are computed at generation time and match what the filter finds
    errors = sum(1 for i in range(BIG) if i % 37 == 0)
    label = page.locator('#status option[value="error"]').inner_text()
    assert label == f"error ({errors})"
    page.select_option("#status", "error")
    assert page.locator("#count").inner_text() == f"{errors} of 5,000 results (filtered)"
    page.select_option("#status", "")
    page.select_option("#category", "billing")
    assert page.locator("#count").inner_text() == "833 of 5,000 results (filtered)"
    page.select_option("#category", "")
    # sort by latency, slowest first: the slowest of all 5,000 comes to the top
    lat = {i: 100.0 + (i * 7919) % 900 for i in range(BIG)}
    slowest = max(lat.values())
    header = page.locator('th[data-key="latency_ms"]')
    header.click()
    header.click()
    first = page.locator("#cases-table tbody tr.row td:nth-child(6)").first.inner_text()
    assert first == f"{slowest:.0f} ms"
    assert _rows_in_dom(page) <= MAX_DOM_ROWS
    w.clean()


def test_big_table_opens_a_case_from_the_sidecar(browser: Any, big_page: Path) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(big_page.as_uri())
    page.fill("#q", "marker-04321")  # the filter searches the index, not the transcripts
    assert _ids(page) == []
    page.fill("#q", "case-04321")
    page.locator("#cases-table tr.row").first.click()
    detail = page.locator("#case-detail")
    page.wait_for_function(
        "document.getElementById('case-detail').getAttribute('data-case') === 'case-04321'",
        timeout=5000,
    )
    text = detail.inner_text()
    assert "Where is order 4321? marker-04321" in text
    assert "Order 4321 ships tomorrow." in text
    chunk = 4321 // 500
    assert any(u.endswith(f"/report.d/cases-{chunk:04d}.js") for u in w.files), w.files
    assert page.locator("script").count() == 2  # the chunk's script element is gone again
    # the hostile case: its id and reply are shown as text, nothing runs
    h = hostile_index(BIG)
    page.fill("#q", f"case-{h:05d}")
    assert _ids(page) == [case_id(h, BIG)]
    page.locator("#cases-table tr.row").first.click()
    page.wait_for_function(
        "document.getElementById('case-detail').hasAttribute('data-case')", timeout=5000
    )
    assert detail.get_attribute("data-case") == case_id(h, BIG)
    assert PAYLOAD.replace("alert(1)", "alert(3)") in detail.inner_text()
    w.clean()


def test_big_table_without_its_sidecar_says_so(
    browser: Any, big_page: Path, tmp_path: Path
) -> None:
    alone = tmp_path / "moved.html"
    alone.write_bytes(big_page.read_bytes())  # copied without report.d/
    w = Watched(browser)
    page = w.page
    page.goto(alone.as_uri())
    page.fill("#q", "case-00042")
    page.locator("#cases-table tr.row").first.click()
    page.wait_for_function(
        "document.querySelector('#case-detail .detail p.muted') !== null", timeout=5000
    )
    text = page.locator("#case-detail").inner_text()
    assert "could not load report.d/cases-0000.js" in text
    assert "keep the directory report.d/ next to this page" in text


def test_big_table_ignores_a_chunk_of_another_report(
    browser: Any, big_page: Path, tmp_path: Path
) -> None:
    page_copy = tmp_path / "report.html"
    page_copy.write_bytes(big_page.read_bytes())
    (tmp_path / "report.d").mkdir()
    chunk = (big_page.parent / "report.d" / "cases-0000.js").read_text(encoding="utf-8")
    token = chunk.split('"')[1]
    other = chunk.replace(token, "0" * len(token), 1).replace("Where is order 42?", "FORGED", 1)
    (tmp_path / "report.d" / "cases-0000.js").write_text(other, encoding="utf-8")
    w = Watched(browser)
    page = w.page
    page.goto(page_copy.as_uri())
    page.fill("#q", "case-00042")
    page.locator("#cases-table tr.row").first.click()
    page.wait_for_function(
        "document.querySelector('#case-detail .detail p.muted') !== null", timeout=5000
    )
    text = page.locator("#case-detail").inner_text()
    assert "report.d/cases-0000.js is not part of this report" in text
    assert "FORGED" not in text
    w.clean()


def test_big_table_by_keyboard(browser: Any, big_page: Path) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(big_page.as_uri())
    page.locator("#cases-table tr.row").first.focus()
    for _ in range(40):  # past the bottom of the scroll box: the rows scroll along
        page.keyboard.press("ArrowDown")
    focused = "document.activeElement.querySelector('td.id').textContent"
    assert page.evaluate(focused) == "case-00040"
    assert page.evaluate("document.getElementById('cases-scroll').scrollTop") > 0
    inside = page.evaluate(
        "(() => { const r = document.activeElement.getBoundingClientRect();"
        " const s = document.getElementById('cases-scroll').getBoundingClientRect();"
        " return r.top >= s.top && r.bottom <= s.bottom + 1; })()"
    )
    assert inside
    page.keyboard.press("Enter")
    page.wait_for_function(
        "document.getElementById('case-detail').getAttribute('data-case') === 'case-00040'",
        timeout=5000,
    )
    # the open row was drawn again: the focus stays on it, so Enter closes it
    assert page.evaluate(focused) == "case-00040"
    page.keyboard.press("Enter")
    assert not page.locator("#case-detail").is_visible()
    page.keyboard.press("ArrowUp")
    assert page.evaluate(focused) == "case-00039"
    w.clean()


def test_big_table_wheel_scrolling_shows_the_rows_at_the_scroll_position(
    browser: Any, big_page: Path
) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(big_page.as_uri())
    page.evaluate("document.getElementById('cases-scroll').scrollIntoView({block: 'end'})")
    page.wait_for_timeout(800)  # the page scrolls smoothly
    box = page.locator("#cases-scroll").bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    # the case drawn just under the sticky header, and where the scroll position says it is
    probe = """(() => {
      const s = document.getElementById('cases-scroll');
      const head = document.querySelector('#cases-table thead th').getBoundingClientRect();
      const el = document.elementFromPoint(head.left + 20, head.bottom + 3);
      const row = el && el.closest('tr.row');
      if (!row) { return [el ? el.outerHTML.slice(0, 120) : null, -1, s.scrollTop]; }
      const h = row.getBoundingClientRect().height;
      const id = row.querySelector('td.id').textContent;
      return [id, Math.floor((s.scrollTop + 3) / h), s.scrollTop];
    })()"""
    last_top = 0.0
    for _ in range(6):
        page.mouse.wheel(0, 7000)
        page.wait_for_timeout(150)
        case, expected, top = page.evaluate(probe)
        assert top > last_top  # never pulled back
        last_top = top
        assert case == f"case-{expected:05d}", (case, expected, top)
        assert _rows_in_dom(page) <= MAX_DOM_ROWS
    w.clean()


def test_closing_a_linked_case_shows_the_whole_table_again(browser: Any, big_page: Path) -> None:
    """Issue 22 item 10: the filter a #case= link sets is the link's, not the reader's; closing
    the case (button or Escape) clears it, while a filter the reader typed stays."""
    w = Watched(browser)
    page = w.page
    for how in ("button", "escape"):
        page.goto(big_page.as_uri() + "#case=case-03210&trial=0")
        page.reload()
        page.wait_for_function(
            "document.getElementById('case-detail').getAttribute('data-case') === 'case-03210'",
            timeout=5000,
        )
        assert _ids(page) == ["case-03210"]
        if how == "button":
            page.locator("#case-detail button.close").click()
        else:
            page.keyboard.press("Escape")
        assert not page.locator("#case-detail").is_visible()
        assert page.input_value("#q") == ""
        assert page.locator("#count").inner_text() == "5,000 results"
        assert page.evaluate("location.hash") == "#cases"
    w.clean()


def test_a_link_to_a_case_opens_it(browser: Any, big_page: Path) -> None:
    w = Watched(browser)
    page = w.page
    page.goto(big_page.as_uri() + "#case=case-03210&trial=0")
    page.wait_for_function(
        "document.getElementById('case-detail').getAttribute('data-case') === 'case-03210'",
        timeout=5000,
    )
    assert "Where is order 3210? marker-03210" in page.locator("#case-detail").inner_text()
    assert _ids(page) == ["case-03210"]
    assert page.locator("#cases-table tr.row.open td.id").inner_text() == "case-03210"
    # opening another case moves the address to it; closing leaves the filter there
    page.fill("#q", "case-0321")
    page.locator("#cases-table tr.row", has_text="case-03211").click()
    assert page.evaluate("location.hash") == "#case=case-03211&trial=0"
    page.keyboard.press("Escape")
    assert page.evaluate("location.hash") == "#q=case-0321"
    # a link to a case that is not in the run opens nothing
    page.goto(big_page.as_uri() + "#case=no-such-case")
    page.reload()
    assert not page.locator("#case-detail").is_visible()
    assert page.locator("#count").inner_text() == "5,000 results"
    w.clean()
