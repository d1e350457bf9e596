"""The HTML page of a load run (``RUN_DIR/load.html``): time-series plots of latency
percentiles, throughput, errors by kind, offered load and tokens per minute, the step ramp and
its saturation point, the thresholds and the totals.

One self-contained file: inline SVG and CSS, no script, no web font, nothing fetched; every text
that came from a suite or a run (suite name, agent, profile, thresholds) is escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import orjson

from ..load import LoadReport, StepStats, WindowStats
from ._escape import html_text

__all__ = ["LOAD_HTML_FILE", "render_load_html", "write_load_html"]

LOAD_HTML_FILE = "load.html"
#: points drawn per series at the most (longer runs are thinned evenly)
MAX_POINTS = 600
_W, _H, _PAD_L, _PAD_R, _PAD_T, _PAD_B = 760, 230, 64, 16, 28, 36
_COLOURS = ("#2563eb", "#f59e0b", "#dc2626", "#16a34a", "#7c3aed", "#0891b2")

Series = tuple[str, list[float | None]]


def _esc(value: object) -> str:
    return html_text(value)  # markup as entities, hidden characters (ESC, bidi) visible


def _nice(top: float) -> float:
    """A round axis maximum at or above ``top``."""
    if top <= 0 or not math.isfinite(top):
        return 1.0
    power = 10 ** math.floor(math.log10(top))
    return float(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= top))


def _thin(xs: list[float], series: list[Series]) -> tuple[list[float], list[Series]]:
    step = max(1, math.ceil(len(xs) / MAX_POINTS))
    if step == 1:
        return xs, series
    return xs[::step], [(name, values[::step]) for name, values in series]


def _paths(xs: list[float], values: list[float | None], sx: float, sy: float, x0: float) -> str:
    """Polylines of one series (a gap where a value is missing) and a dot per point."""
    runs: list[list[str]] = [[]]
    dots: list[str] = []
    for x, v in zip(xs, values, strict=True):
        if v is None or not math.isfinite(v):
            runs.append([])
            continue
        px, py = _PAD_L + (x - x0) * sx, _PAD_T + (_H - _PAD_T - _PAD_B) - v * sy
        runs[-1].append(f"{px:.1f},{py:.1f}")
        dots.append(
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2"><title>{x:g} s: {v:.4g}</title></circle>'
        )
    lines = "".join(f'<polyline points="{" ".join(r)}"/>' for r in runs if len(r) > 1)
    return lines + "".join(dots)


def _chart(
    title: str,
    unit: str,
    xs: list[float],
    series: list[Series],
    cls: str,
    empty: str = "nothing measured",
) -> str:
    """A line chart: time (s) across, ``unit`` up; one coloured line per series. With no value
    at all, the figure says ``empty`` instead of drawing axes a reader would take for zeros."""
    xs, series = _thin(xs, series)
    values = [v for _, vs in series for v in vs if v is not None and math.isfinite(v)]
    if not values:
        return (
            f'<figure class="chart {cls}"><figcaption>{_esc(title)} <small>({_esc(unit)})'
            f'</small></figcaption><p class="empty">n/a ({_esc(empty)})</p></figure>'
        )
    top = _nice(max(values, default=0.0))
    x0, x1 = (xs[0], xs[-1]) if xs else (0.0, 1.0)
    sx = (_W - _PAD_L - _PAD_R) / max(x1 - x0, 1e-9)
    plot_h = _H - _PAD_T - _PAD_B
    sy = plot_h / top
    grid = ""
    for i in range(5):
        v = top * i / 4
        y = _PAD_T + plot_h - v * sy
        grid += (
            f'<line class="grid" x1="{_PAD_L}" x2="{_W - _PAD_R}" y1="{y:.1f}" y2="{y:.1f}"/>'
            f'<text class="tick" x="{_PAD_L - 6}" y="{y + 4:.1f}" text-anchor="end">'
            f"{v:.4g}</text>"
        )
    for i in range(5):
        x = x0 + (x1 - x0) * i / 4
        px = _PAD_L + (x - x0) * sx
        grid += (
            f'<text class="tick" x="{px:.1f}" y="{_H - _PAD_B + 16}" text-anchor="middle">'
            f"{x:.3g} s</text>"
        )
    body, legend = "", ""
    for i, (name, vs) in enumerate(series):
        colour = _COLOURS[i % len(_COLOURS)]
        body += f'<g class="series" data-name="{_esc(name)}" stroke="{colour}" fill="{colour}">'
        body += _paths(xs, vs, sx, sy, x0) + "</g>"
        legend += f'<span class="key"><i style="background:{colour}"></i>{_esc(name)}</span>'
    return (
        f'<figure class="chart {cls}"><figcaption>{_esc(title)} <small>({_esc(unit)})</small>'
        f'</figcaption><svg viewBox="0 0 {_W} {_H}" role="img" aria-label="{_esc(title)}">'
        f'{grid}{body}</svg><div class="legend">{legend}</div></figure>'
    )


def _p(w: WindowStats, which: str, ttft: bool = False) -> float | None:
    p = w.ttft_ms if ttft else w.latency_ms
    return getattr(p, which) if p is not None else None


def _charts(report: LoadReport) -> str:
    ws = report.intervals
    xs = [w.end_s for w in ws]
    latency: list[Series] = [(f"{q}", [_p(w, q) for w in ws]) for q in ("p50", "p95", "p99")]
    if any(w.ttft_ms is not None for w in ws):
        latency.append(("TTFT p95", [_p(w, "p95", ttft=True) for w in ws]))
    width = report.interval_s or 1.0
    throughput: list[Series] = [
        ("finished/s", [w.sessions_per_s for w in ws]),
        ("started/s", [w.started / width for w in ws]),
    ]
    kinds = sorted({k for w in ws for k in w.errors_by_kind})
    errors: list[Series] = [(k, [float(w.errors_by_kind.get(k, 0)) for w in ws]) for k in kinds]
    if not errors:
        errors = [("errors", [0.0 for _ in ws])]
    unit = "users" if report.mode == "closed" else "arrivals/s"
    offered: list[Series] = [(f"target ({unit})", [w.target for w in ws])]
    if any(w.dropped for w in ws):
        offered.append(("dropped arrivals", [float(w.dropped) for w in ws]))
    tokens: list[Series] = [("tokens/min", [w.tokens_per_min for w in ws])]
    quality: list[Series] = [
        ("pass rate", [w.pass_rate for w in ws]),
        ("quality ratio", [w.quality_ratio for w in ws]),
    ]
    return "".join(
        [
            _chart("Session latency", "ms", xs, latency, "latency"),
            _chart("Throughput", "sessions per second", xs, throughput, "throughput"),
            _chart("Errors by kind", "sessions per interval", xs, errors, "errors"),
            _chart("Offered load", unit, xs, offered, "offered"),
            _chart("Tokens", "per minute", xs, tokens, "tokens", "no usage reported"),
            _chart(
                "Quality", "pass rate, and against the unloaded baseline", xs, quality, "quality"
            ),
        ]
    )


def _fmt(value: float | None, unit: str = "", digits: str = ".4g") -> str:
    return "–" if value is None else f"{value:{digits}}{unit}"


def _steps(steps: Sequence[StepStats], unit: str) -> str:
    if not steps:
        return ""
    rows = "".join(
        f'<tr class="{"held" if s.held else "broke"}"><td>{s.index + 1}</td>'
        f"<td>{s.target:g} {_esc(unit)}</td><td>{s.window.sessions}</td>"
        f"<td>{_fmt(s.window.sessions_per_s, '', '.3g')}</td>"
        f"<td>{_fmt(_p(s.window, 'p95'), ' ms', '.0f')}</td>"
        f"<td>{_fmt(s.window.error_rate, '', '.1%')}</td>"
        f"<td>{'held' if s.held else 'broke: ' + _esc(', '.join(s.broken_by))}</td></tr>"
        for s in steps
    )
    return (
        '<h2>Step ramp</h2><table class="steps"><thead><tr><th>step</th><th>target</th>'
        "<th>sessions</th><th>sessions/s</th><th>p95</th><th>error rate</th><th>budget</th>"
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def _verdict(report: LoadReport) -> str:
    """PASS / FAIL of the thresholds; a run without any checked nothing, so it says so."""
    if not report.thresholds:
        return "no thresholds checked"
    return "PASS" if report.passed else "FAIL"


def _headline(report: LoadReport) -> str:
    t = report.totals
    sat = report.saturation
    parts = [
        f"<b>{_verdict(report)}</b>",
        f"{t.sessions} sessions in {report.duration_s:.1f} s ({t.sessions_per_s:.3g}/s)",
        f"p95 {_fmt(_p(t, 'p95'), ' ms', '.0f')}",
        f"errors {_fmt(t.error_rate, '', '.1%')}",
        f"quality ratio {_fmt(t.quality_ratio, '', '.3f')}",
        f"ended by {_esc(report.stopped_by)}"
        + (f" ({_esc(report.interrupted_by)})" if report.interrupted_by is not None else ""),
    ]
    if t.cancelled:
        parts.append(f"{t.cancelled} sessions cancelled by the interrupt")
    if sat is not None:
        if sat.found:
            held = f"{sat.sustained:g}" if sat.sustained is not None else "none"
            parts.append(f"saturation at {sat.saturated_at:g} {_esc(sat.unit)} (sustained {held})")
        else:
            when = " before the interrupt" if report.interrupted_by is not None else ""
            parts.append(
                f"no saturation{when} up to {_fmt(sat.sustained, '', 'g')} {_esc(sat.unit)}"
            )
    return '<p class="headline">' + " · ".join(parts) + "</p>"


def _thresholds(report: LoadReport) -> str:
    if not report.thresholds:
        return ""
    rows = "".join(
        f'<tr class="{"held" if v.passed else "broke"}"><td><code>{_esc(v.threshold)}</code></td>'
        f"<td>{_fmt(v.measured)}</td><td>{'pass' if v.passed else 'FAIL'}</td>"
        f"<td>{_esc(v.explanation)}</td></tr>"
        for v in report.thresholds
    )
    return (
        '<h2>Thresholds</h2><table class="thresholds"><thead><tr><th>threshold</th>'
        f"<th>measured</th><th>verdict</th><th></th></tr></thead><tbody>{rows}</tbody></table>"
    )


_CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#111;max-width:1600px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}.meta{color:#555}
.headline{font-size:15px}.charts{display:flex;flex-wrap:wrap;gap:16px}
figure{margin:0;border:1px solid #ddd;border-radius:6px;padding:8px;width:720px;max-width:100%}
figcaption{font-weight:600}svg{width:100%;height:auto}polyline{fill:none;stroke-width:1.6}
.grid{stroke:#eee}.tick{font-size:10px;fill:#666;stroke:none}.legend{font-size:12px}
.key{margin-right:12px}.key i{display:inline-block;width:10px;height:10px;margin-right:4px}
table{border-collapse:collapse}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
tr.broke td{background:#fee2e2}tr.held td{background:#f0fdf4}pre{background:#f6f6f6;padding:8px}
"""


def render_load_html(report: LoadReport) -> str:
    """The page of ``report`` (a whole HTML document)."""
    profile = orjson.dumps(report.profile, option=orjson.OPT_INDENT_2).decode()
    unit = "users" if report.mode == "closed" else "arrivals/s"
    est = report.estimate
    total = report.totals.cost_usd
    cost = "cost unknown (no price)" if total is None else f"cost ${total:.4f}"
    if est is not None and est.usd is not None:
        cost += f" (estimated ${est.usd:.4f})"
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "style-src 'unsafe-inline'\">"
        f"<title>load: {_esc(report.suite)}</title><style>{_CSS}</style></head><body>"
        f"<h1>Load test: {_esc(report.suite)}</h1>"
        f'<p class="meta">agent <code>{_esc(report.agent)}</code> · {_esc(report.mode)} loop · '
        f"started {_esc(report.started_at)} · interval {report.interval_s:g} s · {cost}</p>"
        f"{_headline(report)}"
        f'<div class="charts">{_charts(report)}</div>'
        f"{_steps(report.steps, unit)}{_thresholds(report)}"
        f"<h2>Profile</h2><pre>{_esc(profile)}</pre></body></html>\n"
    )


def write_load_html(report: LoadReport, path: Path) -> Path:
    """Write the page of ``report`` to ``path`` (secrets scrubbed, a regular file)."""
    from .._secrets import scrub
    from .._suite_code import open_regular

    with open_regular(path, "wb") as fh:
        fh.write(scrub(render_load_html(report)).encode())
    return path
