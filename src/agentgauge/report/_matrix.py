"""Reports of a matrix run (many agents, one suite): console, Markdown, JUnit and the files.

Every text format is built from the same tables (:func:`matrix_tables`), so the console and
the pull-request comment never disagree. ``write_matrix_reports(OUT, comparison)`` writes
``comparison.json``, ``comparison.md``, ``junit.xml`` (one ``<testsuite>`` per agent) and the
HTML dashboard into the matrix folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .._secrets import scrub
from ..metrics import (
    MODULE_MEANS,
    MODULE_METRICS,
    MatrixAgentStats,
    MatrixComparison,
    MatrixPair,
    Mean,
    Quantile,
)
from ..schema import agent_label
from ._escape import md_cell
from ._fmt import mean, ms, pct, prompt_text, rate, scored_mean, unit_delta, unit_interval

__all__ = [
    "MATRIX_MARKER",
    "MatrixTable",
    "matrix_lines",
    "matrix_tables",
    "render_matrix_markdown",
    "write_matrix_junit",
]

#: the first line of the Markdown comparison (a CI job finds and updates its comment by it)
MATRIX_MARKER = "<!-- agentgauge-matrix -->"
MARKDOWN_FILE = "comparison.md"
JUNIT_FILE = "junit.xml"


@dataclass(frozen=True, kw_only=True)
class MatrixTable:
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def _q(q: Quantile) -> str:
    if q.value is None:
        return "–"
    return f"{ms(q.value)} [{ms(q.low)}–{ms(q.high)}]"


def _gates(a: MatrixAgentStats) -> str:
    if a.status != "done":
        return a.status
    if a.gates_passed is None:
        return "not checked"
    return "pass" if a.gates_passed else "FAIL: " + ", ".join(a.gate_failures)


def _ranked(c: MatrixComparison) -> list[MatrixAgentStats]:
    by = {a.label: a for a in c.agents}
    ranked = [by[label] for label in c.ranking if label in by]
    return ranked if len(ranked) == len(c.agents) else list(c.agents)


def _done(c: MatrixComparison) -> list[MatrixAgentStats]:
    """The finished agents, best first (every table lists them in this order)."""
    return [a for a in _ranked(c) if a.status == "done"]


def _quality(c: MatrixComparison) -> MatrixTable:
    rows = []
    for a in _ranked(c):
        q = a.quality
        if a.status != "done":
            rows.append((str(a.rank), a.label, a.agent, "–", "–", "–", "–", "–", _gates(a)))
            continue
        rows.append(
            (
                str(a.rank),
                a.label,
                a.agent,
                rate(q.pass_rate),
                pct(q.error_rate.value),
                rate(q.tool_selection, interval=False),
                rate(q.arguments, interval=False),
                rate(q.behavior, interval=False),
                _gates(a),
            )
        )
    header: tuple[str, ...] = ("#", "agent", "spec", "pass rate", "errors", "tool selection")
    header = (*header, "arguments", "behaviour", "gates")
    table: list[tuple[str, ...]] = list(rows)
    if any(a.quality.goal_completion.n for a in c.agents):  # a world's cases (docs/worlds.md)
        goals = [rate(a.quality.goal_completion) if a.status == "done" else "–" for a in _ranked(c)]
        header = (*header[:-1], "goal completion", header[-1])
        table = [(*r[:-1], g, r[-1]) for r, g in zip(table, goals, strict=True)]
    if all(a.label == agent_label(a.agent) for a in c.agents):  # the label says the spec
        header = header[:2] + header[3:]
        table = [r[:2] + r[3:] for r in table]
    return MatrixTable(title="Quality", header=header, rows=tuple(table))


#: the title of the prompts table (comparison.md adds the full prompts under it)
PROMPTS_TITLE = "System prompts"


def _prompts(c: MatrixComparison) -> MatrixTable | None:
    """Each member's system prompt, only when the members differ in it."""
    if not c.prompts_differ():
        return None
    rows = tuple((a.label, prompt_text(a.system)) for a in _ranked(c))
    return MatrixTable(title=PROMPTS_TITLE, header=("agent", "system prompt"), rows=rows)


def _module_mean(key: str, m: Mean | None) -> str:
    if m is None or m.mean is None:
        return "–"  # no such data in this run: unknown, not 0
    return f"{m.mean:.2f}" if key == "planning_grade" else pct(m.mean)


def _modules(c: MatrixComparison) -> MatrixTable | None:
    done = _done(c)
    keys = [
        (key, label)
        for key, _, label in MODULE_METRICS
        if any(a.quality.modules.get(key) and a.quality.modules[key].n for a in done)
    ]
    means = [
        (key, label)
        for key, _, label in MODULE_MEANS
        if any(key in a.quality.module_means for a in done)
    ]
    if not keys and not means and not c.scorers:
        return None
    rows = []
    for a in done:
        cells = [a.label]
        cells += [rate(a.quality.modules[k], interval=False) for k, _ in keys]
        cells += [_module_mean(k, a.quality.module_means.get(k)) for k, _ in means]
        cells += [
            scored_mean(s, a.quality.scorers[s], a.quality.scorer_scales.get(s))
            if s in a.quality.scorers
            else "–"
            for s in c.scorers
        ]
        rows.append(tuple(cells))
    header = (
        "agent",
        *(label for _, label in keys),
        *(label for _, label in means),
        *(f"{s} (mean)" for s in c.scorers),
    )
    return MatrixTable(title="Modules and scorers", header=header, rows=tuple(rows))


def _cost(c: MatrixComparison) -> MatrixTable:
    rows = tuple(
        (
            a.label,
            mean(a.cost.model_calls),
            mean(a.cost.tool_calls),
            mean(a.cost.input_tokens, digits=0),
            mean(a.cost.output_tokens, digits=0),
            mean(a.cost.cost_usd, money=True),
            f"${a.cost.cost_usd.total:.4f}" if a.cost.cost_usd.n else "–",
        )
        for a in _done(c)
    )
    header = ("agent", "model calls", "tool calls", "tokens in", "tokens out", "USD / result")
    return MatrixTable(title="Cost (per result)", header=(*header, "USD total"), rows=rows)


def _performance(c: MatrixComparison) -> MatrixTable:
    rows = tuple(
        (
            a.label,
            _q(a.performance.p50),
            _q(a.performance.p95),
            _q(a.performance.ttft_p50),
            _q(a.performance.ttft_p95),
        )
        for a in _done(c)
    )
    return MatrixTable(
        title="Performance (latency per result)",
        header=("agent", "p50", "p95", "TTFT p50", "TTFT p95"),
        rows=rows,
    )


def _scenarios(c: MatrixComparison) -> MatrixTable | None:
    done = _done(c)
    if not c.scenarios:
        return None
    rows = tuple(
        (
            s,
            *(
                rate(a.scenarios[s].pass_rate, interval=False) if s in a.scenarios else "–"
                for a in done
            ),
        )
        for s in c.scenarios
    )
    return MatrixTable(
        title="Pass rate per scenario", header=("scenario", *(a.label for a in done)), rows=rows
    )


def _verdict(p: MatrixPair) -> str:
    if p.significant:
        return f"{p.better} better"
    return "no significant difference"


def _pairs(c: MatrixComparison) -> MatrixTable | None:
    if not c.pairs:
        return None
    rows = []
    for p in c.pairs:
        d = p.delta("pass_rate")
        delta = "–"
        if d is not None and d.delta is not None:
            delta = f"{unit_delta(d.delta, 'rate')} {unit_interval(d.low, d.high, 'rate')}"
        rows.append(
            (
                f"{p.b} vs {p.a}",
                str(p.shared_cases),
                str(p.a_only),
                str(p.b_only),
                delta,
                f"{p.p_value:.3g}",
                f"{p.p_adjusted:.3g}",
                _verdict(p),
            )
        )
    return MatrixTable(
        title=f"Pairwise (exact McNemar on shared cases, Holm-adjusted, alpha {c.alpha:g})",
        header=(
            "pair (b vs a)",
            "shared",
            "only a",
            "only b",
            "Δ pass rate",
            "p",
            "p (Holm)",
            "verdict",
        ),
        rows=tuple(rows),
    )


_MODULE_LABELS = {key: label for key, _, label in MODULE_METRICS}


def _module_verdict(p: MatrixPair, metric: str) -> str:
    t = p.module(metric)
    if t is None:
        return "no significant difference"
    if t.significant:
        return f"{t.better} better"
    # unknown (untested), or too few shared cases for any difference to be significant
    return t.note if t.note is not None else "no significant difference"


def _p(value: float | None) -> str:
    return "–" if value is None else f"{value:.3g}"


def _module_pairs(c: MatrixComparison) -> MatrixTable | None:
    """Each module rate either agent of a pair measured, tested as the pass rate is (untested
    or too few shared cases: said so, never a 0)."""
    rows = []
    for p in c.pairs:
        for t in p.modules:
            delta = "–"
            if t.delta is not None:
                delta = f"{unit_delta(t.delta, 'rate')} {unit_interval(t.low, t.high, 'rate')}"
            rows.append(
                (
                    f"{p.b} vs {p.a}",
                    _MODULE_LABELS.get(t.metric, t.metric),
                    str(t.n),
                    delta,
                    _p(t.p_value),
                    _p(t.p_adjusted),
                    _module_verdict(p, t.metric),
                )
            )
    if not rows:
        return None
    return MatrixTable(
        title=(
            "Pairwise by module (exact McNemar on per-case module verdicts, Holm-adjusted "
            f"over the pairs of each module, alpha {c.alpha:g})"
        ),
        header=("pair (b vs a)", "module", "shared", "Δ", "p", "p (Holm)", "verdict"),
        rows=tuple(rows),
    )


def _module_lines(c: MatrixComparison) -> list[str]:
    out = []
    for p in c.pairs:
        for t in p.modules:
            if not t.significant or t.better is None:
                continue
            worse = p.a if t.better == p.b else p.b
            out.append(
                f"{t.better} is significantly better than {worse} on "
                f"{_MODULE_LABELS.get(t.metric, t.metric)} (exact McNemar p = {_p(t.p_value)}, "
                f"{_p(t.p_adjusted)} after Holm over the pairs, {t.n} shared cases)"
            )
    return out


def matrix_tables(c: MatrixComparison) -> list[MatrixTable]:
    """The comparison's tables, in report order."""
    tables = [_quality(c), _prompts(c), _modules(c), _cost(c), _performance(c)]
    tables += [_scenarios(c), _pairs(c), _module_pairs(c)]
    return [t for t in tables if t is not None]


def matrix_lines(c: MatrixComparison) -> list[str]:
    """The ranking and which differences are significant, one sentence each."""
    done = _done(c)
    lines: list[str] = []
    if done:
        order = [
            f"{a.rank}. {a.label} {pct(a.quality.pass_rate.value)}"
            for a in _ranked(c)
            if a.status == "done"
        ]
        unpriced = [a.label for a in done if a.cost.cost_usd.mean is None]
        basis = "pass rate, then errors, cost"
        if unpriced:
            basis = f"pass rate, then errors; cost not used, unknown for {', '.join(unpriced)}"
        tied = len({a.rank for a in done}) < len(done)
        lines.append(
            f"ranking ({basis}): " + ", ".join(order) + ("; equal ranks: tied" if tied else "")
        )
    sig = c.significant_pairs()
    for p in sig:
        worse = p.a if p.better == p.b else p.b
        lines.append(
            f"{p.better} passes significantly more cases than {worse} "
            f"(p = {p.p_adjusted:.3g} after Holm, {max(p.a_only, p.b_only)} vs "
            f"{min(p.a_only, p.b_only)} cases only one passed)"
        )
    if c.pairs and not sig:
        lines.append(
            f"no pair of agents differs significantly at alpha {c.alpha:g} in the cases passed "
            "(more cases may show a difference)"
        )
    lines += _module_lines(c)
    lines += [f"warning: {w}" for w in c.warnings]
    return [scrub(line) for line in lines]


def _md_cell(text: str) -> str:
    return md_cell(text)


def render_matrix_markdown(c: MatrixComparison) -> str:
    """The comparison as a pull-request comment (deterministic for a given comparison)."""
    out = [MATRIX_MARKER, f"## agentgauge: {len(c.agents)} agents on `{_md_cell(c.suite)}`", ""]
    for line in matrix_lines(c):
        out.append(f"- {_md_cell(line)}")
    out.append("")
    for t in matrix_tables(c):
        out += [f"### {t.title}", ""]
        out.append("| " + " | ".join(_md_cell(h) for h in t.header) + " |")
        out.append("|" + "---|" * len(t.header))
        for row in t.rows:
            out.append("| " + " | ".join(_md_cell(scrub(cell)) for cell in row) + " |")
        out.append("")
        if t.title == PROMPTS_TITLE:
            out += _full_prompts(c)
    return "\n".join(out)


def _full_prompts(c: MatrixComparison) -> list[str]:
    """The prompts the table cut (or flattened), whole, each in a folded ``<details>``."""
    out: list[str] = []
    for a in _ranked(c):
        if not a.system or prompt_text(a.system) == a.system:
            continue
        full = scrub(a.system)
        full = full.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        out += [
            f"<details><summary>{_md_cell(a.label)}: the full system prompt</summary>",
            "",
            f"<pre>{full}</pre>",
            "",
            "</details>",
            "",
        ]
    return out


def write_matrix_junit(out_dir: Path | str, c: MatrixComparison, out: IO[str]) -> None:
    """JUnit XML of every finished member: one ``<testsuite>`` per agent (named by its
    label, the agent spec in its properties), one ``<testcase>`` per case × trial."""
    from ._files import junit_counts, scrubbing, write_junit_testsuite, xml_attr

    out = scrubbing(out)
    out_dir = Path(out_dir)
    # in the matrix's order (not the ranking): CI test reports keep one order run after run
    members = [(a, out_dir / a.run_dir) for a in c.agents if a.status == "done"]
    counts = [junit_counts(run_dir) for _, run_dir in members]
    tests = sum(n.tests for n in counts)
    failures = sum(n.failures for n in counts)
    errors = sum(n.errors for n in counts)
    seconds = sum(n.total_ms for n in counts) / 1000
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(
        f'<testsuites name={xml_attr(c.suite or "agentgauge")} tests="{tests}" '
        f'failures="{failures}" errors="{errors}" time="{seconds:.3f}">\n'
    )
    for (a, run_dir), n in zip(members, counts, strict=True):
        props = {"suite": c.suite, "agent": a.agent, "label": a.label}
        write_junit_testsuite(run_dir, out, name=a.label, properties=props, counts=n)
    out.write("</testsuites>\n")
