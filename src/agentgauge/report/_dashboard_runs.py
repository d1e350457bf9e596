"""The dashboard's inputs read from run directories: summaries, tokens per scenario, McNemar."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

from ..errors import UserError
from ..metrics import MetricDelta, Summary, compare, module_pair_tests, summarize
from ._dashboard import (
    DASHBOARD_FILE,
    DashboardAgent,
    PairDelta,
    PairSignificance,
    render_dashboard,
)

__all__ = ["dashboard_from_runs", "load_agents", "pairwise_significance", "write_dashboard"]


def _tokens_by_category(run_dir: Path) -> dict[str, float]:
    from ..rundir import iter_light_results

    sums: dict[str, list[int]] = {}
    for r in iter_light_results(run_dir):
        if not r.usage_recorded:  # a result without token counts is not 0 tokens
            continue
        acc = sums.setdefault(r.category, [0, 0])
        acc[0] += r.usage.input_tokens + r.usage.output_tokens
        acc[1] += 1
    return {cat: total / n for cat, (total, n) in sums.items() if n}


def load_agents(
    members: Sequence[tuple[str, Path]], summaries: Sequence[Summary] | None = None
) -> list[DashboardAgent]:
    """One :class:`DashboardAgent` per ``(name, run directory)``.

    ``summaries`` (in the same order) saves recomputing them; the tokens per scenario always
    come from one streaming pass over each run's ``results.jsonl``.
    """
    if summaries is not None and len(summaries) != len(members):
        raise ValueError("summaries must match members one to one")
    out = []
    for k, (name, run_dir) in enumerate(members):
        run_dir = Path(run_dir)
        if not run_dir.is_dir():
            raise UserError(f"{run_dir}: no such run directory (agent {name!r})")
        summary = summaries[k] if summaries is not None else summarize(run_dir)
        out.append(
            DashboardAgent(
                name=name, summary=summary, tokens_by_category=_tokens_by_category(run_dir)
            )
        )
    return out


def _flip(d: MetricDelta) -> MetricDelta:
    """``b - a`` from compare's ``a - b``."""
    return d.model_copy(
        update={
            "base": d.new,
            "new": d.base,
            "delta": None if d.delta is None else -d.delta,
            "low": None if d.high is None else -d.high,
            "high": None if d.low is None else -d.low,
        }
    )


def pairwise_significance(
    members: Sequence[tuple[str, Path]], *, alpha: float = 0.05
) -> list[PairSignificance]:
    """McNemar's exact test on the pass verdicts of every pair of runs (``compare``'s), and
    on each module rate's per-case verdicts, Holm-adjusted over the pairs of that module
    (``metrics.module_pair_tests``, as a matrix run's comparison.json has it)."""
    out = []
    compared = []
    for (na, da), (nb, db) in combinations(members, 2):
        cmp = compare(Path(db), Path(da))  # base b, new a: "fixed" = a passed where b failed
        compared.append((na, nb, cmp, [_flip(d) for d in cmp.deltas]))
    tests = module_pair_tests([(na, nb, deltas) for na, nb, _, deltas in compared], alpha)
    for (na, nb, cmp, deltas), found in zip(compared, tests, strict=True):
        adjusted = {t.metric: t.p_adjusted for t in found}
        delta = cmp.delta("pass_rate")
        # compare's deltas are a - b here; the dashboard's are b - a
        flipped = tuple(
            PairDelta(
                metric=d.metric,
                delta=d.delta,
                low=d.low,
                high=d.high,
                p_value=d.p_value,
                p_adjusted=adjusted.get(d.metric),
            )
            for d in deltas
        )
        out.append(
            PairSignificance(
                a=na,
                b=nb,
                a_only=cmp.counts.get("fixed", 0),
                b_only=cmp.counts.get("broken", 0),
                paired=cmp.paired,
                p_value=delta.p_value if delta is not None else None,
                deltas=flipped,
            )
        )
    return out


def dashboard_from_runs(
    members: Sequence[tuple[str, Path]], *, title: str = "agentgauge dashboard"
) -> str:
    """The whole page for ``(agent name, run directory)`` pairs."""
    return render_dashboard(load_agents(members), pairwise_significance(members), title=title)


def write_dashboard(
    out_dir: Path,
    members: Sequence[tuple[str, Path]],
    *,
    summaries: Sequence[Summary] | None = None,
    pairs: Sequence[PairSignificance] | None = None,
    title: str = "agentgauge dashboard",
) -> Path:
    """Write ``OUT_DIR/dashboard.html`` for the runs of a multi-agent run and return its path.

    ``pairs`` defaults to McNemar on every pair of runs (computed here).
    """
    agents = load_agents(members, summaries)
    if pairs is None:
        pairs = pairwise_significance(members)
    path = Path(out_dir) / DASHBOARD_FILE
    from .._secrets import register_env, scrub

    register_env()
    path.write_text(scrub(render_dashboard(agents, pairs, title=title)), encoding="utf-8")
    return path
