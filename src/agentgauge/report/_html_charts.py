"""The HTML report's pictures: the tool confusion heat map and the latency histogram (SVG).

Both are plain markup with every label escaped; both stay small on big runs (the heat map shows
the most frequent tools only).
"""

from __future__ import annotations

from collections import Counter

from ..metrics import ConfusionCell, Latency, Rate
from ._escape import html_text
from ._fmt import ms, rate
from ._html_data import Bin

#: expected tools (rows) shown in the heat map; the columns get a few more, then "other"
MATRIX_TOOLS = 15
#: off-diagonal cells listed under the heat map
TOP_CONFUSIONS = 10


def esc(value: object) -> str:
    return html_text(value)  # markup as entities, hidden characters (ESC, bidi) visible


def _cell(e: str, a: str, n: int, top: int) -> str:
    if not n:
        return '<td class="hm empty"></td>'
    kind = "diag" if a == e else "off"
    alpha = 0.15 + 0.85 * n / top
    return (
        f'<td class="hm {kind}" style="--a:{alpha:.2f}" '
        f'title="{esc(f"expected {e}, called {a}: {n}")}">{n}</td>'
    )


def confusion_matrix(cells: list[ConfusionCell], limit: int = MATRIX_TOOLS) -> str:
    """Expected tools down, called tools across; the diagonal is green, confusions red.

    Columns follow the rows' order (so the diagonal is a diagonal), then the other called tools.
    With more than ``limit`` expected tools only the most frequent are shown; called tools past
    ``limit + 5`` columns are summed into an ``other`` column.
    """
    counts = {(c.expected, c.actual): c.count for c in cells}
    by_expected: Counter[str] = Counter()
    for c in cells:
        by_expected[c.expected] += c.count
    expected = sorted(by_expected)
    capped = len(expected) > limit
    if capped:
        expected = [e for e, _ in sorted(by_expected.items(), key=lambda kv: (-kv[1], kv[0]))]
        expected = expected[:limit]
    shown_rows = set(expected)
    by_actual: Counter[str] = Counter()
    for (e, a), n in counts.items():
        if e in shown_rows:
            by_actual[a] += n
    actual = [e for e in expected if e in by_actual]
    rest = sorted((a for a in by_actual if a not in actual), key=lambda a: (-by_actual[a], a))
    room = limit + 5 - len(actual)
    actual += sorted(rest[:room]) if not capped else rest[:room]
    other = set(rest[room:])
    top = max(counts.values())
    head = "".join(f'<th scope="col" class="rot"><span>{esc(a)}</span></th>' for a in actual)
    if other:
        head += f'<th scope="col" class="rot"><span>other ({len(other)} tools)</span></th>'
    rows = ""
    for e in expected:
        line = "".join(_cell(e, a, counts.get((e, a), 0), top) for a in actual)
        if other:
            n = sum(counts.get((e, a), 0) for a in other)
            line += _cell(e, "other tools", n, top)
        rows += f'<tr><th scope="row">{esc(e)}</th>{line}</tr>\n'
    note = ""
    if capped:
        note = (
            f'<p class="note">Showing the {len(expected)} most frequent expected tools of '
            f"{len(by_expected)}; every cell is in summary.json (tool_selection.confusion).</p>\n"
        )
    table = (
        f'{note}<div class="scroll"><table class="heatmap"><thead><tr>'
        f'<th class="corner">expected ↓ · called →</th>{head}</tr></thead>\n'
        f"<tbody>\n{rows}</tbody></table></div>\n"
    )
    return table + _top_confusions(cells, by_expected)


def _top_confusions(cells: list[ConfusionCell], by_expected: Counter[str]) -> str:
    wrong = sorted(
        (c for c in cells if c.expected != c.actual),
        key=lambda c: (-c.count, c.expected, c.actual),
    )
    if not wrong:
        return ""
    rows = "".join(
        f"<tr><td><code>{esc(c.expected)}</code></td><td><code>{esc(c.actual)}</code></td>"
        f"<td>{c.count}</td><td>{c.count / by_expected[c.expected] * 100:.1f}%</td></tr>\n"
        for c in wrong[:TOP_CONFUSIONS]
    )
    return (
        '<h3>Most frequent confusions</h3>\n<table class="num"><thead><tr><th>expected</th>'
        "<th>called</th><th>results</th><th>share of expected</th></tr></thead>\n"
        f"<tbody>\n{rows}</tbody></table>\n"
    )


def _tick(value: float) -> str:
    return "0" if value == 0 else ms(value)


def svg_histogram(bins: list[Bin], lat: Latency) -> str:
    """Bars stacked by status, the p50 and p95 as dashed lines; hover a bar for its counts."""
    width, height, left, bottom, top_pad = 720, 220, 40, 28, 16
    plot_w, plot_h = width - left - 10, height - bottom - top_pad
    peak = max(b.total for b in bins)
    step = bins[0].high - bins[0].low
    last = bins[-1]
    regular = len(bins) - 1 if last.overflow else len(bins)
    bar_w = plot_w / len(bins)

    def xpos(v: float) -> float:
        if last.overflow and v >= last.low:
            into = (v - last.low) / (last.high - last.low) if last.high > last.low else 1.0
            return left + bar_w * (regular + min(into, 1.0))
        return left + bar_w * min(v / step, len(bins))

    base = top_pad + plot_h
    out = [
        f'<svg class="hist" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="latency histogram" xmlns="http://www.w3.org/2000/svg">',
        f'<line class="axis" x1="{left}" y1="{base}" x2="{left + plot_w}" y2="{base}"/>',
        f'<text class="tick" x="{left - 6}" y="{top_pad + 4}" text-anchor="end">{peak}</text>',
        f'<text class="tick" x="{left - 6}" y="{base}" text-anchor="end">0</text>',
    ]
    for i, b in enumerate(bins):
        x = left + i * bar_w
        y = float(base)
        span = f"≥ {ms(b.low)}" if b.overflow else f"{_tick(b.low)}–{ms(b.high)}"
        for cls, n in (("passed", b.passed), ("failed", b.failed), ("error", b.error)):
            if not n:
                continue
            h = plot_h * n / peak
            y -= h
            out.append(
                f'<rect class="{cls}" x="{x + 1:.1f}" y="{y:.1f}" width="{max(bar_w - 2, 1):.1f}" '
                f'height="{h:.1f}"><title>{esc(f"{span}: {n} {cls}")}</title></rect>'
            )
    every = max(1, regular // 6)
    for i in range(0, regular + 1, every):
        out.append(
            f'<text class="tick" x="{left + i * bar_w:.1f}" y="{base + 16}" '
            f'text-anchor="middle">{esc(_tick(i * step))}</text>'
        )
    if last.overflow:
        out.append(
            f'<text class="tick" x="{left + (regular + 0.5) * bar_w:.1f}" y="{base + 16}" '
            'text-anchor="middle">slower</text>'
        )
    for name, mark in (("p50", lat.p50), ("p95", lat.p95)):
        if mark is None:
            continue
        x = xpos(mark)
        out.append(f'<line class="marker" x1="{x:.1f}" y1="{top_pad}" x2="{x:.1f}" y2="{base}"/>')
        out.append(f'<text class="marker-label" x="{x + 3:.1f}" y="{top_pad + 10}">{name}</text>')
    out.append("</svg>")
    return "".join(out)


def _tone(value: float | None, *, lower_is_better: bool = False) -> str:
    """Colour of a rate: rates to maximise are good from 90 %, rates to minimise (errors, budget
    violations) up to 1 %."""
    if value is None:
        return "na"
    if lower_is_better:
        return "good" if value <= 0.01 else "warn" if value <= 0.05 else "bad"
    return "good" if value >= 0.9 else "warn" if value >= 0.7 else "bad"


def rate_bar(r: Rate, *, lower_is_better: bool = False) -> str:
    """A bar to the value with the confidence interval drawn over it, then the numbers."""
    if r.value is None or r.low is None or r.high is None:
        return '<span class="na">–</span>'
    tone = _tone(r.value, lower_is_better=lower_is_better)
    lo, hi = r.low * 100, r.high * 100
    return (
        f'<span class="rate"><span class="bar" role="img" aria-label="{esc(rate(r))}">'
        f'<span class="fill {tone}" style="width:{r.value * 100:.1f}%"></span>'
        f'<span class="ci" style="left:{lo:.1f}%;width:{hi - lo:.1f}%"></span></span>'
        f'<span class="num">{esc(rate(r))}</span></span>'
    )


def _table(header: list[str], rows: list[list[str]], cls: str = "") -> str:
    """``rows`` hold already-escaped cell HTML; header cells are escaped here."""
    head = "".join(f"<th>{esc(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>\n" for row in rows)
    attr = f' class="{cls}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead>\n<tbody>\n{body}</tbody></table>\n"


def _section(anchor: str, title: str, body: str, note: str = "") -> str:
    extra = f'<p class="note">{note}</p>' if note else ""
    return f'<section id="{anchor}">\n<h2>{esc(title)}</h2>\n{extra}{body}</section>\n'
