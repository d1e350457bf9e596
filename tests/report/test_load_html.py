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


def test_the_charts_render_in_chromium(browser: Any, report: LoadReport, tmp_path: Path) -> None:
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
