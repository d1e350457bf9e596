"""The console report: compact rich tables, printed at the end of ``agentgauge run``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from .._messages import printable
from ..metrics import Rate, Slice, Summary, fold_small_samples
from ._fmt import (
    latency,
    mean,
    one_line,
    pct,
    quality_rates,
    rate,
    scored_mean,
    suite_scorers,
    tokens_in_out,
)
from ._state import diff_cells
from ._users import pass_hat_curve, pass_k_label, user_error_line, user_rows

if TYPE_CHECKING:
    from rich.console import Console

    from ..metrics import Comparison, GateReport


def _modules_table(summary: Summary) -> Table | None:
    """The module-metrics table; its module (HTML helpers too) only when the run has them."""
    if summary.modules is None:
        return None
    from ._modules import modules_table

    return modules_table(summary)


def _redteam_table(summary: Summary) -> Table | None:
    """The red-team table; its module (the HTML helpers it shares) only for a red-team run."""
    if summary.redteam is None:
        return None
    from ._redteam import redteam_table

    return redteam_table(summary)


def _plain(text: str) -> Text:
    """Text from the suite or the run (a name, a case id): one line, never markup."""
    return Text(printable(text))


def _style(r: Rate) -> str:
    if r.value is None:
        return "dim"
    return "green" if r.value >= 0.9 else "yellow" if r.value >= 0.7 else "red"


def _slice_table(title: str, slices: dict[str, Slice]) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    for col in ("slice", "results", "pass rate [95% CI]", "errors", "p50", "p95"):
        table.add_column(col, justify="left" if col == "slice" else "right")
    for name, sl in slices.items():
        p50, _, p95, _ = latency(sl.latency)
        table.add_row(
            _plain(name),
            str(sl.results),
            Text(rate(sl.pass_rate), style=_style(sl.pass_rate)),
            str(sl.error_rate.passed),
            p50,
            p95,
        )
    return table


def render_console(
    summary: Summary,
    console: Console,
    *,
    gates: GateReport | None = None,
    comparison: Comparison | None = None,
    failures: int = 5,
) -> None:
    """Print the summary of a run (and, when given, its gate verdicts and baseline deltas)."""
    run = summary.run
    title = printable(f"{run.suite} · {run.agent}") if run else "run summary"
    ov = summary.overall
    head = Text.assemble(
        (title, "bold"),
        "\n",
        ("pass rate ", ""),
        (rate(ov.pass_rate), f"bold {_style(ov.pass_rate)}"),
        f"   errors {rate(ov.error_rate)}   cases {summary.cases}   results {ov.results}",
    )
    console.print(head)
    line = user_error_line(summary)
    if line is not None:
        console.print(line)
    if summary.replayed:
        console.print(
            f"{summary.replayed} of {ov.results} results replayed from the cache: their latency "
            "and cost are the earlier run's",
            style="dim",
        )
    if len(summary.by_category) > 1:
        console.print(_slice_table("by category", summary.by_category))

    tables = (
        _quality_table(summary),
        _confusion_table(summary),
        _cost_table(summary),
        _users_table(summary),
        _scorer_table(summary),
        _redteam_table(summary),
        _modules_table(summary),
    )
    for table in tables:
        if table is not None:
            console.print(table)
    if summary.forbidden_tool_calls:
        console.print(
            Text(
                f"forbidden tool called in {summary.forbidden_tool_calls} result(s): "
                + printable(", ".join(summary.forbidden_tool_cases[:10])),
                style="bold red",
            )
        )
    if failures and summary.worst_failures:
        console.print(_failure_table(summary, failures))
        state = _state_table(summary, failures)
        if state is not None:
            console.print(state)
    if comparison is not None:
        from ._text import comparison_lines

        for line in comparison_lines(comparison):
            console.print(line, markup=False, highlight=False)
    if gates is not None:
        from ._text import gate_lines

        for line in gate_lines(gates):
            console.print(line, markup=False, highlight=False)
    if gates is None:  # the gate lines have said them
        rest, note = fold_small_samples(summary.warnings)
        for w in rest:
            console.print(Text(printable(f"warning: {w}"), style="yellow"))
        if note is not None:  # one footnote, not a line per gated slice
            console.print(Text(f"note: {note}", style="dim"))


def _quality_table(summary: Summary) -> Table | None:
    quality = Table(title="quality", title_justify="left", show_edge=False, pad_edge=False)
    quality.add_column("metric")
    quality.add_column("value [95% CI] (n)", justify="right")
    quality.add_column("skipped", justify="right")
    for name, r in quality_rates(summary):
        if r.n or r.skipped:
            quality.add_row(name, Text(rate(r), style=_style(r)), str(r.skipped or ""))
    if summary.arguments_partial.n:
        quality.add_row("arguments (partial credit)", mean(summary.arguments_partial, digits=3), "")
    if summary.trials.trials > 1:
        t = summary.trials
        k = str(t.trials)
        quality.add_row(
            pass_k_label(summary, k), f"{pct(t.pass_at_k[k])} / {pct(t.pass_hat_k[k])}", ""
        )
        curve = pass_hat_curve(summary)
        if curve is not None:
            quality.add_row("pass^k by k (τ²-bench)", curve, "")
        quality.add_row("flaky cases", rate(t.flaky), "")
    return quality if quality.row_count else None


def _users_table(summary: Summary) -> Table | None:
    rows = user_rows(summary)
    if not rows:
        return None
    table = Table(title="simulated users", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("")
    table.add_column("value", overflow="fold")
    for name, value in rows:
        table.add_row(name, _plain(value))  # from run.json / results.jsonl: never markup
    return table


def _confusion_table(summary: Summary) -> Table | None:
    wrong = [c for c in summary.tool_selection.confusion if c.expected != c.actual]
    if not wrong:
        return None
    conf = Table(title="tool confusions", title_justify="left", show_edge=False)
    conf.add_column("expected")
    conf.add_column("called")
    conf.add_column("count", justify="right")
    for cell in sorted(wrong, key=lambda c: (-c.count, c.expected, c.actual))[:8]:
        conf.add_row(
            Text(one_line(cell.expected, 40)), Text(one_line(cell.actual, 60)), str(cell.count)
        )
    return conf


def _cost_table(summary: Summary) -> Table:
    perf = summary.performance
    cost = summary.cost
    cp = Table(title="cost and latency", title_justify="left", show_edge=False, pad_edge=False)
    cp.add_column("metric")
    cp.add_column("per result [95% CI]", justify="right")
    cp.add_column("total", justify="right")
    cp.add_row("model calls", mean(cost.model_calls), f"{cost.model_calls.total:.0f}")
    cp.add_row("tool calls", mean(cost.tool_calls), f"{cost.tool_calls.total:.0f}")
    cp.add_row("tokens in / out", *tokens_in_out(cost, summary.overall.results))
    if cost.cost_usd.n:
        cp.add_row("cost (USD)", mean(cost.cost_usd, money=True), f"${cost.cost_usd.total:.4f}")
    p50, p90, p95, pmax = latency(perf.latency)
    cp.add_row("latency p50 / p90 / p95 / max", f"{p50} / {p90} / {p95} / {pmax}", "")
    if perf.ttft.n:
        t50, _, t95, _ = latency(perf.ttft)
        cp.add_row("time to first token p50 / p95", f"{t50} / {t95}", "")
    if perf.budget_violations.n:
        cp.add_row("over latency budget", rate(perf.budget_violations), "")
    return cp


def _scorer_table(summary: Summary) -> Table | None:
    """Every suite scorer (judges, assert, python: checks ...): its mean on its own scale (the
    one its gate reads), its pass rate and the uncertain judge scores; printed on every run."""
    names = suite_scorers(summary)
    if not names:
        return None
    table = Table(title="scorers", title_justify="left", show_edge=False, pad_edge=False)
    table.add_column("scorer")
    table.add_column("mean [95% CI]", justify="right")
    table.add_column("pass rate (n)", justify="right")
    table.add_column("uncertain", justify="right")
    for name in names:
        st = summary.scorers[name]
        table.add_row(
            _plain(name),
            scored_mean(name, st.mean, st.scale),
            Text(rate(st.pass_rate, interval=False), style=_style(st.pass_rate)),
            str(st.uncertain or ""),
        )
    return table


def _failure_table(summary: Summary, failures: int) -> Table:
    ft = Table(title="worst failures", title_justify="left", show_edge=False, pad_edge=False)
    ft.add_column("case")
    ft.add_column("category")
    ft.add_column("score", justify="right")
    ft.add_column("why", overflow="fold")
    for f in summary.worst_failures[:failures]:
        name = f.case_id if f.trial == 0 else f"{f.case_id} [{f.trial}]"
        why = one_line(f.explanation, 120) or f.status
        score = "error" if f.status == "error" else f"{f.score:.2f}"
        ft.add_row(_plain(name), _plain(f.category), score, Text(why))
    return ft


def _state_table(summary: Summary, failures: int) -> Table | None:
    """The world-state differences of the worst failures (docs/worlds.md): what each state check
    expected at a path, and what the agent left there."""
    rows = [
        (f.case_id if f.trial == 0 else f"{f.case_id} [{f.trial}]", diff_cells(d))
        for f in summary.worst_failures[:failures]
        for d in f.state_diff
    ]
    if not rows:
        return None
    table = Table(
        title="final state differences", title_justify="left", show_edge=False, pad_edge=False
    )
    for col in ("case", "path", "expected", "actual", "check"):
        table.add_column(col, overflow="fold")
    for name, (path, expected, actual, source) in rows:
        actual_text = Text(printable(actual), style="red")
        table.add_row(_plain(name), _plain(path), _plain(expected), actual_text, _plain(source))
    return table
