"""The HTML page of a load run: time series as inline SVG (latency percentiles, throughput,
errors by kind, offered load, tokens), the step ramp and thresholds; nothing fetched, every
suite-supplied text escaped — checked as markup and in a real Chromium."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentgauge.load import LoadReport, run_load_file
from agentgauge.report import load_lines, render_load_html, write_load_html
from agentgauge.runner import RunConfig
from agentgauge.schema import LoadProfile
from agentgauge.testing import FakeOpenAIServer

EVIL = '<img src=x onerror="alert(1)"></title><script>alert(2)</script>'


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> LoadReport:
    """A short step ramp against a server that refuses past 2 at once (so it has errors)."""
    tmp = tmp_path_factory.mktemp("load-html")
    suite = tmp / "suite.yaml"
    name = EVIL.replace('"', '\\"')
    suite.write_text(
        f'name: "{name}"\ntools: []\ncases:\n  - id: hi\n    input: Hello\n'
        "    expect: {behavior: answer}\n",
        encoding="utf-8",
    )
    profile = LoadProfile.model_validate(
        {
            "step": {"start": 1, "max": 3, "every": "600ms", "budget": ["error_rate<0.001"]},
            "interval": "300ms",
            "think_time": 0.01,
            "thresholds": ["p95<600000", "error_rate<1%"],
        }
    )
    with FakeOpenAIServer(
        ["Hi!"], latency_ms=80, max_concurrent=2, over_capacity="reject", record=False
    ) as srv:
        config = RunConfig(
            agent="openai:fake-model",
            retries=0,
            agent_options={"base_url": srv.base_url, "api_key": "k"},
        )
        return run_load_file(suite, config, tmp / "run", profile=profile).report


def test_the_page_has_every_chart_and_escapes_the_suite(report: LoadReport) -> None:
    page = render_load_html(report)
    assert page.count("<svg") == 6
    for caption in (
        "Session latency",
        "Throughput",
        "Errors by kind",
        "Offered load",
        "Tokens",
        "Quality",
    ):
        assert f"<figcaption>{caption}" in page
    assert "<polyline" in page
    assert 'data-name="429"' in page  # the error series, by kind
    assert "<script" not in page
    assert EVIL not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in page
    assert "http://" not in page.replace("http-equiv", "")  # nothing to fetch
    assert "Step ramp" in page
    assert "broke: error_rate&lt;0.001" in page


def test_the_console_summary_reads_like_k6(report: LoadReport) -> None:
    lines = load_lines(report)
    assert lines[0].startswith("load: ")
    assert any(line.startswith("  latency ....") for line in lines)
    assert any(line.startswith("saturation: at 3 users") for line in lines)
    assert any(line.startswith("✗ error_rate<1%") for line in lines)


def test_an_interrupted_run_says_so_in_the_summary_and_the_page(report: LoadReport) -> None:
    assert report.saturation is not None
    cut = report.model_copy(
        update={
            "stopped_by": "interrupted",
            "interrupted_by": "SIGTERM",
            "totals": report.totals.model_copy(update={"cancelled": 3}),
            "saturation": report.saturation.model_copy(update={"found": False}),
        }
    )
    lines = load_lines(cut)
    assert "ended by interrupted (SIGTERM) after" in lines[0]
    assert lines[1].endswith("  cancelled 3")
    assert any(
        line.startswith("saturation: not reached before the interrupt; every step held")
        for line in lines
    )
    page = render_load_html(cut)
    assert "ended by interrupted (SIGTERM)" in page
    assert "3 sessions cancelled by the interrupt" in page
    assert "no saturation before the interrupt" in page
    # a run that was not interrupted says none of it
    plain = load_lines(report)
    assert "interrupt" not in " ".join(plain)
    assert "cancelled" not in " ".join(plain)
    assert "interrupt" not in render_load_html(report)


def test_a_long_run_is_thinned_to_a_bounded_page(report: LoadReport) -> None:
    many = report.model_copy(update={"intervals": report.intervals * 2000})
    page = render_load_html(many)
    assert page.count("<circle") <= 6 * 4 * 600  # at most 600 points a series


class _Watched:
    def __init__(self, browser: Any) -> None:
        self.page = browser.new_page()
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        def route(r: Any) -> None:
            if r.request.url.startswith("file://"):
                r.continue_()
            else:
                self.requests.append(r.request.url)
                r.abort()

        self.page.on("dialog", dialog)
        self.page.route("**/*", route)


def test_the_charts_render_in_chromium(report: LoadReport, browser: Any, tmp_path: Path) -> None:
    # report first: its load run needs the loop Playwright's sync API would hold
    path = write_load_html(report, tmp_path / "load.html")
    w = _Watched(browser)
    w.page.goto(path.as_uri())
    assert w.errors == []
    assert w.dialogs == [], "suite text ran as code"
    assert w.requests == [], "the page reached out to the network"
    charts = w.page.locator("figure.chart")
    assert charts.count() == 6
    for i in range(6):
        box = charts.nth(i).locator("svg").bounding_box()
        assert box is not None
        assert box["width"] > 200
        assert box["height"] > 50
    lines = w.page.locator("figure.latency g.series polyline")
    assert lines.count() >= 3  # p50, p95, p99
    assert w.page.locator("figure.errors g.series[data-name='429'] circle").count() > 0
    assert EVIL in w.page.locator("h1").inner_text()  # shown as text, not markup
    assert w.page.locator("table.steps tr.broke").count() == 1
    w.page.close()


def _drawn(page: Any, chart: str, series: str) -> list[tuple[float, float, float]]:
    """(x seconds, value, y pixel) of every point Chromium drew for one series of one chart."""
    found = page.evaluate(
        """([chart, series]) => Array.from(document.querySelectorAll(
            `figure.${chart} g.series[data-name="${series}"] circle`)).map(c => [
            c.querySelector('title').textContent, c.getBoundingClientRect().top])""",
        [chart, series],
    )
    out = []
    for title, top in found:
        x, _, v = title.partition(" s: ")
        out.append((float(x), float(v), float(top)))
    return out


def test_chromium_draws_each_series_from_the_report(
    report: LoadReport, browser: Any, tmp_path: Path
) -> None:
    """Latency percentiles, throughput, errors and quality: one point per interval that has
    the value, at its value, higher on the page for a higher value."""
    # this run's baseline passed every case, so its quality ratio equals its pass rate: a
    # report whose ratio differs tells the two series apart
    ws = [
        x.model_copy(update={"quality_ratio": x.quality_ratio * 0.8})
        if x.quality_ratio is not None
        else x
        for x in report.intervals
    ]
    report = report.model_copy(update={"intervals": ws})
    w = _Watched(browser)
    w.page.goto(write_load_html(report, tmp_path / "load.html").as_uri())
    ws = report.intervals
    measured = [x for x in ws if x.latency_ms is not None]
    lat = {q: _drawn(w.page, "latency", q) for q in ("p50", "p95", "p99")}
    for q, points in lat.items():
        assert [p[0] for p in points] == pytest.approx([x.end_s for x in measured], rel=1e-4), q
        want = [getattr(x.latency_ms, q) for x in measured]
        assert [p[1] for p in points] == pytest.approx(want, rel=1e-3), q
    for lo, hi in zip(lat["p50"], lat["p99"], strict=True):
        assert hi[2] <= lo[2] + 0.5  # p99 drawn at or above p50
    finished = _drawn(w.page, "throughput", "finished/s")
    assert [p[1] for p in finished] == pytest.approx([x.sessions_per_s for x in ws], rel=1e-3)
    started = _drawn(w.page, "throughput", "started/s")
    drawn = sum(p[1] for p in started) * report.interval_s
    assert drawn == pytest.approx(report.totals.started, rel=1e-3)
    rejected = _drawn(w.page, "errors", "429")
    assert sum(p[1] for p in rejected) == report.totals.errors_by_kind["429"] > 0
    ratio = _drawn(w.page, "quality", "quality ratio")
    want_ratio = [x.quality_ratio for x in ws if x.quality_ratio is not None]
    assert want_ratio
    assert [p[1] for p in ratio] == pytest.approx(want_ratio, rel=1e-3)
    passed = _drawn(w.page, "quality", "pass rate")
    assert len(passed) == sum(x.pass_rate is not None for x in ws)
    w.page.close()
