"""Issue 22 item 10: the HTML baseline section colours a change only when a test finds it
significant, and says which test (a +10-point change at McNemar p = 0.625 was green)."""

from __future__ import annotations

from lxml import html as lxml_html

from agentgauge.metrics import Comparison, MetricDelta, Summary
from agentgauge.report import render_html


def _delta_spans(cmp: Comparison) -> dict[str, tuple[str, str]]:
    doc = lxml_html.fromstring(render_html(Summary(), [], comparison=cmp))
    out = {}
    for tr in doc.xpath('//section[@id="baseline"]//table//tbody/tr'):
        span = tr.xpath("td[4]/span")[0]
        out[tr.xpath("td[1]")[0].text_content()] = (span.get("class"), span.get("title"))
    return out


def test_only_significant_changes_are_coloured_with_the_test_named() -> None:
    cmp = Comparison(
        base_run="base",
        new_run="new",
        paired=20,
        mcnemar_p=0.625,
        deltas=[
            # +10 points, McNemar p = 0.625: not significant, not green
            MetricDelta(metric="pass_rate", base=0.05, new=0.15, delta=0.1, p_value=0.625, n=20),
            # -40 points at p = 0.002: significant, red
            MetricDelta(
                metric="tool_selection_accuracy", base=0.9, new=0.5, delta=-0.4, p_value=0.002
            ),
            # slower, the paired interval excludes 0: red; cheaper, it includes 0: uncoloured
            MetricDelta(
                metric="latency_ms", unit="ms", base=100, new=150, delta=50, low=30, high=70
            ),
            MetricDelta(
                metric="tokens", unit="tokens", base=300, new=280, delta=-20, low=-45, high=5
            ),
        ],
    )
    spans = _delta_spans(cmp)
    assert spans["pass_rate"][0] == ""
    assert "exact McNemar p = 0.625: not significant at α = 0.05" in spans["pass_rate"][1]
    assert spans["tool_selection_accuracy"] == (
        "ko",
        "exact McNemar p = 0.002: significant at α = 0.05",
    )
    assert spans["latency_ms"][0] == "ko"
    assert "paired bootstrap interval excludes 0" in spans["latency_ms"][1]
    assert spans["tokens"][0] == ""
    page = render_html(Summary(), [], comparison=cmp)
    assert "A Δ is coloured only when it is significant" in page
