"""The Markdown report: a pull-request comment (deterministic, so it can be snapshot-tested)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from .._messages import printable
from .._secrets import scrub
from ..metrics import Comparison, Failure, GateReport, Summary, fold_small_samples
from ._escape import md_cell
from ._fmt import (
    latency,
    mean,
    ms,
    one_line,
    pct,
    quality_rates,
    rate,
    scored_mean,
    suite_scorers,
    tokens_in_out,
    unit_delta,
    unit_interval,
    unit_value,
)
from ._modules import modules_markdown
from ._redteam import redteam_markdown
from ._state import diff_cells
from ._users import pass_hat_curve, pass_k_label, user_rows

#: an HTML comment at the top lets a CI job find and update its previous comment
MARKER = "<!-- agentgauge-report -->"


def _code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str) -> str:
    """Table-cell text: one line, nothing hidden, pipes escaped, HTML characters as entities."""
    return md_cell(text)


#: characters that start Markdown inline syntax (emphasis, links, code, headings, tables...)
_INLINE = re.compile(r"([\\`*_{}\[\]()#+!|~])")


def _inline(text: str) -> str:
    """Untrusted text (a suite name) as literal inline Markdown: one line, HTML characters as
    entities, Markdown punctuation backslash-escaped, so it can neither open a link, an image,
    emphasis or a code span nor start a new heading or inject HTML."""
    text = printable(" ".join(text.split()))  # ESC, a bidi override: written as escapes
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _INLINE.sub(r"\\\1", text)


def _table(header: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    aligns = align or "l" + "r" * (len(header) - 1)
    sep = ["---:" if a == "r" else "---" for a in aligns]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(sep) + " |"]
    out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return out


def render_markdown(
    summary: Summary,
    *,
    gates: GateReport | None = None,
    comparison: Comparison | None = None,
    failures: int = 10,
) -> str:
    """A pull-request comment: headline with intervals, gates, deltas, worst failures."""
    ov = summary.overall
    lines = [MARKER, *_header_md(summary, gates)]
    conf = f"{summary.confidence:.0%}"
    rows: list[list[str]] = [
        ["pass rate", rate(ov.pass_rate)],
        ["error rate", rate(ov.error_rate)],
    ]
    if summary.users is not None:  # the simulated user's slips: in no rate of the agent's
        rows.append(["user errors (the simulated user's)", rate(ov.user_error_rate)])
    named = quality_rates(summary)
    rows += [[name, rate(r)] for name, r in named if r.n]
    if summary.trials.trials > 1:
        k = str(summary.trials.trials)
        rows.append(
            [
                pass_k_label(summary, k),
                f"{pct(summary.trials.pass_at_k[k])} / {pct(summary.trials.pass_hat_k[k])}",
            ]
        )
        curve = pass_hat_curve(summary)
        if curve is not None:
            rows.append(["pass^k by k (τ²-bench)", curve])
        rows.append(["flaky cases", rate(summary.trials.flaky)])
    lines += _table(["metric", f"value [{conf} CI] (passed/n)"], rows)
    lines.append("")

    lines += _by_category_md(summary)
    lines += _cost_md(summary)
    if summary.users is not None:
        lines += ["**Simulated users** (apart from the agent's figures)", ""]
        lines += [*_table(["", "value"], [list(r) for r in user_rows(summary)]), ""]
    lines += _scorers_md(summary)

    if gates is not None:
        lines += ["**Gates**", ""]
        lines += _table(
            ["", "check", "required", "actual"],
            [["✅" if c.passed else "❌", c.name, c.threshold, c.actual] for c in gates.checks],
            align="llll",
        )
        lines.append("")
        if gates.compared is not None:  # what the regression checks compared (its notes are
            # the comparison's, quoted under "Against the baseline")
            lines += [
                *(
                    f"> {printable(x)}"
                    for x in gates.compared.lines(Path(gates.compared.base_run).name)[:2]
                ),
                "",
            ]
        lines += _warnings_md(gates.warnings)
    elif summary.warnings:
        lines += _warnings_md(summary.warnings)

    if comparison is not None:
        lines += _comparison(comparison)

    lines += _diagnosis(summary)
    lines += redteam_markdown(summary)
    lines += modules_markdown(summary)

    lines += _failures_md(summary, failures)
    return scrub("\n".join(lines).rstrip() + "\n")


def _header_md(summary: Summary, gates: GateReport | None) -> list[str]:
    """The title (with the gate's verdict) and the run's line (agent, commit, counts)."""
    run = summary.run
    ov = summary.overall
    lines: list[str] = []
    title = f"## agentgauge: {_inline(run.suite)}" if run else "## agentgauge run"
    if gates is not None:
        title += " — ✅ gate passed" if gates.passed else " — ❌ gate failed"
    lines.append(title)
    lines.append("")
    if run is not None:
        bits = [f"agent {_code(run.agent)}"]
        if run.git_commit:
            dirty = " (uncommitted changes)" if run.git_dirty else ""
            bits.append(f"commit {_code(run.git_commit[:12])}{dirty}")
        if run.trials > 1:
            bits.append(f"{run.trials} trials")
        counts = f" · {summary.cases} cases, {ov.results} results"
        if summary.replayed:
            counts += f" ({summary.replayed} replayed from the cache)"
        lines.append(" · ".join(bits) + counts)
        lines.append("")
    return lines


def _by_category_md(summary: Summary) -> list[str]:
    lines: list[str] = []
    if len(summary.by_category) > 1:
        budgets = summary.performance.budget_violations_by_category
        cat_rows = []
        for name, sl in summary.by_category.items():
            p50, _, p95, _ = latency(sl.latency)
            row = [name, str(sl.results), rate(sl.pass_rate), str(sl.error_rate.passed), p50, p95]
            if budgets:
                b = budgets.get(name)
                row.append(f"{b.passed}/{b.n}" if b is not None else "–")
            cat_rows.append(row)
        header = ["category", "results", "pass rate", "errors", "p50", "p95"]
        lines += ["**By category**", ""]
        lines += _table(header + (["over budget"] if budgets else []), cat_rows)
        lines.append("")
    return lines


def _failures_md(summary: Summary, failures: int) -> list[str]:
    lines: list[str] = []
    if failures and summary.worst_failures:
        lines += ["<details><summary>Worst failures</summary>", ""]
        f_rows = []
        for f in summary.worst_failures[:failures]:
            name = f.case_id if f.trial == 0 else f"{f.case_id} [{f.trial}]"
            score = "error" if f.status == "error" else f"{f.score:.2f}"
            f_rows.append([_code(name), f.category, score, one_line(f.explanation) or f.status])
        lines += _table(["case", "category", "score", "why"], f_rows, align="llrl")
        lines += _state_md(summary.worst_failures[:failures])
        lines += ["", "</details>", ""]
    return lines


def _warnings_md(warnings: list[str]) -> list[str]:
    """Each warning as a quote, the small-sample ones folded into one note."""
    rest, note = fold_small_samples(warnings)
    out = [f"> ⚠️ {w}" for w in rest] + ([f"> ℹ️ note: {note}"] if note else [])
    return [*out, ""] if out else []


def _cost_md(summary: Summary) -> list[str]:
    perf, cost = summary.performance, summary.cost
    ov = summary.overall
    p50, p90, p95, pmax = latency(perf.latency)
    cp_rows = [
        ["latency p50 / p90 / p95 / max", f"{p50} / {p90} / {p95} / {pmax}"],
        ["model calls per result", mean(cost.model_calls)],
        ["tokens in / out (total)", tokens_in_out(cost, ov.results)[1]],
    ]
    if perf.ttft.n:
        cp_rows.append(
            ["time to first token p50 / p95", f"{ms(perf.ttft.p50)} / {ms(perf.ttft.p95)}"]
        )
    if perf.budget_violations.n:
        cp_rows.append(["over latency budget", rate(perf.budget_violations)])
    if cost.cost_usd.n:
        cp_rows.append(["cost (total)", f"${cost.cost_usd.total:.4f}"])
    return ["**Cost and latency**", "", *_table(["metric", "value"], cp_rows), ""]


def _scorers_md(summary: Summary) -> list[str]:
    """Every suite scorer's mean on its own scale (the one its gate reads) and pass rate."""
    names = suite_scorers(summary)
    if not names:
        return []
    rows = [
        [
            name,
            scored_mean(name, st.mean, st.scale),
            rate(st.pass_rate, interval=False),
            str(st.uncertain or ""),
        ]
        for name in names
        for st in (summary.scorers[name],)
    ]
    header = ["scorer", f"mean [{summary.confidence:.0%} CI]", "pass rate", "uncertain"]
    return ["**Scorers**", "", *_table(header, rows), ""]


def _diagnosis(summary: Summary) -> list[str]:
    """A collapsed section: tool confusions, per-intent precision / recall, memory decay."""
    body: list[str] = []
    wrong = [c for c in summary.tool_selection.confusion if c.expected != c.actual]
    if wrong:
        wrong.sort(key=lambda c: (-c.count, c.expected, c.actual))
        body += ["Tool confusions (expected → called):", ""]
        body += _table(
            ["expected", "called", "count"],
            [[c.expected, c.actual, str(c.count)] for c in wrong[:10]],
            align="llr",
        )
        body.append("")
    d = summary.diagnosis
    if d.intents:
        body += [f"Intents (from {d.intent_source}):", ""]
        body += _table(
            ["intent", "precision", "recall", "tp", "fp", "fn"],
            [
                [i.intent, pct(i.precision), pct(i.recall), str(i.tp), str(i.fp), str(i.fn)]
                for i in d.intents
            ],
        )
        body.append("")
    if d.retention_by_distance:
        body += ["Memory retention by turn distance:", ""]
        body += _table(
            ["distance", "retention"],
            [[k, rate(v)] for k, v in d.retention_by_distance.items()],
        )
        body.append("")
    if not body:
        return []
    return ["<details><summary>Diagnosis</summary>", "", *body, "</details>", ""]


def _comparison(cmp: Comparison) -> list[str]:
    c = cmp.counts
    lines = [
        "**Against the baseline**",
        "",
        f"{cmp.paired} paired cases: {c.get('fixed', 0)} fixed, {c.get('broken', 0)} broken, "
        f"{c.get('unchanged_pass', 0)} still passing, {c.get('unchanged_fail', 0)} still failing"
        + (f", {c['new']} new" if c.get("new") else "")
        + (f", {c['removed']} removed" if c.get("removed") else "")
        + f". Exact McNemar p = {cmp.mcnemar_p:.3g}.",
        "",
    ]
    lines += [f"> Note: {w}" for w in cmp.warnings] + ([""] if cmp.warnings else [])
    rows = []
    for d in cmp.deltas:
        if d.delta is None or d.base is None or d.new is None:
            continue
        rows.append(
            [
                d.metric,
                unit_value(d.base, d.unit),
                unit_value(d.new, d.unit),
                unit_delta(d.delta, d.unit),
                unit_interval(d.low, d.high, d.unit),
            ]
        )
    if rows:
        lines += _table(
            ["metric", "baseline", "this run", "Δ", f"{cmp.confidence:.0%} CI (paired)"], rows
        )
        lines.append("")
    for label, items in (("Fixed", cmp.fixed), ("Broken", cmp.broken)):
        if items:
            lines.append(
                f"{label}: "
                + ", ".join(_code(i.case_id) for i in items[:20])
                + (f" (+{len(items) - 20} more)" if len(items) > 20 else "")
            )
            lines.append("")
    return lines


def _state_md(failures: Sequence[Failure]) -> list[str]:
    """The world-state differences of the failures shown: expected vs actual per path."""
    rows = [
        [_code(f.case_id if f.trial == 0 else f"{f.case_id} [{f.trial}]"), _code(path),
         _code(expected), _code(actual), source]
        for f in failures
        for path, expected, actual, source in map(diff_cells, f.state_diff)
    ]  # fmt: skip
    if not rows:
        return []
    return ["", "**Final state differences**", "",
            *_table(["case", "path", "expected", "actual", "check"], rows)]  # fmt: skip
