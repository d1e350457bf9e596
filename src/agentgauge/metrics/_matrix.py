"""Comparing every agent of a matrix run (``OUT/comparison.json``; docs/running.md).

``compare_matrix(OUT)`` summarises each member's run directory (the same summary as
``summary.json``: rates with Wilson intervals, means with bootstrap intervals), adds latency
percentiles with distribution-free intervals and per-scenario tokens, compares every pair of
finished members with :func:`compare` (exact McNemar on per-case verdicts over the cases both
ran, and each metric's delta with a paired bootstrap interval), adjusts the pairs' p-values for
their number (Holm) and ranks the agents.
"""

from __future__ import annotations

import math
import os
from array import array
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..errors import UserError
from ..files import read_model_file
from ..rundir import iter_light_results
from ..runner import MemberRecord, is_matrix_dir, read_manifest
from ._acc import MeanAcc
from ._compare import MetricDelta, compare
from ._gate_model import GateReport
from ._gating import gate_run
from ._matrix_model import (
    MODULE_MEANS,
    MODULE_METRICS,
    MatrixAgentStats,
    MatrixComparison,
    MatrixPair,
    MatrixPerformance,
    MatrixQuality,
    MemberStatus,
    ModulePairTest,
    Quantile,
    ScenarioStats,
)
from ._model import Rate, Summary, mean_on_scale, scorer_scale
from ._modules import MODULE_VERDICTS
from ._stats import mcnemar_exact, z_value

__all__ = [
    "COMPARISON_FILE",
    "compare_matrix",
    "module_pair_tests",
    "quantile_interval",
    "read_matrix",
    "write_comparison",
]

#: the comparison of a matrix folder
COMPARISON_FILE = "comparison.json"


def quantile_interval(sorted_values: array[float], q: float, confidence: float) -> Quantile:
    """The ``q`` percentile (nearest rank) of ``sorted_values`` with a distribution-free
    interval: the order statistics whose ranks are ``n·q ± z·sqrt(n·q·(1-q))`` (the binomial
    count of values below the true percentile, normal approximation; clamped to the data)."""
    n = len(sorted_values)
    if n == 0:
        return Quantile(q=q)
    rank = max(1, math.ceil(n * q))
    half = z_value(confidence) * math.sqrt(n * q * (1 - q))
    lo = min(n, max(1, math.floor(n * q - half)))
    hi = min(n, max(1, math.ceil(n * q + half)))
    return Quantile(
        q=q,
        n=n,
        value=sorted_values[rank - 1],
        low=sorted_values[lo - 1],
        high=sorted_values[hi - 1],
    )


def _sorted(values: array[float]) -> array[float]:
    return array("d", sorted(values))


def _extra_pass(run_dir: Path, confidence: float) -> tuple[MatrixPerformance, dict[str, MeanAcc]]:
    """What the summary lacks: latency percentiles with intervals, tokens per scenario."""
    latency: array[float] = array("d")
    ttft: array[float] = array("d")
    tokens: dict[str, MeanAcc] = {}
    for r in iter_light_results(run_dir):
        if r.latency_ms > 0:
            latency.append(r.latency_ms)
        if r.ttft_ms is not None:
            ttft.append(r.ttft_ms)
        acc = tokens.get(r.category)
        if acc is None:
            acc = tokens[r.category] = MeanAcc()
        if r.usage_recorded:  # a trace without token counts is not 0 tokens
            acc.add(float(r.usage.input_tokens + r.usage.output_tokens))
    lat, first = _sorted(latency), _sorted(ttft)
    perf = MatrixPerformance(
        p50=quantile_interval(lat, 0.5, confidence),
        p95=quantile_interval(lat, 0.95, confidence),
        ttft_p50=quantile_interval(first, 0.5, confidence),
        ttft_p95=quantile_interval(first, 0.95, confidence),
    )
    return perf, tokens


def _quality(summary: Summary) -> MatrixQuality:
    modules: dict[str, Rate] = {}
    for key, _, _ in MODULE_METRICS:
        rate = summary.rate(key)
        modules[key] = rate if rate is not None else Rate()
    means = {key: summary.module_mean(key) for key, _, _ in MODULE_MEANS}
    return MatrixQuality(
        pass_rate=summary.overall.pass_rate,
        error_rate=summary.overall.error_rate,
        tool_selection=summary.tool_selection.accuracy,
        arguments=summary.arguments_strict,
        arguments_partial=summary.arguments_partial,
        behavior=summary.behavior,
        task_completion=summary.task_completion,
        goal_completion=summary.overall.goal_completion,
        scorers={name: s.mean for name, s in sorted(summary.scorers.items())},
        module_means={k: m for k, m in means.items() if m is not None and m.n},
        scorer_scales={
            name: scorer_scale(name, s.scale) for name, s in sorted(summary.scorers.items())
        },
        scorers_on_scale={
            name: mean_on_scale(s.mean, scorer_scale(name, s.scale))
            for name, s in sorted(summary.scorers.items())
        },
        scorer_pass_rates={name: s.pass_rate for name, s in sorted(summary.scorers.items())},
        modules=modules,
    )


def _member_stats(
    out_dir: Path,
    rec: MemberRecord,
    *,
    gate: bool,
    gates_file: Path | None,
    summary: Summary | None,
    report: GateReport | None,
    confidence: float,
) -> MatrixAgentStats:
    state: MemberStatus = (
        "done" if rec.state == "done" else "failed" if rec.state == "failed" else "missing"
    )
    stats = MatrixAgentStats(
        label=rec.label, agent=rec.agent, run_dir=rec.run_dir, status=state, error=rec.error
    )
    run_dir = out_dir / rec.run_dir
    if state != "done":
        return stats
    if summary is None:
        if gate:
            summary, report, _ = gate_run(run_dir, gates_file=gates_file)
        else:
            from ._files import summarize

            summary = summarize(run_dir)
    perf, tokens = _extra_pass(run_dir, confidence)
    perf.latency = summary.performance.latency
    perf.latency_mean = summary.performance.latency_mean
    perf.ttft = summary.performance.ttft
    stats.results = summary.overall.results
    stats.cases = summary.cases
    stats.quality = _quality(summary)
    stats.cost = summary.cost
    stats.performance = perf
    stats.scenarios = {
        name: ScenarioStats(
            results=s.results,
            pass_rate=s.pass_rate,
            tokens=tokens[name].build(confidence) if name in tokens else ScenarioStats().tokens,
            latency=s.latency,
        )
        for name, s in sorted(summary.by_category.items())
    }
    if report is not None:
        stats.gates_passed = report.passed
        stats.gate_failures = [c.name for c in report.failed]
    return stats


def _member_system(run_dir: Path, own: str | None, shared: Mapping[str, object]) -> str | None:
    """A member's system prompt: what its run.json recorded, else what it was given (its
    matrix entry's, else the matrix's ``run --system``); None: the suite's."""
    from ..rundir import load_record

    record = load_record(run_dir)
    value = record.options.get("system") if record is not None else own
    if value is None and record is None:
        value = shared.get("system")
    return value if isinstance(value, str) else None


def _rank_key(a: MatrixAgentStats, *, by_cost: bool) -> tuple[float, ...]:
    """Higher pass rate, then fewer errors, then lower mean cost (``by_cost``: only when every
    finished member's cost is known: an unknown cost is not the cheapest); never latency, so a
    ranking does not move with its noise."""
    if a.status != "done":
        return (1.0, 0.0, 0.0, 0.0)
    q = a.quality
    cost = a.cost.cost_usd.mean if by_cost and a.cost.cost_usd.mean is not None else 0.0
    return (
        0.0,
        -(q.pass_rate.value if q.pass_rate.value is not None else -1.0),
        q.error_rate.value or 0.0,
        cost,
    )


def _rank(agents: list[MatrixAgentStats]) -> list[MatrixAgentStats]:
    """The members best first (ties in the matrix order: the sort is stable); members equal on
    every figure the ranking reads share its rank (1, 1, 3): neither is ahead."""
    done = [a for a in agents if a.status == "done"]
    by_cost = all(a.cost.cost_usd.mean is not None for a in done)
    keys = {a.label: _rank_key(a, by_cost=by_cost) for a in agents}
    ranked = sorted(agents, key=lambda a: keys[a.label])
    for i, a in enumerate(ranked):
        before = ranked[i - 1] if i else None
        same = before is not None and keys[before.label] == keys[a.label]
        a.rank = before.rank if same and before is not None else i + 1
    return ranked


def _holm(pairs: list[MatrixPair], alpha: float) -> None:
    """Holm's step-down adjustment of the pairs' p-values (controls the family-wise error)."""
    order = sorted(range(len(pairs)), key=lambda i: pairs[i].p_value)
    m = len(pairs)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * pairs[i].p_value))
        pairs[i].p_adjusted = running
        pairs[i].significant = running < alpha and pairs[i].a_only != pairs[i].b_only
        if pairs[i].significant:
            p = pairs[i]
            p.better = p.b if p.b_only > p.a_only else p.a


def _holm_values(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    out = [1.0] * len(p_values)
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - k) * p_values[i]))
        out[i] = running
    return out


def module_pair_tests(
    pairs: Sequence[tuple[str, str, Sequence[MetricDelta]]], alpha: float = 0.05
) -> list[list[ModulePairTest]]:
    """For each pair ``(a, b, deltas of b - a)``, the tests of the module rates
    (:data:`MODULE_METRICS`: the module verdicts, tool selection and arguments) either
    measured: compare's exact McNemar p-value on the per-case verdicts, Holm-adjusted over the
    pairs tested on that metric (each module is its own family, as each card row of the
    dashboard is); significant below ``alpha`` when the difference is not 0. A module rate
    with no shared case measured by both is untested (``note``: unknown, never a 0); one with
    too few shared cases for any difference to reach ``alpha`` says so in ``note``."""
    out: list[list[ModulePairTest]] = [[] for _ in pairs]
    for metric, _, _ in MODULE_METRICS:
        rows = [
            (k, d)
            for k, (_, _, deltas) in enumerate(pairs)
            for d in deltas
            # a headline rate (tool selection, arguments) has a row whether measured or not
            if d.metric == metric and (d.p_value is not None or metric in MODULE_VERDICTS)
        ]
        tested = [(k, d.p_value) for k, d in rows if d.p_value is not None]
        adjusted = dict(
            zip((k for k, _ in tested), _holm_values([p for _, p in tested]), strict=True)
        )
        for k, d in rows:
            a, b, _ = pairs[k]
            out[k].append(_module_test(metric, d, adjusted.get(k), a, b, alpha))
    return out


def _module_test(
    metric: str, d: MetricDelta, q: float | None, a: str, b: str, alpha: float
) -> ModulePairTest:
    if d.p_value is None or q is None:
        return ModulePairTest(
            metric=metric,
            n=d.n,
            note="unknown: no case both agents ran has a verdict from both (not 0)",
        )
    moved = d.delta is not None and abs(d.delta) > 1e-12
    significant = q < alpha and moved
    note = None
    if mcnemar_exact(d.n, 0) >= alpha:  # every shared case one way would not be enough
        note = (
            f"not enough pairs: {d.n} shared case(s), too few for any difference to be "
            f"significant at {alpha:g}"
        )
    return ModulePairTest(
        metric=metric,
        n=d.n,
        delta=d.delta,
        low=d.low,
        high=d.high,
        p_value=d.p_value,
        p_adjusted=q,
        significant=significant,
        better=(b if (d.delta or 0.0) > 0 else a) if significant else None,
        note=note,
    )


def _module_tests(pairs: list[MatrixPair], alpha: float) -> None:
    tests = module_pair_tests([(p.a, p.b, p.deltas) for p in pairs], alpha)
    for p, found in zip(pairs, tests, strict=True):
        p.modules = found


def compare_matrix(
    out_dir: Path | str,
    *,
    gate: bool = False,
    gates_file: Path | None = None,
    summaries: Mapping[str, Summary] | None = None,
    gate_reports: Mapping[str, GateReport] | None = None,
    confidence: float = 0.95,
    alpha: float = 0.05,
) -> MatrixComparison:
    """Every member of the matrix in ``out_dir`` side by side (see the module docstring).

    ``gate``: evaluate each member's gates (``gates_file``, else the suite's) unless
    ``gate_reports`` has them;
    ``summaries`` spares summarising again the members the caller has just summarised.
    """
    out_dir = Path(out_dir)
    manifest = read_manifest(out_dir)
    summaries = summaries or {}
    reports = gate_reports or {}
    agents = [
        _member_stats(
            out_dir,
            rec,
            gate=gate,
            gates_file=gates_file,
            summary=summaries.get(rec.label),
            report=reports.get(rec.label),
            confidence=confidence,
        )
        for rec in manifest.members
    ]
    for a, rec in zip(agents, manifest.members, strict=True):
        a.system = _member_system(out_dir / rec.run_dir, rec.system, manifest.options)
    ranked = _rank(agents)
    finished = [a for a in agents if a.status == "done"]
    pairs: list[MatrixPair] = []
    warnings: list[str] = []
    for i, a in enumerate(finished):
        for b in finished[i + 1 :]:
            cmp = compare(out_dir / a.run_dir, out_dir / b.run_dir, confidence=confidence)
            for w in cmp.warnings:
                # members differ by design; a mean one member lacks is n/a in its own table
                if w.startswith("different agents") or ": not compared: " in w:
                    continue
                if w not in warnings:
                    warnings.append(w)
            pairs.append(
                MatrixPair(
                    a=a.label,
                    b=b.label,
                    shared_cases=cmp.paired,
                    a_only=cmp.counts.get("broken", 0),
                    b_only=cmp.counts.get("fixed", 0),
                    p_value=cmp.mcnemar_p,
                    deltas=cmp.deltas,
                )
            )
    _holm(pairs, alpha)
    _module_tests(pairs, alpha)
    for a in agents:
        if a.status == "failed":
            warnings.append(f"{a.label} ({a.agent}) did not run: {a.error}")
        elif a.status == "missing":
            warnings.append(f"{a.label} ({a.agent}) has not finished (agentgauge run --resume)")
    return MatrixComparison(
        suite=manifest.suite,
        out_dir=str(out_dir),
        confidence=confidence,
        alpha=alpha,
        agents=agents,
        ranking=[a.label for a in ranked],
        pairs=pairs,
        scenarios=sorted({s for a in agents for s in a.scenarios}),
        scorers=sorted({s for a in agents for s in a.quality.scorers}),
        warnings=warnings,
    )


def write_comparison(out_dir: Path | str, comparison: MatrixComparison) -> Path:
    """Write ``OUT/comparison.json`` (secrets scrubbed) and return its path."""
    from ..rundir import write_json_atomic

    path = Path(out_dir) / COMPARISON_FILE
    write_json_atomic(path, comparison)
    return path


def read_matrix(out_dir: Path | str) -> MatrixComparison:
    """The comparison of the matrix folder ``out_dir``: its ``comparison.json``, else computed
    from the members' run directories. Not a matrix folder: a UserError."""
    out_dir = Path(out_dir)
    if not is_matrix_dir(out_dir):
        raise UserError(f"{out_dir}: not a matrix folder (no matrix.json)")
    path = out_dir / COMPARISON_FILE
    if os.path.lexists(path):  # read with the input limits, whatever kind of file it is
        return read_model_file(path, MatrixComparison, str(path), what="matrix comparison")
    return compare_matrix(out_dir)
