"""The module-metrics section of every report (``Summary.modules``; docs/metrics.md#module-metrics):
retrieval precision / recall @k, degradation-trigger accuracy with its confusion matrix, the
cascade rule's exclusions, user satisfaction and the expert planning-path grade.

Nothing measured is shown as ``–`` with the reason, never as 0: a run whose agent reports no
retrieval has no retrieval figure, not a retrieval of 0.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from .._messages import printable
from ..metrics import Mean, ModuleStats, Summary
from ._fmt import rate
from ._html_charts import _section, _table, esc, rate_bar

__all__ = ["module_rows", "modules_html", "modules_markdown", "modules_table"]

NOTE = (
    "Module metrics: retrieval precision / recall of the relevant knowledge (labels.knowledge), "
    "whether the agent fell back when it should (labels.fallback), user feedback and expert "
    "planning grades. Judgements the cascade rule excluded (routing failed) are in no figure."
)
_SHOWN = 10


def share(m: Mean) -> str:
    """A mean of 0..1 values as ``62.5% [40.0–80.0] (n=8)``; ``–`` when nothing was measured."""
    if m.mean is None or m.low is None or m.high is None:
        return "–"
    return f"{m.mean * 100:.1f}% [{m.low * 100:.1f}–{m.high * 100:.1f}] (n={m.n})"


def grade(m: Mean) -> str:
    """The planning grade as ``4.20 of 5 [3.80–4.60] (n=5)``."""
    if m.mean is None or m.low is None or m.high is None:
        return "–"
    return f"{m.mean:.2f} of 5 [{m.low:.2f}–{m.high:.2f}] (n={m.n})"


def _unmeasured(n: int, what: str) -> str:
    return f"{n} result(s) {what}: not measured" if n else ""


def _retrieval_rows(m: ModuleStats) -> list[tuple[str, str, str]]:
    rt = m.retrieval
    if rt is None:
        return []
    at = f" @{rt.k}" if rt.k is not None else ""
    source = ", ".join(rt.sources) or "nothing observed"
    notes = [f"from {source}", _unmeasured(rt.unmeasured, "with unknown retrieval")]
    if rt.empty:
        notes.append(f"{rt.empty} retrieved nothing (recall 0, no precision)")
    note = "; ".join(n for n in notes if n)
    rows = [
        (f"retrieval precision{at}", share(rt.precision), note),
        (f"retrieval recall{at}", share(rt.recall), ""),
        (f"retrieval hit rate{at}", rate(rt.hit_rate), "a relevant item in the first k"),
    ]
    if len(rt.by_category) > 1:
        for name, sl in rt.by_category.items():
            rows.append(
                (f"  {name}: precision / recall", f"{share(sl.precision)} / {share(sl.recall)}", "")
            )
    return rows


def _fallback_rows(m: ModuleStats) -> list[tuple[str, str, str]]:
    f = m.fallback
    if f is None:
        return []
    cells = f"should & did {f.tp} · needless {f.fp} · missed {f.fn} · rightly not {f.tn}"
    unmeasured = _unmeasured(f.unmeasured, "with an unknown fallback")
    return [
        ("degradation-trigger accuracy", rate(f.accuracy), cells),
        ("degradation-trigger precision", rate(f.precision), "of the fallbacks made"),
        ("degradation-trigger recall", rate(f.recall), unmeasured or "of the fallbacks needed"),
    ]


def module_rows(summary: Summary) -> list[tuple[str, str, str]]:
    """(metric, value [CI] (n), note) for every module metric the run has (none: [])."""
    m = summary.modules
    if m is None:
        return []
    rows = [*_retrieval_rows(m), *_fallback_rows(m)]
    if m.satisfaction is not None:
        s = m.satisfaction
        rows.append(
            (
                "user satisfaction",
                rate(s.satisfied),
                f"feedback ≥ {s.satisfied_at:.0%} of its scale; mean {share(s.score)}; "
                f"{s.unrated} result(s) without feedback",
            )
        )
    if m.planning is not None:
        p = m.planning
        rows.append(
            (
                "planning-path grade (expert)",
                grade(p.grade),
                f"acceptable (4–5) {rate(p.acceptable)}; {p.unreviewed} not reviewed",
            )
        )
    for metric, ex in m.excluded.items():
        reasons = "; ".join(f"{why} ×{n}" for why, n in ex.reasons.items())
        rows.append((f"excluded from {metric}", str(ex.count), reasons))
    return rows


def _case_lists(m: ModuleStats) -> list[tuple[str, list[str]]]:
    lists: list[tuple[str, list[str]]] = []
    if m.retrieval is not None:
        worst = [c.case_id for c in m.retrieval.cases_worst if c.recall < 1.0]
        lists.append(("retrieval missed relevant items", worst))
    if m.fallback is not None:
        lists.append(("should have fallen back", m.fallback.missed_cases))
        lists.append(("fell back needlessly", m.fallback.false_alarm_cases))
    if m.satisfaction is not None:
        lists.append(("unsatisfied users", m.satisfaction.unsatisfied_cases))
    if m.planning is not None:
        lists.append(("plans graded 1–2", m.planning.poor_cases))
    return [(name, ids[:_SHOWN]) for name, ids in lists if ids]


def modules_markdown(s: Summary) -> list[str]:
    if s.modules is None:
        return []
    lines = ["### Module metrics", "", f"_{NOTE}_", ""]
    lines += ["| metric | value [CI] (n) | note |", "|---|---:|---|"]
    lines += [f"| {n.strip()} | {v} | {note} |" for n, v, note in module_rows(s)]
    lines.append("")
    for name, ids in _case_lists(s.modules):
        lines += [f"{name.capitalize()}: " + ", ".join(f"`{c}`" for c in ids), ""]
    return lines


def modules_table(s: Summary) -> Table | None:
    if s.modules is None:
        return None
    t = Table(title="module metrics", title_justify="left", show_edge=False, pad_edge=False)
    t.add_column("metric")
    t.add_column("value [95% CI] (n)", justify="right")
    t.add_column("note")
    for name, value, note in module_rows(s):  # a route's or a skill's name is the suite's
        t.add_row(Text(printable(name)), value, Text(printable(note)))
    for name, ids in _case_lists(s.modules):
        t.add_row(name, "", Text(printable(", ".join(ids))))
    return t


def _fallback_matrix(m: ModuleStats) -> str:
    f = m.fallback
    if f is None or not (f.tp + f.fp + f.fn + f.tn):
        return ""
    rows = [
        ["<strong>should fall back</strong>", str(f.tp), str(f.fn)],
        ["<strong>should not</strong>", str(f.fp), str(f.tn)],
    ]
    return "<h3>Degradation triggers</h3>\n" + _table(
        ["", "fell back", "did not"], rows, cls="confusion-2x2"
    )


def modules_html(s: Summary) -> str:
    m = s.modules
    if m is None:
        return ""
    rows: list[list[str]] = []
    rate_of = {
        "user satisfaction": m.satisfaction.satisfied if m.satisfaction else None,
        "degradation-trigger accuracy": m.fallback.accuracy if m.fallback else None,
        "degradation-trigger precision": m.fallback.precision if m.fallback else None,
        "degradation-trigger recall": m.fallback.recall if m.fallback else None,
    }
    for name, value, note in module_rows(s):
        r = rate_of.get(name)
        cell = rate_bar(r) if r is not None else esc(value)
        rows.append([esc(name), cell, esc(note)])
    body = _table(["metric", "value [CI] (n)", "note"], rows)
    body += _fallback_matrix(m)
    for name, ids in _case_lists(m):
        shown = ", ".join(f"<code>{esc(c)}</code>" for c in ids)
        body += f"<p>{esc(name.capitalize())}: {shown}</p>\n"
    return _section("modules", "Module metrics", body, esc(NOTE))
