"""The HTML report: one page (inline CSS and script, no network) per run, and for big runs a
sidecar directory of case details next to it.

Everything rendered on the server side goes through :func:`esc`; the case table's data travels
as an escaped JSON blob (a columnar index of every result) that the page's script turns into DOM
nodes with ``textContent`` only, drawing only the rows in view. A case's details (messages, tool
calls, scores, trace) are embedded for small runs and loaded on demand from ``NAME.d/`` for runs
of more than :data:`INLINE_LIMIT` results (see ``_html_index``). The results are read once,
streaming: memory stays bounded whatever their number. The output is deterministic: the only
times in it are those of ``run.json``.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import IO

from .._secrets import ScrubbingStream, register_env
from ..metrics import (
    Comparison,
    GateReport,
    Latency,
    Rate,
    Slice,
    Summary,
    fold_small_samples,
)
from ..schema import CaseResult
from ._dashboard import DashboardAgent, dashboard_section
from ._fmt import NO_USAGE, mean, ms, pct
from ._html_baseline import baseline_section
from ._html_cases import cases_section
from ._html_charts import _section, _table, _tone, confusion_matrix, esc, rate_bar, svg_histogram
from ._html_data import Bin, LatencyBins
from ._html_index import CaseIndex, DetailsNote, InlineDetails, SidecarDetails, remove_chunks
from ._html_scorers import scorers_section
from ._modules import modules_html
from ._redteam import redteam_html
from ._review_html import ReviewItems
from ._users import seeded_users_note, users_html

__all__ = [
    "INLINE_LIMIT",
    "TRANSCRIPT_CAP",
    "HtmlReport",
    "rate_bar",
    "render_html",
    "sidecar_dir",
    "stream_html",
    "write_html",
]

#: results that carry a transcript in a page without a sidecar (failed and errored ones first)
TRANSCRIPT_CAP = 2000
#: a page for at most this many results is one file; bigger runs get a sidecar directory
INLINE_LIMIT = 2000
#: rows of one slice table, at most (the largest slices when there are more)
SLICE_ROWS = 40


@cache
def _asset(name: str) -> str:
    return (files("agentgauge.report") / "templates" / name).read_text(encoding="utf-8")


@dataclass(frozen=True, slots=True, kw_only=True)
class HtmlReport:
    """What :func:`write_html` wrote."""

    path: Path
    #: the directory of case details next to the page (``report.d``), or None for one file
    sidecar: Path | None
    results: int
    #: chunk files in the sidecar
    chunks: int
    page_bytes: int
    sidecar_bytes: int


def sidecar_dir(path: Path) -> Path:
    """Where the case details of the page ``path`` go: ``report.html`` -> ``report.d``."""
    return path.with_name(f"{path.stem}.d")


def render_html(
    summary: Summary,
    results: Iterable[CaseResult],
    *,
    gates: GateReport | None = None,
    comparison: Comparison | None = None,
    transcripts: int = TRANSCRIPT_CAP,
) -> str:
    """The whole page as one string, every detail embedded (at most ``transcripts`` results
    carry theirs). ``results`` is read once (streamed: pass ``iter_results(run_dir)``). For big
    runs prefer :func:`write_html`, which keeps memory bounded and every case's details."""
    buf = io.StringIO()
    details = InlineDetails(cap=transcripts, failing=_failing(summary))
    _emit(buf, summary, results, gates=gates, comparison=comparison, details=details)
    return buf.getvalue()


def write_html(
    path: Path,
    summary: Summary,
    results: Iterable[CaseResult],
    *,
    gates: GateReport | None = None,
    comparison: Comparison | None = None,
    inline_limit: int | None = None,
) -> HtmlReport:
    """Write the page to ``path``: one file for a run of at most ``inline_limit`` results
    (default :data:`INLINE_LIMIT`), else
    the page plus every case's details in ``sidecar_dir(path)`` (loaded when a case is opened;
    keep the two together). Streams ``results``; memory does not grow with their number."""
    path = Path(path)
    register_env()
    with open(path, "w", encoding="utf-8", newline="") as fh:
        note = stream_html(
            ScrubbingStream(fh),  # type: ignore[arg-type]
            path,
            summary,
            results,
            gates=gates,
            comparison=comparison,
            inline_limit=inline_limit,
        )
    return HtmlReport(
        path=path,
        sidecar=path.parent / note.directory if note.directory else None,
        results=note.carried + note.omitted,
        chunks=note.chunks,
        page_bytes=path.stat().st_size,
        sidecar_bytes=note.bytes,
    )


def stream_html(
    out: IO[str],
    path: Path,
    summary: Summary,
    results: Iterable[CaseResult],
    *,
    gates: GateReport | None = None,
    comparison: Comparison | None = None,
    inline_limit: int | None = None,
) -> DetailsNote:
    """Write the page for ``path`` to ``out`` (already open on it); the sidecar, if the run needs
    one, goes to ``sidecar_dir(path)``. An earlier report's chunk files there are removed."""
    directory = sidecar_dir(path)
    run = summary.run
    if inline_limit is None:
        inline_limit = INLINE_LIMIT
    if summary.overall.results > inline_limit:
        seed = f"{run.run_id}|{run.started_at}" if run else ""
        sidecar = SidecarDetails(directory, token_seed=f"{seed}|{summary.overall.results}")
        return _emit(out, summary, results, gates=gates, comparison=comparison, details=sidecar)
    remove_chunks(directory)
    inline = InlineDetails(cap=inline_limit, failing=_failing(summary))
    return _emit(out, summary, results, gates=gates, comparison=comparison, details=inline)


def _failing(summary: Summary) -> int:
    ov = summary.overall
    return ov.pass_rate.n - ov.pass_rate.passed + ov.error_rate.passed


def _emit(
    out: IO[str],
    summary: Summary,
    results: Iterable[CaseResult],
    *,
    gates: GateReport | None,
    comparison: Comparison | None,
    details: InlineDetails | SidecarDetails,
) -> DetailsNote:
    """One pass over ``results`` (index, details, latencies), then the page."""
    inline = isinstance(details, InlineDetails)
    index = CaseIndex(slots=inline)
    latencies = LatencyBins()
    review = ReviewItems()
    try:
        for r in results:
            index.add(r, details.add(r))
            latencies.add(r.latency_ms, r.status)
            review.add(r)
        if isinstance(details, SidecarDetails):
            details.finish()
        note = details.note()
        run = summary.run
        title = f"agentgauge: {run.suite} — {run.run_id}" if run else "agentgauge run"
        sections = [
            _header(summary, gates),
            _headline(summary),
            dashboard_section(
                [DashboardAgent(name=run.agent if run else "agent", summary=summary)]
            ),
            _gates(gates, summary),
            scorers_section(summary),
            baseline_section(comparison) if comparison is not None else "",
            _slices(summary),
            _confusion(summary),
            _behavior(summary),
            redteam_html(summary),
            modules_html(summary),
            _cost(summary),
            users_html(summary),
            _latency(summary, latencies.bins()),
            cases_section(index, note),
            review.section(),
        ]
        out.write(
            '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            '<meta name="generator" content="agentgauge">\n'
            f"<title>{esc(title)}</title>\n<style>\n{_asset('report.css')}</style>\n"
            "</head>\n<body>\n"
        )
        out.write(
            _nav(
                comparison is not None,
                redteam=summary.redteam is not None,
                modules=summary.modules is not None,
                review=bool(review.items),
            )
        )
        out.write('<main id="top">\n')
        for s in sections:
            out.write(s)
        out.write('</main>\n<script type="application/json" id="ag-data">{"v":1,')
        index.write(out)
        out.write(",")
        details.write(out)
        if review.items:
            out.write(f',"review":{review.data(summary)}')
        out.write("}</script>\n")
        script = _asset("report.js") + (_asset("review.js") if review.items else "")
        out.write(f"<script>\n{script}</script>\n</body>\n</html>\n")
        return note
    finally:
        index.close()
        details.close()


# --- pieces -----------------------------------------------------------------------------------


def _nav(
    baseline: bool, *, redteam: bool = False, modules: bool = False, review: bool = False
) -> str:
    links = [("headline", "Overview"), ("gates", "Gates")]
    if baseline:
        links.append(("baseline", "Baseline"))
    links += [
        ("slices", "Slices"),
        ("tools", "Tools"),
        ("behavior", "Behaviour"),
        *([("redteam", "Red team")] if redteam else []),
        *([("modules", "Modules")] if modules else []),
        ("cost", "Cost"),
        ("latency", "Latency"),
        ("cases", "Cases"),
        *([("review", "Review")] if review else []),
    ]
    items = "".join(f'<a href="#{a}">{esc(t)}</a>' for a, t in links)
    return f'<nav class="top-nav"><span class="brand">agentgauge</span>{items}</nav>\n'


def _header(summary: Summary, gates: GateReport | None) -> str:
    run = summary.run
    if gates is None:
        verdict = ""
    elif not gates.checks:
        verdict = '<span class="verdict none">no gates configured</span>'
    elif gates.passed:
        verdict = '<span class="verdict pass">✔ gate passed</span>'
    else:
        n = len(gates.failed)
        verdict = f'<span class="verdict fail">✘ gate failed ({n} check{"s" * (n != 1)})</span>'
    meta: list[tuple[str, str]] = []
    if run is not None:
        meta += [("agent", run.agent), ("run", run.run_id), ("started", run.started_at)]
        if run.finished_at:
            meta.append(("finished", run.finished_at))
            took = _duration(run.started_at, run.finished_at)
            if took:
                meta.append(("took", took))
        if run.git_commit:
            dirty = " (uncommitted changes)" if run.git_dirty else ""
            meta.append(("commit", run.git_commit[:12] + dirty))
        if run.judge:
            meta.append(("judge", run.judge))
        if run.trials > 1:
            meta.append(("trials", str(run.trials)))
        if run.scoring_mode != "default":
            meta.append(("scoring", run.scoring_mode))
        meta.append(("agentgauge", run.agentgauge_version))
    dl = "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>" for k, v in meta)
    suite = run.suite if run else "run"
    return (
        '<header class="run-header">\n'
        f'<div class="title-row"><h1>{esc(suite)}</h1>{verdict}</div>\n'
        f'<dl class="meta">{dl}</dl>\n</header>\n'
    )


def _duration(start: str, end: str) -> str:
    """``1 h 02 min``, ``3 min 05 s`` or ``42 s`` between two ISO times ('' if unreadable)."""
    try:
        seconds = round(
            (datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds()
        )
    except (ValueError, TypeError):
        return ""
    if seconds < 0:
        return ""
    h, rest = divmod(seconds, 3600)
    m, sec = divmod(rest, 60)
    if h:
        return f"{h} h {m:02d} min"
    return f"{m} min {sec:02d} s" if m else f"{sec} s"


def _card(label: str, value: str, sub: str = "", tone: str = "") -> str:
    return (
        f'<div class="card {tone}"><div class="label">{esc(label)}</div>'
        f'<div class="value">{value}</div><div class="sub">{sub}</div></div>'
    )


def _rate_card(label: str, r: Rate, *, lower_is_better: bool = False) -> str:
    if r.value is None or r.low is None or r.high is None:
        return _card(label, "–", "nothing measured", "na")
    conf_text = f"[{r.low * 100:.1f}–{r.high * 100:.1f}] · {r.passed}/{r.n}"
    tone = _tone(r.value, lower_is_better=lower_is_better)
    return _card(label, esc(pct(r.value)), esc(conf_text), tone)


def _headline(s: Summary) -> str:
    ov = s.overall
    cards = [
        _rate_card("pass rate", ov.pass_rate),
        _rate_card("error rate", ov.error_rate, lower_is_better=True),
        _card("cases", esc(s.cases), esc(f"{ov.results} results")),
        _card("mean score", esc("–" if ov.mean_score is None else f"{ov.mean_score:.3f}")),
    ]
    for label, r in (
        ("tool selection", s.tool_selection.accuracy),
        ("arguments (strict)", s.arguments_strict),
        ("behaviour", s.behavior),
        ("task completion", s.task_completion),
        ("goal completion", ov.goal_completion),
    ):
        if r.n:
            cards.append(_rate_card(label, r))
    if s.cost.cost_usd.n:
        cards.append(_card("cost", esc(f"${s.cost.cost_usd.total:.4f}"), "total"))
    if s.users is not None:
        cards.append(_rate_card("user errors", ov.user_error_rate, lower_is_better=True))
    note = (
        f"Intervals are {s.confidence:.0%} Wilson intervals. Errors (the case could not be judged)"
        " are left out of the pass rate and counted in the error rate."
    )
    rest, small = fold_small_samples(s.warnings)
    warn = "".join(f'<p class="warning">⚠ {esc(w)}</p>' for w in rest)
    warn += f'<p class="note">{esc(small)}</p>' if small else ""
    body = f'<div class="cards">{"".join(cards)}</div>\n{warn}'
    return _section("headline", "Overview", body, esc(note))


def _gates(gates: GateReport | None, s: Summary) -> str:
    if gates is None:
        return ""
    if not gates.checks:
        body = '<p class="muted">No gate thresholds are configured for this suite.</p>'
    else:
        rows = [
            [
                '<span class="ok">✔</span>' if c.passed else '<span class="ko">✘</span>',
                esc(c.name),
                esc(c.threshold),
                esc(c.actual),
                esc(c.message),
            ]
            for c in gates.checks
        ]
        body = _table(["", "check", "required", "actual", "verdict"], rows, "gates")
    if gates.compared is not None:  # what the regression checks compared, and by which rule
        body += "".join(
            f'<p class="compared">{esc(x)}</p>'
            for x in gates.compared.lines(Path(gates.compared.base_run).name)[:2]
        )
    shown = set(s.warnings)  # the overview already lists the summary's warnings
    rest, _ = fold_small_samples(w for w in gates.warnings if w not in shown)
    body += "".join(f'<p class="warning">⚠ {esc(w)}</p>' for w in rest)
    return _section("gates", "Gates", body)


def _lat_cells(lat: Latency) -> list[str]:
    approx = "≈" if lat.approximate else ""
    return [esc(approx + ms(lat.p50)), esc(approx + ms(lat.p95))]


def _slice_rows(slices: dict[str, Slice]) -> list[list[str]]:
    return [
        [
            esc(name),
            esc(sl.results),
            rate_bar(sl.pass_rate),
            esc(sl.error_rate.passed) if sl.error_rate.passed else '<span class="muted">0</span>',
            esc("–" if sl.mean_score is None else f"{sl.mean_score:.2f}"),
            *_lat_cells(sl.latency),
        ]
        for name, sl in slices.items()
    ]


def _slices(s: Summary) -> str:
    header = ["results", "pass rate [CI] (passed/n)", "errors", "mean score", "p50", "p95"]
    body = ""
    for label, slices in (
        ("category", s.by_category),
        ("difficulty", s.by_difficulty),
        ("tag", s.by_tag),
        ("tool", s.by_tool),
    ):
        if not slices:
            continue
        body += f"<h3>By {esc(label)}</h3>\n"
        if len(slices) > SLICE_ROWS:
            largest = sorted(slices.items(), key=lambda kv: (-kv[1].results, kv[0]))
            slices = dict(largest[:SLICE_ROWS])
            body += (
                f'<p class="note">Showing the {SLICE_ROWS} largest of {len(largest)} {label} '
                "slices; all of them are in summary.json.</p>\n"
            )
        body += _table([label, *header], _slice_rows(slices), "slices")
    return _section("slices", "Slices", body or '<p class="muted">No slices.</p>')


def _confusion(s: Summary) -> str:
    sel = s.tool_selection
    if not sel.confusion:
        body = '<p class="muted">No result had an expectation about which tool to call.</p>'
        return _section("tools", "Tool selection", body)
    matrix = confusion_matrix(sel.confusion)
    body = f"<p>Tool selection accuracy: {rate_bar(sel.accuracy)}</p>\n{matrix}"
    if s.forbidden_tool_calls:
        ids = ", ".join(f"<code>{esc(c)}</code>" for c in s.forbidden_tool_cases)
        body += (
            f'<p class="warning">⚠ {s.forbidden_tool_calls} result(s) called a forbidden tool: '
            f"{ids}</p>\n"
        )
    return _section("tools", "Tool selection", body)


def _behavior(s: Summary) -> str:
    d = s.diagnosis
    named: list[tuple[str, Rate]] = [
        ("behaviour (no-tool / clarify / refuse)", s.behavior),
        ("arguments (strict)", s.arguments_strict),
        ("task completion (multi-step)", s.task_completion),
        ("goal completion (final state)", s.overall.goal_completion),
        ("tool-call decision", d.call_decision_accuracy),
        (f"intent recognition (from {d.intent_source})", d.intent_accuracy),
        ("clarification rate", d.clarification_rate),
        ("routing", d.routing_accuracy),
        ("skill", d.skill_accuracy),
        ("memory retention", d.memory_retention),
        ("multi-intent coverage (complete)", d.multi_intent.complete),
    ]
    rows = [[esc(name), rate_bar(r)] for name, r in named if r.n]
    if s.trials.trials > 1 and s.trials.flaky.n:
        rows.append([esc("flaky cases"), rate_bar(s.trials.flaky, lower_is_better=True)])
    if s.arguments_partial.n:
        rows.append([esc("arguments (partial credit, mean)"), esc(mean(s.arguments_partial))])
    body = _table(["metric", "value [CI] (passed/n)"], rows, "metrics") if rows else ""
    if s.behavior_by_expected:
        by = [[esc(k), rate_bar(v)] for k, v in s.behavior_by_expected.items()]
        body += "<h3>By expected behaviour</h3>\n"
        body += _table(["expected", "matched [CI] (passed/n)"], by, "metrics")
    if s.trials.trials > 1:
        k_rows = [
            [esc(k), esc(pct(v)), esc(pct(s.trials.pass_hat_k.get(k)))]
            for k, v in s.trials.pass_at_k.items()
        ]
        head = "Repeated trials" + seeded_users_note(s)
        body += f"<h3>{esc(head)}</h3>\n" + _table(["k", "pass@k", "pass^k"], k_rows, "num")
        flaky = s.trials.flaky_cases
        if flaky:
            more = f" (+{len(flaky) - 50} more)" if len(flaky) > 50 else ""
            ids = ", ".join(f"<code>{esc(c)}</code>" for c in flaky[:50])
            body += f"<p>Flaky (trials disagree): {ids}{esc(more)}</p>\n"
    if d.intents:
        i_rows = [
            [esc(v) for v in (i.intent, pct(i.precision), pct(i.recall), i.tp, i.fp, i.fn)]
            for i in d.intents
        ]
        body += "<h3>Intents</h3>\n"
        body += _table(["intent", "precision", "recall", "tp", "fp", "fn"], i_rows, "num")
    return _section("behavior", "Behaviour and diagnosis", body or "<p>–</p>")


def _cost(s: Summary) -> str:
    c = s.cost
    rows = [
        ["model calls", esc(mean(c.model_calls)), esc(f"{c.model_calls.total:.0f}")],
        ["tool calls", esc(mean(c.tool_calls)), esc(f"{c.tool_calls.total:.0f}")],
    ]
    for label, m in (("input tokens", c.input_tokens), ("output tokens", c.output_tokens)):
        if not m.n:  # no result reported usage: unknown, never 0
            rows.append([label, esc(NO_USAGE), "n/a"])
            continue
        of = f" over {m.n} of {s.overall.results} results" if m.n < s.overall.results else ""
        rows.append([label, esc(mean(m, digits=0)), esc(f"{m.total:.0f}{of}")])
    if c.cost_usd.n:
        rows.append(
            [
                "cost (USD)",
                esc(mean(c.cost_usd, money=True)),
                esc(f"${c.cost_usd.total:.4f} over {c.cost_usd.n} results"),
            ]
        )
    body = _table(["", "per result [CI]", "total"], rows, "num")
    return _section("cost", "Cost and tokens", body)


def _latency(s: Summary, bins: list[Bin]) -> str:
    perf = s.performance
    lat = perf.latency
    rows = [
        ["latency", *[esc(ms(v)) for v in (lat.p50, lat.p90, lat.p95, lat.max, lat.mean)]],
    ]
    if perf.ttft.n:
        t = perf.ttft
        rows.append(
            ["time to first token", *[esc(ms(v)) for v in (t.p50, t.p90, t.p95, t.max, t.mean)]]
        )
    body = _table(["", "p50", "p90", "p95", "max", "mean"], rows, "num")
    if perf.budget_violations.n:
        over = rate_bar(perf.budget_violations, lower_is_better=True)
        body += f"<p>Over their latency budget: {over}</p>\n"
    if bins:
        legend = (
            '<p class="legend"><span class="sw passed"></span>passed '
            '<span class="sw failed"></span>failed <span class="sw error"></span>error</p>'
        )
        if bins[-1].overflow:
            b = bins[-1]
            legend += (
                f'<p class="legend">The last bar holds the {b.total} results slower than '
                f"{esc(ms(b.low))} (up to {esc(ms(b.high))}), so the tail does not squeeze the "
                "rest into one bar.</p>"
            )
        body += f'<figure class="chart">{svg_histogram(bins, lat)}{legend}</figure>\n'
    note = "Nearest-rank percentiles over results that recorded a latency."
    if lat.approximate:
        note += " This run is large: percentiles come from a 1 % histogram (≈)."
    return _section("latency", "Latency", body, esc(note))
