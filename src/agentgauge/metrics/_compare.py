"""Paired comparison of two runs of the same suite (docs/statistics.md#comparing-two-runs).

The unit of analysis is the case: a case's trials stay together when resampling, and McNemar's
test uses one verdict per case (passed = every trial passed), because trials of one case are not
independent of each other.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import Field

from ..io import iter_light_results
from ..schema import CaseResult, Model
from ._model import RATE_METRICS
from ._stats import (
    mcnemar_exact,
    paired_bootstrap,
    sample_size_mcnemar,
    sample_size_two_proportions,
)
from ._verdicts import (
    argument_verdict,
    behavior_verdict,
    is_multi_step,
    tool_selection_verdict,
)

Change = Literal["fixed", "broken", "unchanged_pass", "unchanged_fail", "new", "removed"]
#: how many case ids each change list keeps
LISTED = 100


class CaseChange(Model):
    case_id: str
    change: Change
    category: str = ""
    #: passing trials / trials in each run (``None`` when the case is absent from that run)
    base: str | None = None
    new: str | None = None
    explanation: str = ""


#: per-result means compared besides the rates: (name, unit)
MEAN_METRICS = (("latency_ms", "ms"), ("tokens", "tokens"), ("cost_usd", "usd"))


class MetricDelta(Model):
    """``new - base`` of one metric over the cases both runs share, with a paired bootstrap CI."""

    metric: str
    #: ``rate`` (a fraction), or the unit of a per-result mean: ``ms``, ``tokens``, ``usd``
    unit: str = "rate"
    base: float | None
    new: float | None
    delta: float | None
    low: float | None = None
    high: float | None = None
    #: cases that contributed to the metric in both runs
    n: int = 0
    #: exact McNemar p-value on per-case verdicts of this metric (a case counts as a success
    #: when every one of its trials succeeded)
    p_value: float | None = None


class Comparison(Model):
    """The paired comparison of ``new`` against ``base``."""

    version: int = 1
    base_run: str
    new_run: str
    confidence: float = 0.95
    #: cases present in both runs
    paired: int = 0
    counts: dict[str, int] = Field(default_factory=dict)
    fixed: list[CaseChange] = Field(default_factory=list)
    broken: list[CaseChange] = Field(default_factory=list)
    new_cases: list[str] = Field(default_factory=list)
    removed_cases: list[str] = Field(default_factory=list)
    #: exact McNemar test on per-case verdicts (two-sided)
    mcnemar_p: float = 1.0
    deltas: list[MetricDelta] = Field(default_factory=list)
    #: e.g. the runs are of different suites, or the suite changed between them
    warnings: list[str] = Field(default_factory=list)
    #: cases needed for 80 % power to detect the observed change (or ``detect_points`` if none)
    sample_size: SampleSize | None = None

    def delta(self, metric: str) -> MetricDelta | None:
        return next((d for d in self.deltas if d.metric == metric), None)


class SampleSize(Model):
    """How many cases a comparison needs to detect a change of ``points`` with 80 % power."""

    points: float
    alpha: float
    power: float
    #: paired design (the same cases in both runs, exact McNemar)
    paired_cases: int | None = None
    #: independent samples (two different case sets), per run
    unpaired_cases: int | None = None


@dataclass(slots=True)
class _Trial:
    """What comparison keeps per case and trial: a few numbers, nothing else."""

    status: str
    # numerator, denominator for each rate metric, in RATE_METRICS order, then MEAN_METRICS,
    # flat (one tuple per trial, not one per metric: a third of the memory on a large run)
    parts: tuple[float, ...]


def _parts(r: CaseResult) -> tuple[float, ...]:
    return tuple(x for pair in _pairs(r) for x in pair)


def _pairs(r: CaseResult) -> tuple[tuple[float, float], ...]:
    scored = r.status != "error"

    def rate(ok: bool | None) -> tuple[float, float]:
        return (0, 0) if ok is None or not scored else (int(ok), 1)

    verdict = tool_selection_verdict(r) if scored else None
    selection = verdict[0] if verdict else None
    sel = rate(selection) if verdict else (0, 0)
    args = rate(argument_verdict(r, selection)) if scored else (0, 0)
    bv = behavior_verdict(r) if scored else None
    behaviour = rate(bv[0]) if bv is not None and bv[1] != "tool_call" else (0, 0)
    multi = scored and is_multi_step(r)
    return (
        (int(r.status == "passed"), int(scored)),  # pass_rate
        sel,  # tool_selection_accuracy
        args,  # argument_accuracy
        behaviour,  # behavior_accuracy
        (int(r.status == "passed"), 1) if multi else (0, 0),  # task_completion
        (int(not scored), 1),  # error_rate
        (r.latency_ms, 1) if r.latency_ms > 0 else (0, 0),  # latency_ms
        (r.usage.input_tokens + r.usage.output_tokens, 1),  # tokens
        (r.cost_usd, 1) if r.cost_usd is not None else (0, 0),  # cost_usd
    )


def _load(run_dir: Path) -> tuple[dict[str, list[_Trial]], dict[str, tuple[str, str]]]:
    trials: dict[str, list[_Trial]] = {}
    info: dict[str, tuple[str, str]] = {}
    for r in iter_light_results(run_dir):
        trials.setdefault(r.case_id, []).append(_Trial(sys.intern(r.status), _parts(r)))
        if r.status != "passed" or r.case_id not in info:
            first = r.explanation.splitlines()[0] if r.explanation else ""
            info[r.case_id] = (sys.intern(r.category), first)
    return trials, info


def _verdict(trials: list[_Trial]) -> bool:
    return all(t.status == "passed" for t in trials)


def _tally(trials: list[_Trial]) -> str:
    return f"{sum(t.status == 'passed' for t in trials)}/{len(trials)}"


def compare(
    base_run: Path,
    new_run: Path,
    *,
    confidence: float = 0.95,
    detect_points: float = 5.0,
    resamples: int = 1000,
    seed: int = 0,
) -> Comparison:
    """Compare two runs of the same suite case by case (see the module docstring)."""
    base, base_info = _load(Path(base_run))
    new, new_info = _load(Path(new_run))
    shared = sorted(set(base) & set(new))
    counts = dict.fromkeys(("fixed", "broken", "unchanged_pass", "unchanged_fail"), 0)
    fixed: list[CaseChange] = []
    broken: list[CaseChange] = []
    for cid in shared:
        b, n = _verdict(base[cid]), _verdict(new[cid])
        change: Change = (
            "unchanged_pass"
            if b and n
            else "unchanged_fail"
            if not (b or n)
            else "fixed"
            if n
            else "broken"
        )
        counts[change] += 1
        if change in ("fixed", "broken"):
            info = new_info[cid] if change == "broken" else base_info[cid]
            item = CaseChange(
                case_id=cid,
                change=change,
                category=new_info[cid][0],
                base=_tally(base[cid]),
                new=_tally(new[cid]),
                explanation=info[1],
            )
            (fixed if change == "fixed" else broken).append(item)
    new_cases = sorted(set(new) - set(base))
    removed = sorted(set(base) - set(new))
    counts["new"] = len(new_cases)
    counts["removed"] = len(removed)
    p = mcnemar_exact(counts["fixed"], counts["broken"])

    deltas: list[MetricDelta] = []
    metrics = [(m, "rate") for m in RATE_METRICS] + list(MEAN_METRICS)
    for i, (metric, unit) in enumerate(metrics):
        units = []
        for cid in shared:
            bn = sum(t.parts[2 * i] for t in base[cid])
            bd = sum(t.parts[2 * i + 1] for t in base[cid])
            nn = sum(t.parts[2 * i] for t in new[cid])
            nd = sum(t.parts[2 * i + 1] for t in new[cid])
            if bd and nd:
                units.append((float(bn), float(bd), float(nn), float(nd)))
        if not units:
            deltas.append(MetricDelta(metric=metric, unit=unit, base=None, new=None, delta=None))
            continue
        ci = paired_bootstrap(units, confidence=confidence, resamples=resamples, seed=seed + i)
        bsum = sum(u[0] for u in units) / sum(u[1] for u in units)
        nsum = sum(u[2] for u in units) / sum(u[3] for u in units)
        deltas.append(
            MetricDelta(
                metric=metric,
                unit=unit,
                base=bsum,
                new=nsum,
                delta=ci.value,
                low=ci.low,
                high=ci.high,
                n=len(units),
                p_value=p
                if metric == "pass_rate"
                else _unit_mcnemar(units)
                if unit == "rate"
                else None,
            )
        )
    return Comparison(
        warnings=_suite_warnings(Path(base_run), Path(new_run)),
        base_run=str(base_run),
        new_run=str(new_run),
        confidence=confidence,
        paired=len(shared),
        counts=counts,
        fixed=fixed[:LISTED],
        broken=broken[:LISTED],
        new_cases=new_cases[:LISTED],
        removed_cases=removed[:LISTED],
        mcnemar_p=p,
        deltas=deltas,
        sample_size=_sample_size(counts, len(shared), deltas, detect_points, 1 - confidence),
    )


def _suite_warnings(base_run: Path, new_run: Path) -> list[str]:
    from ..io import load_record as load_run

    base, new = load_run(base_run), load_run(new_run)
    if base is None or new is None:
        return []
    if base.suite != new.suite:
        return [f"the runs are of different suites ({base.suite!r} and {new.suite!r})"]
    if base.suite_hash and new.suite_hash and base.suite_hash != new.suite_hash:
        return ["the suite changed between the runs; cases are paired by id"]
    if base.agent != new.agent:
        return [f"different agents: {base.agent} (base) and {new.agent} (new)"]
    return []


def _unit_mcnemar(units: list[tuple[float, float, float, float]]) -> float:
    up = sum(1 for bn, bd, nn, nd in units if bn < bd and nn == nd)
    down = sum(1 for bn, bd, nn, nd in units if bn == bd and nn < nd)
    return mcnemar_exact(up, down)


def _sample_size(
    counts: dict[str, int],
    paired: int,
    deltas: list[MetricDelta],
    detect_points: float,
    alpha: float,
) -> SampleSize | None:
    """Cases needed to detect ``detect_points`` with 80 % power, using the observed flip rate.

    The paired estimate assumes the change is one-sided among the observed discordant fraction
    (at least ``d`` itself); the unpaired one uses the base pass rate as ``p1``.
    """
    power = 0.8
    d = detect_points / 100
    pass_delta = next((x for x in deltas if x.metric == "pass_rate"), None)
    base_rate = pass_delta.base if pass_delta and pass_delta.base is not None else 0.5
    out = SampleSize(points=detect_points, alpha=alpha, power=power)
    if paired:
        discordant = (counts["fixed"] + counts["broken"]) / paired
        pd = min(1.0, max(discordant, d))
        p_fixed, p_broken = (pd + d) / 2, (pd - d) / 2
        if p_fixed <= 1:
            out.paired_cases = sample_size_mcnemar(p_fixed, p_broken, alpha=alpha, power=power)
    p2 = base_rate + d if base_rate + d <= 1 else base_rate - d
    if 0 <= p2 <= 1 and p2 != base_rate:
        out.unpaired_cases = sample_size_two_proportions(base_rate, p2, alpha=alpha, power=power)
    return out


Comparison.model_rebuild()
