"""The dashboard's best marks (★): a value is marked only when a named test finds it better than
every other shown agent's, and a cost or latency figure of an agent whose quality is far lower
than a shown agent's (significantly fewer cases passed, or a pass rate 20 points or more
below) is never marked without saying so.

Each card row has a test (:data:`ROW_TESTS`): the rates an exact McNemar test on per-case
verdicts, Holm-adjusted over the pairs; judge means and calls per result their 95 % intervals,
which must not overlap; tokens, cost and mean latency a paired bootstrap interval of the
difference, which must exclude 0. A row without a test (p95, time to first token) is never
marked. :func:`row_beats` says, for one row, which agent beats which and why;
:func:`row_mark` picks the mark for the agents shown. The page's script recomputes the marks
from the same data (:func:`marks_json`) when agents are hidden.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from ..metrics import MODULE_VERDICTS
from ._dashboard_sig import PairSignificance, Significance, holm, win_text

__all__ = [
    "ROW_TESTS",
    "Mark",
    "Measured",
    "RowBeats",
    "marks_json",
    "quality_gaps",
    "row_beats",
    "row_mark",
]

TestKind = Literal["mcnemar", "intervals", "paired", "none"]

#: the test of each row key: (kind, the metric of the pairs' deltas)
ROW_TESTS: dict[str, tuple[TestKind, str]] = {
    "pass_rate": ("mcnemar", "pass_rate"),
    "tool_selection": ("mcnemar", "tool_selection_accuracy"),
    "arguments": ("mcnemar", "argument_accuracy"),
    "behavior": ("mcnemar", "behavior_accuracy"),
    "task_completion": ("mcnemar", "task_completion"),
    "judge": ("intervals", ""),
    "model_calls": ("intervals", ""),
    "tool_calls": ("intervals", ""),
    "tokens": ("paired", "tokens"),
    "cost_usd": ("paired", "cost_usd"),
    "latency_p50": ("paired", "latency_ms"),
    # the module rates (metrics.MODULE_VERDICTS): McNemar on their per-case verdicts, Holm
    # over the pairs of each module (comparison.json's, else computed the same way)
    **{m: ("mcnemar", m) for m in MODULE_VERDICTS},
}


@dataclass(frozen=True, kw_only=True)
class RowBeats:
    """One card row: the agents measured on it and, per agent, whom it beats and why."""

    measured: frozenset[int]
    beats: dict[int, dict[int, str]] = field(default_factory=dict)
    #: a cost or performance row: its winner must not pass significantly fewer cases
    cost: bool = False


@dataclass(frozen=True, kw_only=True)
class Mark:
    """The mark of one agent on one row: ★ (``star``) or a caveat, and why."""

    agent: int
    star: bool
    why: str
    #: why a shown agent's quality is far higher (a cost row's winner: no star, these caveats
    #: shown instead)
    caveats: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Measured:
    """What a row's test needs of one agent's cell: its value and interval."""

    value: float | None
    low: float | None = None
    high: float | None = None


def _mcnemar(
    names: Sequence[str], metric: str, pairs: Sequence[PairSignificance], sig: Significance
) -> dict[int, dict[int, str]]:
    if metric == "pass_rate":  # the comparison's own Holm adjustment (the matrix agrees)
        return {
            w: {lo: win_text(names, w, lo, p, q) for lo, p, q in losses}
            for w, losses in sig.wins.items()
        }
    index = {n: i for i, n in enumerate(names)}
    known = [
        (index[p.a], index[p.b], d)
        for p in pairs
        if p.a in index and p.b in index
        for d in p.deltas
        if d.metric == metric and d.p_value is not None and d.delta
    ]
    given = [d.p_adjusted for _, _, d in known]
    if not all(q is not None for q in given):
        given = holm([d.p_value for _, _, d in known])
    adjusted = given
    out: dict[int, dict[int, str]] = {}
    for (ia, ib, d), q in zip(known, adjusted, strict=True):
        if q is None or q >= sig.alpha or d.delta is None or d.p_value is None:
            continue
        w, lo = (ib, ia) if d.delta > 0 else (ia, ib)
        out.setdefault(w, {})[lo] = (
            f"{metric} significantly higher than {names[lo]}: McNemar p = {d.p_value:.3g} "
            f"(Holm-adjusted over the pairs {q:.3g})"
        )
    return out


def _intervals(
    names: Sequence[str], cells: Sequence[Measured], higher_is_better: bool
) -> dict[int, dict[int, str]]:
    out: dict[int, dict[int, str]] = {}
    bounds = [
        (i, c.low, c.high)
        for i, c in enumerate(cells)
        if c.value is not None and c.low is not None and c.high is not None
    ]
    word = "higher" if higher_is_better else "lower"
    for i, a_low, a_high in bounds:
        for j, b_low, b_high in bounds:
            apart = a_low > b_high if higher_is_better else a_high < b_low
            if i != j and apart:
                out.setdefault(i, {})[j] = (
                    f"{word} than {names[j]}: the 95 % intervals do not overlap "
                    f"([{a_low:.3g}, {a_high:.3g}] against [{b_low:.3g}, {b_high:.3g}])"
                )
    return out


def _paired(
    names: Sequence[str], metric: str, pairs: Sequence[PairSignificance]
) -> dict[int, dict[int, str]]:
    """Lower is better (tokens, cost, latency): ``b`` beats ``a`` when the interval of
    ``b - a`` lies below 0, ``a`` beats ``b`` when it lies above."""
    index = {n: i for i, n in enumerate(names)}
    out: dict[int, dict[int, str]] = {}
    for p in pairs:
        if p.a not in index or p.b not in index:
            continue
        d = next((x for x in p.deltas if x.metric == metric), None)
        if d is None or d.low is None or d.high is None:
            continue
        ia, ib = index[p.a], index[p.b]
        if d.high < 0:
            w, lo, lo_d, hi_d = ib, ia, d.low, d.high
        elif d.low > 0:
            w, lo, lo_d, hi_d = ia, ib, -d.high, -d.low
        else:
            continue
        out.setdefault(w, {})[lo] = (
            f"{metric} lower than {names[lo]}: the paired bootstrap 95 % interval of the "
            f"difference [{lo_d:.3g}, {hi_d:.3g}] excludes 0"
        )
    return out


def row_beats(
    key: str,
    names: Sequence[str],
    cells: Sequence[Measured],
    *,
    higher_is_better: bool,
    pairs: Sequence[PairSignificance],
    sig: Significance,
    cost: bool,
) -> RowBeats:
    """Which agent beats which on the row ``key`` by the row's test (none: no marks)."""
    measured = frozenset(i for i, c in enumerate(cells) if c.value is not None)
    kind, metric = ROW_TESTS.get(key, ("none", ""))
    beats: dict[int, dict[int, str]] = {}
    if kind == "mcnemar":
        beats = _mcnemar(names, metric, pairs, sig)
    elif kind == "intervals":
        beats = _intervals(names, cells, higher_is_better)
    elif kind == "paired":
        beats = _paired(names, metric, pairs)
    beats = {i: {j: w for j, w in row.items() if j in measured} for i, row in beats.items()}
    return RowBeats(measured=measured, beats=beats, cost=cost)


def row_mark(
    row: RowBeats, visible: frozenset[int], quality: Mapping[int, Mapping[int, str]]
) -> Mark | None:
    """The mark of the shown agents ``visible`` on ``row``: the agent significantly better
    than every other shown agent measured on it, if any; on a cost row, a caveat instead of ★
    when a shown agent's quality is far higher (``quality[k][i]``: why ``k``'s is far above
    ``i``'s)."""
    shown = row.measured & visible
    if len(shown) < 2:
        return None
    for i in sorted(shown):
        wins = row.beats.get(i, {})
        if not all(j in wins for j in shown - {i}):
            continue
        why = "; ".join(wins[j] for j in sorted(shown - {i}))
        caveats = [quality[k][i] for k in sorted(visible) if i in quality.get(k, {})]
        caveats = caveats if row.cost else []
        return Mark(agent=i, star=not caveats, why=why, caveats=tuple(caveats))
    return None


def marks_json(
    rows: Sequence[RowBeats], quality: Mapping[int, Mapping[int, str]], names: Sequence[str]
) -> str:
    """The rows' beats as JSON for the page's script (``<`` escaped: safe inside ``<script>``)."""
    data = {
        "names": list(names),
        "pass": {str(k): {str(i): w for i, w in v.items()} for k, v in quality.items()},
        "rows": [
            {
                "m": sorted(r.measured),
                "c": r.cost,
                "b": {str(i): {str(j): w for j, w in b.items()} for i, b in r.beats.items()},
            }
            for r in rows
        ],
    }
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


#: a pass rate this many points below a shown agent's is "far lower" even when no test says so
FAR_BELOW = 0.20


def quality_gaps(
    names: Sequence[str], pass_rates: Sequence[float | None], sig: Significance
) -> dict[int, dict[int, str]]:
    """``out[k][i]``: why agent ``k``'s quality is far above agent ``i``'s — it passes
    significantly more cases (McNemar, Holm), or its pass rate is ``FAR_BELOW`` or more higher."""
    out: dict[int, dict[int, str]] = {}
    for k, losses in sig.wins.items():
        for i, p, q in losses:
            out.setdefault(k, {})[i] = (
                f"passes significantly fewer cases than {names[k]} (McNemar p = {p:.3g}, "
                f"Holm {q:.3g})"
            )
    for k, high in enumerate(pass_rates):
        for i, low in enumerate(pass_rates):
            if high is None or low is None or i in out.get(k, {}):
                continue
            gap = high - low
            if gap >= FAR_BELOW - 1e-9:
                out.setdefault(k, {})[i] = (
                    f"its pass rate is {gap * 100:.0f} points below {names[k]}'s (no test "
                    "finds it significant: more cases may)"
                )
    return out
