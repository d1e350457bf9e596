"""The HTML report's baseline section: this run against a baseline run (McNemar on the per-case
verdicts, each metric's delta coloured only when significant, the broken and fixed cases)."""

from __future__ import annotations

from ..metrics import Comparison, MetricDelta
from ._fmt import unit_delta, unit_interval, unit_value
from ._html_charts import _section, _table, esc

__all__ = ["baseline_section"]


def baseline_section(cmp: Comparison) -> str:
    """The ``baseline`` section of the page."""
    c = cmp.counts
    parts = [
        f"{cmp.paired} paired cases",
        f"{c.get('fixed', 0)} fixed",
        f"{c.get('broken', 0)} broken",
        f"{c.get('unchanged_pass', 0)} still passing",
        f"{c.get('unchanged_fail', 0)} still failing",
    ]
    if c.get("new"):
        parts.append(f"{c['new']} new")
    if c.get("removed"):
        parts.append(f"{c['removed']} removed")
    significant = cmp.mcnemar_p < 1 - cmp.confidence
    verdict = "significant" if significant else "not significant"
    body = (
        f"<p>Against baseline <code>{esc(cmp.base_run)}</code>: {esc(', '.join(parts))}. "
        f"Exact McNemar test on per-case verdicts: <strong>p = {cmp.mcnemar_p:.3g}</strong> "
        f"({verdict} at α = {1 - cmp.confidence:.2g}).</p>\n"
    )
    body += "".join(f'<p class="warning">⚠ {esc(w)}</p>' for w in cmp.warnings)
    rows = []
    for d in cmp.deltas:
        if d.delta is None or d.base is None or d.new is None:
            continue
        tone, test = _delta_tone(d, 1 - cmp.confidence)
        p = "" if d.p_value is None else f"{d.p_value:.3g}"
        rows.append(
            [
                esc(d.metric),
                esc(unit_value(d.base, d.unit)),
                esc(unit_value(d.new, d.unit)),
                f'<span class="{tone}" title="{esc(test)}">{esc(unit_delta(d.delta, d.unit))}'
                "</span>",
                esc(unit_interval(d.low, d.high, d.unit)),
                esc(p),
            ]
        )
    if rows:
        header = ["metric", "baseline", "this run", "Δ", f"{cmp.confidence:.0%} CI", "McNemar p"]
        body += _table(header, rows, "num")
        body += (
            f'<p class="note">A Δ is coloured only when it is significant at α = '
            f"{1 - cmp.confidence:.2g}: a rate by the exact McNemar test on that metric's "
            "per-case verdicts (its p beside it), a per-result mean (latency, tokens, cost) by "
            "its paired bootstrap interval excluding 0. An uncoloured Δ may be noise.</p>\n"
        )
    for label, tone, items in (("Broken", "ko", cmp.broken), ("Fixed", "ok", cmp.fixed)):
        if not items:
            continue
        total = max(c.get(label.lower(), 0), len(items))
        change_rows = [
            [
                f"<code>{esc(i.case_id)}</code>",
                esc(i.category),
                esc(i.base or "–"),
                esc(i.new or "–"),
                esc(i.explanation),
            ]
            for i in items
        ]
        listed = f", the first {len(items)} listed" if total > len(items) else ""
        body += f'<h3 class="{tone}">{esc(label)} ({total}{listed})</h3>\n'
        body += _table(["case", "category", "baseline", "this run", "why"], change_rows)
    return _section("baseline", "Against the baseline", body)


def _delta_tone(d: MetricDelta, alpha: float) -> tuple[str, str]:
    """The colour of a baseline delta (``ok`` / ``ko``; "" when not significant) and the test
    that decided it (shown on hover)."""
    assert d.delta is not None
    if d.unit == "rate":
        significant = d.p_value is not None and d.p_value < alpha
        test = f"exact McNemar p = {d.p_value:.3g}" if d.p_value is not None else "no test"
    else:
        lo, hi = d.low, d.high
        significant = lo is not None and hi is not None and (lo > 0 or hi < 0)
        test = "paired bootstrap interval " + ("excludes 0" if significant else "includes 0")
    verdict = "significant" if significant else "not significant"
    if not significant or d.delta == 0:
        return "", f"{test}: {verdict} at α = {alpha:.2g}"
    worse = d.delta < 0 if d.unit == "rate" and d.metric != "error_rate" else d.delta > 0
    return ("ko" if worse else "ok"), f"{test}: {verdict} at α = {alpha:.2g}"
