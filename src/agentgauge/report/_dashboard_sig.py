"""Pairwise significance of the dashboard's agents: McNemar's p-values, Holm's adjustment, the
row-against-column matrix."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ._dashboard_charts import colour, esc, table

__all__ = [
    "PairDelta",
    "PairSignificance",
    "Significance",
    "holm",
    "matrix_html",
    "significance",
    "win_text",
]


@dataclass(frozen=True, kw_only=True)
class PairDelta:
    """One metric of a pair: ``b - a`` with its paired bootstrap interval and, for a rate, the
    exact McNemar p-value on that metric's per-case verdicts."""

    metric: str
    delta: float | None = None
    low: float | None = None
    high: float | None = None
    p_value: float | None = None
    #: ``p_value`` already adjusted for the pairs tested on this metric (a module rate's Holm,
    #: ``metrics.module_pair_tests``); None: the dashboard adjusts over the pairs it is given
    p_adjusted: float | None = None


@dataclass(frozen=True, kw_only=True)
class PairSignificance:
    """McNemar's exact test of two agents' per-case pass/fail verdicts."""

    a: str
    b: str
    #: cases ``a`` passed and ``b`` failed, and the reverse (the discordant pairs)
    a_only: int = 0
    b_only: int = 0
    #: cases both runs scored
    paired: int = 0
    p_value: float | None = None
    #: the p-value already adjusted for the number of pairs (``comparison.json`` carries
    #: Holm's); when any pair lacks it, Holm's adjustment is computed over the pairs given
    p_adjusted: float | None = None
    #: ``b - a`` of the other compared metrics (the card rows' tests read them)
    deltas: tuple[PairDelta, ...] = ()


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values (``None`` stays ``None`` and does not count)."""
    known = sorted((p, i) for i, p in enumerate(p_values) if p is not None)
    m = len(known)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(known):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


@dataclass(frozen=True, kw_only=True)
class Significance:
    """Which agent beats which on the pass rate, after Holm's adjustment."""

    wins: dict[int, list[tuple[int, float, float]]]
    adjusted: dict[frozenset[int], float | None]
    alpha: float = 0.05


def significance(
    names: Sequence[str], pairs: Sequence[PairSignificance], alpha: float
) -> tuple[Significance, list[tuple[int, int, PairSignificance]]]:
    index = {n: i for i, n in enumerate(names)}
    known = [(index[p.a], index[p.b], p) for p in pairs if p.a in index and p.b in index]
    given = [p.p_adjusted for _, _, p in known]
    adj = given if all(q is not None for q in given) else holm([p.p_value for _, _, p in known])
    wins: dict[int, list[tuple[int, float, float]]] = {}
    adjusted: dict[frozenset[int], float | None] = {}
    for (ia, ib, p), q in zip(known, adj, strict=True):
        adjusted[frozenset((ia, ib))] = q
        if q is None or p.p_value is None or q >= alpha or p.a_only == p.b_only:
            continue
        winner, loser = (ia, ib) if p.a_only > p.b_only else (ib, ia)
        wins.setdefault(winner, []).append((loser, p.p_value, q))
    return Significance(wins=wins, adjusted=adjusted, alpha=alpha), known


def win_text(names: Sequence[str], i: int, lo: int, p: float, q: float) -> str:
    return (
        f"pass rate significantly higher than {names[lo]}: "
        f"McNemar p = {p:.3g} (Holm-adjusted {q:.3g})"
    )


def matrix_html(
    names: Sequence[str],
    known: Sequence[tuple[int, int, PairSignificance]],
    sig: Significance,
    alpha: float,
) -> str:
    by_pair = {(ia, ib): p for ia, ib, p in known}
    rows = []
    for i in range(len(names)):
        cells = [f'<th class="{colour(i)}"><i class="agd-key"></i>{esc(names[i])}</th>']
        for j in range(len(names)):
            if i == j:
                cells.append(f'<td class="agd-diag" data-agent="{j}">—</td>')
                continue
            p = by_pair.get((i, j))
            mine, theirs = (p.a_only, p.b_only) if p else (0, 0)
            if p is None and (j, i) in by_pair:
                p = by_pair[(j, i)]
                mine, theirs = p.b_only, p.a_only
            if p is None or p.p_value is None:
                cells.append(f'<td class="agd-na" data-agent="{j}">n/a</td>')
                continue
            q = sig.adjusted.get(frozenset((i, j)))
            significant = q is not None and q < alpha and mine != theirs
            mark = ("▲" if mine > theirs else "▼") if significant else "·"
            cls = ("agd-up" if mine > theirs else "agd-down") if significant else "agd-ns"
            tip = (
                f"{names[i]} passed {mine} cases {names[j]} failed, and failed {theirs} it "
                f"passed (of {p.paired} paired); p = {p.p_value:.3g}, Holm {q:.3g}"
                if q is not None
                else ""
            )
            cells.append(
                f'<td class="{cls}" data-agent="{j}" title="{esc(tip)}">'
                f'<span class="agd-mark">{mark}</span> '
                f'+{mine} / −{theirs}<span class="agd-sub">p = {p.p_value:.3g}</span></td>'
            )
        rows.append(cells)
    note = (
        f'<p class="agd-note">Row against column on the per-case pass verdicts: cases only the '
        f"row passed / only the column passed, and McNemar's exact p. ▲ / ▼ marks a difference "
        f"significant at α = {alpha:g} after Holm's adjustment over {len(known)} comparisons; "
        "· is not significant.</p>"
    )
    everyone = list(range(len(names)))
    return note + table(
        ["", *names],
        rows,
        "agd-table agd-matrix",
        col_agents=[None, *everyone],
        row_agents=everyone,
    )
