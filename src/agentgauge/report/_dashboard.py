"""The dashboard of fine-grained evaluation: agents side by side (docs/reports.md, "Comparing
agents: the dashboard").

Three columns — Quality, Cost, Performance — with one card per agent and the best value of each
row highlighted; a radar of the module-level rates; bars of tokens and latency per agent and per
scenario (category); per-scenario pass-rate progress bars; the pairwise McNemar matrix.

:func:`dashboard_section` renders it for one or more summaries (the single-run HTML report
includes it); :func:`render_dashboard` wraps it in a self-contained page (inline CSS, SVG and a
small script to hide or show an agent; no network). ``_dashboard_matrix`` feeds it a matrix
run's ``comparison.json``, ``_dashboard_runs`` plain run directories. Every string from
results is escaped.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files

from ..metrics import Latency, Mean, Rate, Summary, mean_on_scale, scorer_scale
from ..schema import SCORER_INFO
from ._dashboard_charts import (
    Bar,
    BarGroup,
    RadarAxis,
    RadarSeries,
    colour,
    esc,
    hbars,
    progress,
    radar_svg,
    table,
)
from ._dashboard_marks import (
    Mark,
    Measured,
    RowBeats,
    marks_json,
    quality_gaps,
    row_beats,
    row_mark,
)
from ._dashboard_modules import module_rows
from ._dashboard_sig import (
    PairDelta,
    PairSignificance,
    Significance,
    holm,
    matrix_html,
    significance,
    win_text,
)
from ._fmt import ms, scale_text

__all__ = [
    "DASHBOARD_FILE",
    "RADAR_AXES",
    "DashboardAgent",
    "PairDelta",
    "PairSignificance",
    "dashboard_section",
    "holm",
    "render_dashboard",
]

#: the page ``run --agent A --agent B`` writes next to comparison.json
DASHBOARD_FILE = "dashboard.html"
#: scenarios (categories) drawn, at most (the largest first when there are more)
SCENARIO_ROWS = 30


@dataclass(frozen=True, kw_only=True)
class DashboardAgent:
    """One agent of the dashboard: its name and its run's summary."""

    name: str
    summary: Summary
    #: mean tokens (input + output) per result by category; read from results.jsonl by
    #: :func:`load_agents` or taken from comparison.json (a summary has none); empty: not drawn
    tokens_by_category: dict[str, float] = field(default_factory=dict)
    #: 1 = best of a matrix run (0: not ranked); shown on the agent's cards
    rank: int = 0
    #: what ran, e.g. the agent spec (shown on hover over the legend; empty: nothing)
    detail: str = ""
    #: the agent's system prompt, shown cut under each card's title with the whole text on
    #: hover (a matrix whose members differ in it); None: no such line
    prompt: str | None = None
    #: the cut text of that line (empty: ``prompt`` itself)
    prompt_short: str = ""


_RateOf = Callable[[Summary], Rate]

#: the radar's axes: (module, label, the rate)
RADAR_AXES: tuple[tuple[str, str, _RateOf], ...] = (
    ("perception", "intent recognition", lambda s: s.diagnosis.intent_accuracy),
    ("perception", "clarification", lambda s: s.diagnosis.clarification_rate),
    ("planning", "routing", lambda s: s.diagnosis.routing_accuracy),
    ("planning", "tool-call decision", lambda s: s.diagnosis.call_decision_accuracy),
    ("memory", "retention", lambda s: s.diagnosis.memory_retention),
    ("tool", "selection", lambda s: s.tool_selection.accuracy),
    ("tool", "arguments", lambda s: s.arguments_strict),
)


# --- the cards: one row definition per metric ---------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Cell:
    value: float | None
    text: str
    sub: str = ""
    #: the value's interval, for the rows whose test compares intervals
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True, kw_only=True)
class _Row:
    label: str
    higher_is_better: bool
    cell: Callable[[Summary], _Cell]
    #: the row's test (``ROW_TESTS``; "": no test, never marked)
    key: str = ""


def _rate_cell(r: Rate) -> _Cell:
    if r.value is None or r.low is None or r.high is None:
        return _Cell(value=None, text="n/a", sub="nothing measured")
    return _Cell(
        value=r.value,
        text=f"{r.value * 100:.1f}%",
        sub=f"[{r.low * 100:.1f}–{r.high * 100:.1f}] · {r.passed}/{r.n}",
        low=r.low,
        high=r.high,
    )


def _per_result(m: Mean, digits: int = 2) -> _Cell:
    if m.mean is None or not m.n:
        return _Cell(value=None, text="n/a", sub="nothing measured")
    sub = f"total {m.total:,.0f} · {m.n} results"
    return _Cell(value=m.mean, text=f"{m.mean:.{digits}f}", sub=sub, low=m.low, high=m.high)


def _tokens(s: Summary) -> _Cell:
    c = s.cost
    n = c.input_tokens.n
    if not n:  # no result reported usage: unknown, never 0
        return _Cell(value=None, text="n/a", sub="no usage reported")
    mean = (c.input_tokens.mean or 0.0) + (c.output_tokens.mean or 0.0)
    return _Cell(
        value=mean,
        text=f"{mean:,.0f}",
        sub=f"in {c.input_tokens.mean or 0:,.0f} · out {c.output_tokens.mean or 0:,.0f}",
    )


def _usd(s: Summary) -> _Cell:
    m = s.cost.cost_usd
    if not m.n or m.mean is None:
        return _Cell(value=None, text="n/a", sub="no cost reported")
    return _Cell(value=m.total, text=f"${m.total:.4f}", sub=f"${m.mean:.5f} per result")


def _pct(lat: Latency, which: str) -> _Cell:
    value = lat.p50 if which == "p50" else lat.p95
    if not lat.n or value is None:
        return _Cell(value=None, text="n/a", sub="not measured")
    sub = f"{lat.n} results" + (" · approximate" if lat.approximate else "")
    return _Cell(value=value, text=ms(value), sub=sub)


def _judge_names(agents: Sequence[DashboardAgent]) -> list[str]:
    names: set[str] = set()
    for a in agents:
        for name in a.summary.scorers:
            info = SCORER_INFO.get(name)
            if name.startswith("judge.") or (info is not None and info.judge == "required"):
                names.add(name)
    return sorted(names)


def _judge_row(name: str) -> _Row:
    def cell(s: Summary) -> _Cell:
        st = s.scorers.get(name)
        if st is None or st.mean.mean is None:
            return _Cell(value=None, text="n/a", sub="not judged")
        scale = scorer_scale(name, st.scale)  # the scores' own scale, as the gates read them
        m = mean_on_scale(st.mean, scale)
        unsure = f" · {st.uncertain} uncertain" if st.uncertain else ""
        return _Cell(
            value=m.mean,
            text=f"{m.mean:.2f}",
            sub=f"[{m.low or 0:.2f}–{m.high or 0:.2f}] on {scale_text(scale)} · n={m.n}{unsure}",
            low=m.low,
            high=m.high,
        )

    label = f"judge: {name.removeprefix('judge.')}"
    return _Row(label=label, higher_is_better=True, cell=cell, key="judge")


def _columns(agents: Sequence[DashboardAgent]) -> list[tuple[str, list[_Row]]]:
    def rate_row(label: str, of: _RateOf, key: str) -> _Row:
        return _Row(label=label, higher_is_better=True, cell=lambda s: _rate_cell(of(s)), key=key)

    def low(label: str, cell: Callable[[Summary], _Cell], key: str = "") -> _Row:
        return _Row(label=label, higher_is_better=False, cell=cell, key=key)

    quality = [
        rate_row("pass rate", lambda s: s.overall.pass_rate, "pass_rate"),
        rate_row("tool selection", lambda s: s.tool_selection.accuracy, "tool_selection"),
        rate_row("arguments (strict)", lambda s: s.arguments_strict, "arguments"),
        rate_row("behaviour", lambda s: s.behavior, "behavior"),
        rate_row("task completion", lambda s: s.task_completion, "task_completion"),
        *(rate_row(label, of, key) for key, label, of in module_rows(agents)),
        *(_judge_row(n) for n in _judge_names(agents)),
    ]
    cost = [
        low("model calls / result", lambda s: _per_result(s.cost.model_calls), "model_calls"),
        low("tool calls / result", lambda s: _per_result(s.cost.tool_calls), "tool_calls"),
        low("tokens / result", _tokens, "tokens"),
        low("cost (USD, total)", _usd, "cost_usd"),
    ]
    perf = [
        low("latency p50", lambda s: _pct(s.performance.latency, "p50"), "latency_p50"),
        low("latency p95", lambda s: _pct(s.performance.latency, "p95")),
        low("TTFT p50", lambda s: _pct(s.performance.ttft, "p50")),
        low("TTFT p95", lambda s: _pct(s.performance.ttft, "p95")),
    ]
    return [("Quality", quality), ("Cost", cost), ("Performance", perf)]


@dataclass(frozen=True, kw_only=True)
class _Grid:
    """Every card row of the three columns, their cells and each row's test result."""

    columns: list[tuple[str, list[_Row]]]
    #: per column, per agent, per row
    cells: list[list[list[_Cell]]]
    #: one per row, in column order (the ``data-row`` index)
    beats: list[RowBeats]


def _grid(
    agents: Sequence[DashboardAgent], pairs: Sequence[PairSignificance], sig: Significance
) -> _Grid:
    names = [a.name for a in agents]
    columns = _columns(agents)
    cells: list[list[list[_Cell]]] = []
    beats: list[RowBeats] = []
    for title, rows in columns:
        grid = [[row.cell(a.summary) for row in rows] for a in agents]
        cells.append(grid)
        for r, row in enumerate(rows):
            measured = [Measured(value=g[r].value, low=g[r].low, high=g[r].high) for g in grid]
            beats.append(
                row_beats(
                    row.key,
                    names,
                    measured,
                    higher_is_better=row.higher_is_better,
                    pairs=pairs,
                    sig=sig,
                    cost=title != "Quality",
                )
            )
    return _Grid(columns=columns, cells=cells, beats=beats)


def _mark_html(mark: Mark | None, i: int, names: Sequence[str]) -> tuple[str, str]:
    """The row's class suffix and its mark (★ with the test on hover, or the caveat)."""
    empty = '<span class="agd-mark"></span><span class="agd-caveat"></span>'
    if mark is None or mark.agent != i:
        return "", empty
    if mark.star:
        title = esc(f"best of the shown agents: {mark.why}")
        return " agd-best", (
            f'<span class="agd-mark agd-star" title="{title}">★</span>'
            '<span class="agd-caveat"></span>'
        )
    but = "but " + "; ".join(mark.caveats)
    title = esc(f"{mark.why}; {but}")
    return " agd-caution", (
        f'<span class="agd-mark agd-warn" title="{title}">⚠</span>'
        f'<span class="agd-caveat">{esc(but)}</span>'
    )


def _cards(agents: Sequence[DashboardAgent], grid: _Grid, sig: Significance) -> str:
    names = [a.name for a in agents]
    everyone = frozenset(range(len(agents)))
    quality = _gaps(agents, sig)
    cols: list[str] = []
    r0 = 0
    for (title, rows), cells in zip(grid.columns, grid.cells, strict=True):
        marks = [row_mark(grid.beats[r0 + r], everyone, quality) for r in range(len(rows))]
        cards: list[str] = []
        for i, a in enumerate(agents):
            lines: list[str] = []
            for r, row in enumerate(rows):
                cell = cells[i][r]
                extra, mark = _mark_html(marks[r], i, names)
                cls = "agd-row" + extra + (" agd-na" if cell.value is None else "")
                badges = _badges(names, i, sig) if row.key == "pass_rate" else ""
                lines.append(
                    f'<div class="{cls}" data-row="{r0 + r}" data-of="{i}"><dt>{esc(row.label)}'
                    f'</dt><dd><span class="agd-val">{esc(cell.text)}</span>{mark}'
                    f'<span class="agd-sub">{esc(cell.sub)}</span>{badges}</dd></div>'
                )
            cards.append(
                f'<div class="agd-card {colour(i)}" data-agent="{i}">'
                f"<h4>{_title(a)}</h4>{_prompt_line(a)}<dl>{''.join(lines)}</dl></div>"
            )
        r0 += len(rows)
        cols.append(
            f'<div class="agd-col" data-column="{esc(title.lower())}"><h3>{esc(title)}</h3>'
            f"{''.join(cards)}</div>"
        )
    return f'<div class="agd-columns">{"".join(cols)}</div>{MARKS_NOTE}'


def _badges(names: Sequence[str], i: int, sig: Significance) -> str:
    """``▲ hasty`` on a pass-rate row: whom the agent passes significantly more cases than
    (hidden with that agent)."""
    return "".join(
        f'<span class="agd-sig" data-agent="{lo}" title="{esc(win_text(names, i, lo, p, q))}">'
        f"▲ {esc(names[lo])}</span>"
        for lo, p, q in sig.wins.get(i, [])
    )


def _gaps(agents: Sequence[DashboardAgent], sig: Significance) -> dict[int, dict[int, str]]:
    names = [a.name for a in agents]
    return quality_gaps(names, [a.summary.overall.pass_rate.value for a in agents], sig)


def _marks_data(grid: _Grid, quality: dict[int, dict[int, str]], names: Sequence[str]) -> str:
    """The rows' test results for the page's script, which recomputes the marks over the
    agents shown when one is hidden."""
    data = marks_json(grid.beats, quality, names)
    return f'<script type="application/json" class="agd-marks">{data}</script>\n'


#: what the marks mean, under the cards
MARKS_NOTE = (
    '<p class="agd-note">★ marks a value better than every other shown agent\'s by a test: '
    "the rates by the exact McNemar test on per-case verdicts (Holm-adjusted over the pairs), "
    "judge means and calls per result by 95 % intervals that do not overlap, tokens, cost and "
    "latency p50 by a paired bootstrap 95 % interval of the difference (mean latency) that "
    "excludes 0 (the test is named on hover). Rows without a test (latency p95, time to first "
    "token) are not marked, nor is a difference no test supports. ⚠ replaces the ★ of a cost "
    "or latency figure whose agent's quality is far below a shown agent's (significantly "
    "fewer cases passed, or a pass rate 20 points or more lower), and says so. "
    "Hiding an agent recomputes the marks over the agents shown.</p>"
)


def _radar(agents: Sequence[DashboardAgent]) -> str:
    axes = [RadarAxis(group=g, label=label) for g, label, _ in RADAR_AXES]
    series = []
    for i, a in enumerate(agents):
        values = tuple(of(a.summary).value if of(a.summary).n else None for _, _, of in RADAR_AXES)
        series.append(RadarSeries(agent=i, name=a.name, values=values))
    rows = []
    for k, (group, label, _) in enumerate(RADAR_AXES):
        cells = [f"<th>{esc(group)} · {esc(label)}</th>"]
        for s in series:
            v = s.values[k]
            text = "n/a" if v is None else f"{v * 100:.1f}%"
            cls = "agd-na" if v is None else ""
            cells.append(f'<td class="{cls}" data-agent="{s.agent}">{text}</td>')
        rows.append(cells)
    grid = table(
        ["module rate", *(a.name for a in agents)],
        rows,
        "agd-table agd-radar-values",
        col_agents=[None, *range(len(agents))],
    )
    note = ""
    if not any(v is not None for s in series for v in s.values):
        note = (
            '<p class="agd-note">No module-level rate was measured: the cases carry no labels '
            "(intents, route, memory) and no tool expectations.</p>"
        )
    return f'<div class="agd-radar-wrap">{radar_svg(axes, series)}{grid}</div>{note}'


def _scenarios(agents: Sequence[DashboardAgent]) -> list[str]:
    sizes: dict[str, int] = {}
    for a in agents:
        for cat, sl in a.summary.by_category.items():
            sizes[cat] = sizes.get(cat, 0) + sl.results
    ranked = sorted(sizes, key=lambda c: (-sizes[c], c))[:SCENARIO_ROWS]
    return sorted(ranked)


def _bars(agents: Sequence[DashboardAgent], cats: Sequence[str]) -> str:
    names = [a.name for a in agents]
    tokens = []
    for i, a in enumerate(agents):
        cell = _tokens(a.summary)
        c = a.summary.cost
        parts = (
            () if cell.value is None else (c.input_tokens.mean or 0.0, c.output_tokens.mean or 0.0)
        )
        tokens.append(
            Bar(
                agent=i,
                parts=parts,
                text=cell.text if parts else "n/a",
                title=f"{a.name}: {cell.sub}",
            )
        )
    latency = [_latency_bar(i, a.name, a.summary.performance.latency) for i, a in enumerate(agents)]
    per_agent = (
        '<div class="agd-pair"><div><h4>Tokens per result</h4>'
        + hbars([BarGroup(label="", bars=tokens)], names=names, parts=("input", "output"))
        + "</div><div><h4>Latency per result (p50, tick at p95)</h4>"
        + hbars([BarGroup(label="", bars=latency)], names=names)
        + "</div></div>"
    )
    lat_groups = [
        BarGroup(
            label=cat,
            bars=[
                _latency_bar(i, a.name, a.summary.performance.by_category.get(cat, Latency()))
                for i, a in enumerate(agents)
            ],
        )
        for cat in cats
    ]
    by_cat = (
        '<div class="agd-pair"><div><h4>Latency per scenario (p50, tick at p95)</h4>'
        + hbars(lat_groups, names=names)
        + "</div>"
    )
    # tokens per scenario are not in a summary: drawn when the caller read them (a matrix run)
    if any(a.tokens_by_category for a in agents):
        tok_groups = [
            BarGroup(label=cat, bars=[_token_bar(i, a, cat) for i, a in enumerate(agents)])
            for cat in cats
        ]
        by_cat += "<div><h4>Tokens per result per scenario</h4>" + hbars(tok_groups, names=names)
        by_cat += "</div>"
    return per_agent + by_cat + "</div>"


def _latency_bar(i: int, name: str, lat: Latency) -> Bar:
    if not lat.n or lat.p50 is None:
        return Bar(agent=i, text="n/a", title=f"{name}: not measured")
    text = f"{ms(lat.p50)} · p95 {ms(lat.p95)}"
    return Bar(agent=i, parts=(lat.p50,), whisker=lat.p95, text=text, title=f"{name}: {text}")


def _token_bar(i: int, a: DashboardAgent, cat: str) -> Bar:
    value = a.tokens_by_category.get(cat)
    if value is None:  # no result of the scenario reported usage
        return Bar(agent=i, text="n/a", title=f"{a.name}: no usage reported")
    return Bar(agent=i, parts=(value,), text=f"{value:,.0f}", title=f"{a.name}: {value:,.0f}")


def _progress(agents: Sequence[DashboardAgent], cats: Sequence[str]) -> str:
    out = []
    for cat in cats:
        rows = "".join(
            progress(a.summary.by_category[cat].pass_rate, i, a.name)
            if cat in a.summary.by_category
            else progress(Rate(), i, a.name)
            for i, a in enumerate(agents)
        )
        out.append(f'<div class="agd-bgroup"><div class="agd-blabel">{esc(cat)}</div>{rows}</div>')
    return f'<div class="agd-bars agd-progress">{"".join(out)}</div>'


def _title(a: DashboardAgent) -> str:
    rank = f'<span class="agd-rank" title="rank in the matrix">#{a.rank}</span>' if a.rank else ""
    name = f'<span class="agd-name" title="{esc(a.name)}">{esc(a.name)}</span>'
    return f'<i class="agd-key"></i>{name}{rank}'


def _prompt_line(a: DashboardAgent) -> str:
    if a.prompt is None:
        return ""
    short = a.prompt_short or a.prompt
    return f'<p class="agd-prompt" title="{esc(a.prompt)}">system: {esc(short)}</p>'


def _legend(agents: Sequence[DashboardAgent], interactive: bool) -> str:
    items = []
    for i, a in enumerate(agents):
        box = (
            f'<input type="checkbox" checked data-toggle="{i}" aria-label="show {esc(a.name)}">'
            if interactive
            else ""
        )
        tip = f' title="{esc(a.detail)}"' if a.detail else ""
        items.append(
            f'<label class="agd-legend-item {colour(i)}"{tip}>{box}<i class="agd-key"></i>'
            f"{esc(a.name)}</label>"
        )
    return f'<div class="agd-legend">{"".join(items)}</div>'


@cache
def _asset(name: str) -> str:
    return (files("agentgauge.report") / "templates" / name).read_text(encoding="utf-8")


def dashboard_section(
    agents: Sequence[DashboardAgent],
    pairs: Sequence[PairSignificance] = (),
    *,
    alpha: float = 0.05,
    interactive: bool = False,
    notes: Sequence[str] = (),
) -> str:
    """The dashboard as one ``<section id="dashboard">`` with its own scoped ``<style>``.

    Works for a single agent (no best marks, no matrix). ``interactive`` adds a checkbox per
    agent to the legend; the page must then include the dashboard script (as
    :func:`render_dashboard` does). ``notes`` are shown as warnings above the cards (a
    member of a matrix that failed or did not run).
    """
    warnings = "".join(f'<p class="agd-warning">{esc(n)}</p>\n' for n in notes)
    if not agents:
        if not notes:
            return ""
        return (
            f'<section class="agd" id="dashboard">\n<style>\n{_asset("dashboard.css")}\n</style>\n'
            f"<h2>Dashboard: no agent finished</h2>\n{warnings}</section>\n"
        )
    names = [a.name for a in agents]
    sig, known = significance(names, pairs, alpha)
    grid = _grid(agents, pairs, sig)
    cats = _scenarios(agents)
    hide = "".join(
        f'.agd.agd-hide-{i} [data-agent="{i}"]{{display:none}}' for i in range(len(agents))
    )
    parts = [
        '<section class="agd" id="dashboard">\n',
        f"<style>\n{_asset('dashboard.css')}{hide}\n</style>\n",
        f"<h2>Dashboard: {len(agents)} agent{'s' * (len(agents) != 1)}</h2>\n",
        _legend(agents, interactive),
        warnings,
        _cards(agents, grid, sig),
        _marks_data(grid, _gaps(agents, sig), names) if interactive and len(agents) > 1 else "",
        '<h3 id="dashboard-radar">Module-level rates</h3>\n',
        _radar(agents),
        '<h3 id="dashboard-bars">Tokens and latency</h3>\n',
        _bars(agents, cats),
        '<h3 id="dashboard-scenarios">Pass rate per scenario</h3>\n',
        _progress(agents, cats) if cats else '<p class="agd-note">n/a: no scored results.</p>',
    ]
    if len(agents) > 1:
        parts += [
            '<h3 id="dashboard-significance">Pairwise significance (pass rate)</h3>\n',
            matrix_html(names, known, sig, alpha),
        ]
    parts.append("</section>\n")
    return "".join(parts)


def render_dashboard(
    agents: Sequence[DashboardAgent],
    pairs: Sequence[PairSignificance] = (),
    *,
    title: str = "agentgauge dashboard",
    alpha: float = 0.05,
    notes: Sequence[str] = (),
) -> str:
    """A whole self-contained page: the dashboard with agent toggles."""
    body = dashboard_section(agents, pairs, alpha=alpha, interactive=True, notes=notes)
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
            '<meta name="generator" content="agentgauge">\n',
            f'<title>{esc(title)}</title>\n</head>\n<body class="agd-page">\n<main>\n',
            f"<h1>{esc(title)}</h1>\n",
            body,
            "</main>\n",
            f"<script>\n{_asset('dashboard.js')}</script>\n</body>\n</html>\n",
        ]
    )
