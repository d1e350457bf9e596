"""Paired comparison of two runs of the same suite (docs/statistics.md#comparing-two-runs).

The unit of analysis is the case: a case's trials stay together when resampling, and McNemar's
test uses one verdict per case (passed = every trial passed), because trials of one case are not
independent of each other.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

import orjson
from pydantic import Field

from .._factories import new_dict, new_list
from ..rundir import iter_light_results, iter_results
from ..schema import CaseResult, Model
from ._diagnosis import DiagnosisAcc
from ._model import RATE_METRICS
from ._modules import MODULE_VERDICTS, ModuleAcc
from ._spill import Spill
from ._stats import (
    PairedStream,
    mcnemar_exact,
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
    counts: dict[str, int] = Field(default_factory=new_dict)
    fixed: list[CaseChange] = Field(default_factory=new_list)
    broken: list[CaseChange] = Field(default_factory=new_list)
    new_cases: list[str] = Field(default_factory=new_list)
    removed_cases: list[str] = Field(default_factory=new_list)
    #: exact McNemar test on per-case verdicts (two-sided)
    mcnemar_p: float = 1.0
    deltas: list[MetricDelta] = Field(default_factory=new_list)
    #: e.g. the runs are of different suites, or the suite changed between them
    warnings: list[str] = Field(default_factory=new_list)
    #: cases needed for 80 % power to detect the observed change (or ``detect_points`` if none)
    sample_size: SampleSize | None = None
    #: the runs' simulated users differ (kind, model, prompt template or seed: run.json's
    #: ``user_simulator``), what differs; gates with this baseline fail, ``compare`` refuses
    #: unless told to go on (docs/users.md)
    user_mismatch: str | None = None

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


def _parts(
    r: CaseResult, modules: ModuleAcc | None = None, diagnosis: DiagnosisAcc | None = None
) -> tuple[float, ...]:
    """Numerator, denominator for each rate metric (RATE_METRICS order), then MEAN_METRICS,
    then each module verdict the result has (MODULE_VERDICTS: the run's module and diagnosis
    metrics' own per-result verdicts, cascade rule included, so the test pairs exactly what the
    summary counts; memory retention's are its checked turns; ``modules`` / ``diagnosis``
    None: those not measured) as (its index in MODULE_VERDICTS, successes, verdicts), only
    those it has: a result judged on one module rate carries three numbers, not thirty."""
    seen: dict[str, list[int]] = {}
    if modules is not None:
        modules.seen = seen
        modules.add(r)
    # a user_error (the simulated user broke its instructions) is neither the agent's pass nor
    # its failure nor its error: it counts in no rate
    user_error = r.status == "user_error"
    scored = r.status != "error" and not user_error
    passed = int(r.status == "passed")
    if not scored:
        sel = args = behaviour = (0, 0)
    else:
        verdict = tool_selection_verdict(r)
        selection = verdict[0] if verdict else None
        sel = (0, 0) if selection is None else (int(selection), 1)
        ok = argument_verdict(r, selection)
        args = (0, 0) if ok is None else (int(ok), 1)
        bv = behavior_verdict(r)
        wanted = bv is not None and bv[0] is not None and bv[1] != "tool_call"
        behaviour = (int(bool(bv and bv[0])), 1) if wanted else (0, 0)
        if diagnosis is not None:
            diagnosis.seen = seen
            diagnosis.add(r, selection)
    verdicts = [(_MODULE_INDEX[m], ok, n) for m, (ok, n) in seen.items()]
    multi = scored and is_multi_step(r)
    tokens = r.usage.input_tokens + r.usage.output_tokens
    return (
        *(passed, int(scored)),  # pass_rate
        *sel,  # tool_selection_accuracy
        *args,  # argument_accuracy
        *behaviour,  # behavior_accuracy
        *((passed, 1) if multi else (0, 0)),  # task_completion
        *((0, 0) if user_error else (int(not scored), 1)),  # error_rate
        *((r.latency_ms, 1) if r.latency_ms > 0 else (0, 0)),  # latency_ms
        *((tokens, 1) if r.usage_recorded else (0, 0)),  # tokens
        *((r.cost_usd, 1) if r.cost_usd is not None else (0, 0)),  # cost_usd
        *(x for v in verdicts for x in v),  # the module verdicts
    )


#: each module verdict's place in MODULE_VERDICTS (and in the metrics after _MODULE_START)
_MODULE_INDEX: Final = {m: i for i, m in enumerate(MODULE_VERDICTS)}


_METRICS = (
    [(m, "rate") for m in RATE_METRICS]
    + list(MEAN_METRICS)
    + [(m, "rate") for m in MODULE_VERDICTS]
)
_MODULE_START = len(_METRICS) - len(MODULE_VERDICTS)
#: the numbers of a record before its module verdicts
_HEAD = 2 * _MODULE_START


@dataclass(slots=True)
class _Case:
    """One case of one run, its trials folded together: all comparison needs of it."""

    trials: int = 0
    passed: int = 0
    #: per metric numerator and denominator summed over the trials (the order of _parts)
    sums: list[float] = field(default_factory=lambda: [0] * (2 * len(_METRICS)))
    category: str = ""
    #: the module verdicts its trials had, bit i for MODULE_VERDICTS[i] (the other module
    #: metrics' sums are 0)
    modules: int = 0
    #: first line of the last failing trial's explanation (of the first trial if all passed)
    explanation: str = ""

    def add(self, status: str, category: str, explanation: str, parts: list[float]) -> None:
        if status != "passed" or not self.trials:
            self.category, self.explanation = category, explanation
        self.trials += 1
        self.passed += status == "passed"
        sums = self.sums
        sums[:_HEAD] = map(operator.add, sums[:_HEAD], parts[:_HEAD])
        for k in range(_HEAD, len(parts), 3):  # (module index, successes, verdicts)
            i = int(parts[k])
            j = _HEAD + 2 * i
            sums[j] += parts[k + 1]
            sums[j + 1] += parts[k + 2]
            self.modules |= 1 << i

    @property
    def ok(self) -> bool:
        return self.passed == self.trials

    @property
    def tally(self) -> str:
        return f"{self.passed}/{self.trials}"


def _spill_run(spill: Spill, run_dir: Path, which: int, warnings: list[str]) -> None:
    """Every result of ``run_dir`` as a compact record keyed by its case id."""
    from ._files import module_acc

    modules, full = module_acc(run_dir, warnings)
    diagnosis = DiagnosisAcc()
    reader = iter_results if full else iter_light_results
    for r in reader(run_dir):
        first = r.explanation.splitlines()[0] if r.explanation else ""
        parts = _parts(r, modules, diagnosis)
        record = (which, r.case_id, r.status, r.category, first, *parts)
        spill.add(r.case_id, orjson.dumps(record))


def _group_cases(records: Iterator[bytes]) -> tuple[dict[str, _Case], dict[str, _Case]]:
    runs: tuple[dict[str, _Case], dict[str, _Case]] = ({}, {})
    for raw in records:
        which, cid, status, category, first, *parts = orjson.loads(raw)
        cases = runs[which]
        case = cases.get(cid)
        if case is None:
            case = cases[cid] = _Case()
        case.add(status, category, first, parts)
    return runs


@dataclass(slots=True)
class _Listed:
    """The ``LISTED`` smallest items seen (a bounded, deterministic excerpt of a long list)."""

    items: list[Any] = field(default_factory=list)

    def add(self, item: Any) -> None:
        self.items.append(item)
        if len(self.items) > 4 * LISTED:
            self.items = sorted(self.items)[:LISTED]

    def result(self) -> list[Any]:
        return sorted(self.items)[:LISTED]


@dataclass(slots=True)
class _Pairing:
    """What the comparison accumulates while it walks the paired cases, bucket by bucket."""

    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("fixed", "broken", "unchanged_pass", "unchanged_fail", "new", "removed"), 0
        )
    )
    fixed: _Listed = field(default_factory=_Listed)
    broken: _Listed = field(default_factory=_Listed)
    new_cases: _Listed = field(default_factory=_Listed)
    removed: _Listed = field(default_factory=_Listed)
    metrics: list[PairedStream] = field(default_factory=lambda: [PairedStream() for _ in _METRICS])
    #: per rate metric: cases all-success in new but not in base, and the reverse
    up: list[int] = field(default_factory=lambda: [0] * len(_METRICS))
    down: list[int] = field(default_factory=lambda: [0] * len(_METRICS))
    #: per metric: paired cases that measured it in the base run, and in the new run
    seen: list[list[int]] = field(default_factory=lambda: [[0, 0] for _ in _METRICS])

    def add_bucket(self, base: dict[str, _Case], new: dict[str, _Case]) -> None:
        counts = self.counts
        for cid, b in base.items():
            n = new.get(cid)
            if n is None:
                counts["removed"] += 1
                self.removed.add(cid)
                continue
            self._pair(cid, b, n)
        for cid in new:
            if cid not in base:
                counts["new"] += 1
                self.new_cases.add(cid)

    def _pair(self, cid: str, b: _Case, n: _Case) -> None:
        change: Change = (
            "unchanged_pass"
            if b.ok and n.ok
            else "unchanged_fail"
            if not (b.ok or n.ok)
            else "fixed"
            if n.ok
            else "broken"
        )
        self.counts[change] += 1
        if change == "fixed":
            self.fixed.add((cid, b.tally, n.tally, n.category, b.explanation))
        elif change == "broken":
            self.broken.add((cid, b.tally, n.tally, n.category, n.explanation))
        for i in range(_MODULE_START):
            self._metric(i, cid, b, n)
        modules = b.modules | n.modules  # only the module rates either case has a verdict on
        while modules:
            low = modules & -modules
            self._metric(_MODULE_START + low.bit_length() - 1, cid, b, n)
            modules ^= low

    def _metric(self, i: int, cid: str, b: _Case, n: _Case) -> None:
        bn, bd = b.sums[2 * i], b.sums[2 * i + 1]
        nn, nd = n.sums[2 * i], n.sums[2 * i + 1]
        self.seen[i][0] += bool(bd)
        self.seen[i][1] += bool(nd)
        if bd and nd:
            self.metrics[i].add(cid, (float(bn), float(bd), float(nn), float(nd)))
            self.up[i] += bn < bd and nn == nd
            self.down[i] += bn == bd and nn < nd


def _changes(rows: list[tuple[str, str, str, str, str]], change: Change) -> list[CaseChange]:
    return [
        CaseChange(case_id=cid, change=change, category=cat, base=b, new=n, explanation=explanation)
        for cid, b, n, cat, explanation in rows
    ]


def compare(
    base_run: Path,
    new_run: Path,
    *,
    confidence: float = 0.95,
    detect_points: float = 5.0,
    resamples: int = 1000,
    seed: int = 0,
) -> Comparison:
    """Compare two runs of the same suite case by case (see the module docstring).

    Streams both ``results.jsonl``: memory is bounded whatever the number of results (the
    per-case records are grouped by a hash of the case id in temporary bucket files past a few
    megabytes; docs/statistics.md#memory).
    """
    pairing = _Pairing()
    notes: list[str] = []
    with Spill() as spill:
        _spill_run(spill, Path(base_run), 0, notes)
        _spill_run(spill, Path(new_run), 1, notes)
        for records in spill.groups():
            pairing.add_bucket(*_group_cases(records))
    counts = pairing.counts
    p = mcnemar_exact(counts["fixed"], counts["broken"])

    deltas: list[MetricDelta] = []
    for i, (metric, unit) in enumerate(_METRICS):
        stream = pairing.metrics[i]
        if i >= _MODULE_START and not any(pairing.seen[i]):
            continue  # a module neither run measured: no row (the suite has no such labels)
        if not stream.n:
            deltas.append(MetricDelta(metric=metric, unit=unit, base=None, new=None, delta=None))
            continue
        ci = stream.interval(confidence=confidence, resamples=resamples, seed=seed + i)
        bn, bd, nn, nd = stream.totals()
        deltas.append(
            MetricDelta(
                metric=metric,
                unit=unit,
                base=bn / bd,
                new=nn / nd,
                delta=ci.value,
                low=ci.low,
                high=ci.high,
                n=stream.n,
                p_value=p
                if metric == "pass_rate"
                else mcnemar_exact(pairing.up[i], pairing.down[i])
                if unit == "rate"
                else None,
            )
        )
    paired = sum(counts[c] for c in ("fixed", "broken", "unchanged_pass", "unchanged_fail"))
    users = user_mismatch(Path(base_run), Path(new_run))
    return Comparison(
        warnings=[f"USER SIMULATORS DIFFER: {users}"] * bool(users)
        + _suite_warnings(Path(base_run), Path(new_run))
        + _unmeasured(pairing)
        + notes,
        user_mismatch=users,
        base_run=str(base_run),
        new_run=str(new_run),
        confidence=confidence,
        paired=paired,
        counts=counts,
        fixed=_changes(pairing.fixed.result(), "fixed"),
        broken=_changes(pairing.broken.result(), "broken"),
        new_cases=pairing.new_cases.result(),
        removed_cases=pairing.removed.result(),
        mcnemar_p=p,
        deltas=deltas,
        sample_size=_sample_size(counts, paired, deltas, detect_points, 1 - confidence),
    )


#: what each per-result mean is, for the note saying it could not be compared
_MEAN_WORDS = {"latency_ms": "latency", "tokens": "token usage", "cost_usd": "cost"}


def _unmeasured(pairing: _Pairing) -> list[str]:
    """A note for each per-result mean or module rate one run measured and the other did not
    (an agent that reports no token usage, or no route): it is not compared, and is never
    taken for 0."""
    out: list[str] = []
    for i, (metric, unit) in enumerate(_METRICS):
        base, new = pairing.seen[i]
        if (unit == "rate" and i < _MODULE_START) or pairing.metrics[i].n or not (base or new):
            continue
        what = _MEAN_WORDS.get(metric, metric.replace("_", " "))
        verb = "measured" if i >= _MODULE_START else "reported"
        if base and new:
            why = f"no shared case has {what} in both runs"
        else:
            why = f"the {'new' if base else 'base'} run {verb} no {what} on the shared cases"
        out.append(f"{metric}: not compared: {why} (unknown, not 0)")
    return out


def user_mismatch(base_run: Path, new_run: Path) -> str | None:
    """What differs between the two runs' simulated users (None: the same, or no run.json).

    The user simulator is part of what a result means: on τ²-bench's airline domain, changing
    only the user model moved one agent from about 50 % to 78 % pass^1."""
    from ..rundir import load_record as load_run

    base, new = load_run(base_run), load_run(new_run)
    if base is None or new is None or base.user_simulator == new.user_simulator:
        return None
    a, b = base.user_simulator, new.user_simulator
    shown_a = a.describe() if a is not None else "no simulated user"
    shown_b = b.describe() if b is not None else "no simulated user"
    return (
        f"{shown_a} (base) vs {shown_b} (new): their results measure the agent with different "
        "users, not the same agent twice"
    )


def _suite_warnings(base_run: Path, new_run: Path) -> list[str]:
    from ..rundir import load_record as load_run

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
