"""Streaming accumulators: counters whose memory grows with the number of slices, not cases."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import orjson

from ._model import Latency, Mean, Rate, Slice
from ._spill import Spill
from ._stats import bootstrap_mean, normal_mean, percentile, wilson

#: latencies kept exactly per slice; beyond this they go to a 1 % histogram (docs/metrics.md#memory)
EXACT_LIMIT = 2000
#: values kept for a bootstrap interval of a mean; beyond this the normal interval is used
BOOTSTRAP_LIMIT = 500
#: relative width of a latency histogram bucket (1 %)
_BUCKET_RATIO = 1.01
_LOG_RATIO = math.log(_BUCKET_RATIO)


@dataclass(slots=True)
class RateAcc:
    """A rate added one verdict at a time (``None``: skipped)."""

    passed: int = 0
    n: int = 0
    skipped: int = 0

    def add(self, ok: bool | None) -> None:
        if ok is None:
            self.skipped += 1
        else:
            self.n += 1
            self.passed += ok

    def build(self, confidence: float) -> Rate:
        if self.n == 0:
            return Rate(skipped=self.skipped)
        ci = wilson(self.passed, self.n, confidence)
        return Rate(
            passed=self.passed,
            n=self.n,
            value=ci.value,
            low=ci.low,
            high=ci.high,
            skipped=self.skipped,
        )


@dataclass(slots=True)
class MeanAcc:
    """Welford moments, plus the values themselves while there are few enough to bootstrap."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0
    total: float = 0.0
    values: list[float] | None = field(default_factory=list)

    def add(self, x: float) -> None:
        self.n += 1
        self.total += x
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)
        if self.values is not None:
            if len(self.values) < BOOTSTRAP_LIMIT:
                self.values.append(x)
            else:
                self.values = None

    def build(self, confidence: float, seed: int = 0) -> Mean:
        if self.n == 0:
            return Mean()
        if self.values is not None:
            ci = bootstrap_mean(self.values, confidence=confidence, seed=seed)
        else:
            ci = normal_mean(self.n, self.mean, self.m2, confidence)
        return Mean(n=self.n, mean=ci.value, low=ci.low, high=ci.high, total=self.total)


@dataclass(slots=True)
class LatencyAcc:
    """Exact values up to :data:`EXACT_LIMIT`, then a 1 %-wide log histogram (bounded memory)."""

    n: int = 0
    total: float = 0.0
    maximum: float = 0.0
    values: list[float] | None = field(default_factory=list)
    buckets: dict[int, int] = field(default_factory=dict)

    def add(self, ms: float) -> None:
        self.n += 1
        self.total += ms
        self.maximum = max(self.maximum, ms)
        if self.values is not None:
            self.values.append(ms)
            if len(self.values) > EXACT_LIMIT:
                for v in self.values:
                    self._bucket(v)
                self.values = None
        else:
            self._bucket(ms)

    def _bucket(self, ms: float) -> None:
        key = -1 if ms <= 0.001 else math.floor(math.log(ms) / _LOG_RATIO)
        self.buckets[key] = self.buckets.get(key, 0) + 1

    def _hist_percentile(self, q: float) -> float:
        rank = max(1, math.ceil(q / 100 * self.n))
        seen = 0
        for key in sorted(self.buckets):
            seen += self.buckets[key]
            if seen >= rank:
                if key < 0:
                    return 0.0
                # geometric middle of the bucket, never above the true maximum
                return min(self.maximum, float(_BUCKET_RATIO ** (key + 0.5)))
        return self.maximum

    def build(self) -> Latency:
        if self.n == 0:
            return Latency()
        if self.values is not None:
            vals = sorted(self.values)
            p50, p90, p95 = (percentile(vals, q) for q in (50, 90, 95))
            approx = False
        else:
            p50, p90, p95 = (self._hist_percentile(q) for q in (50, 90, 95))
            approx = True
        return Latency(
            n=self.n,
            p50=p50,
            p90=p90,
            p95=p95,
            max=self.maximum,
            mean=self.total / self.n,
            approximate=approx,
        )


@dataclass(slots=True)
class SliceAcc:
    """One slice's counts (all results, a category, a tag ...), added one result at a time."""

    results: int = 0
    errors: int = 0
    #: results whose simulated user broke its instructions: in no rate of the agent's
    user_errors: int = 0
    passed: int = 0
    score_sum: float = 0.0
    latency: LatencyAcc = field(default_factory=LatencyAcc)
    #: scored results that check the world's state: whether they reached the goal
    goal: RateAcc = field(default_factory=RateAcc)

    def add(self, status: str, score: float, latency_ms: float, goal: bool | None = None) -> None:
        self.results += 1
        if status == "error":
            self.errors += 1
        elif status == "user_error":
            self.user_errors += 1
        else:
            self.passed += status == "passed"
            self.score_sum += score
            if goal is not None:
                self.goal.add(goal)
        if latency_ms > 0:
            self.latency.add(latency_ms)

    def build(self, confidence: float) -> Slice:
        scored = self.results - self.errors - self.user_errors
        agent = self.results - self.user_errors
        return Slice(
            results=self.results,
            pass_rate=RateAcc(self.passed, scored).build(confidence),
            error_rate=RateAcc(self.errors, agent).build(confidence),
            user_errors=self.user_errors,
            user_error_rate=RateAcc(self.user_errors, self.results).build(confidence),
            mean_score=self.score_sum / scored if scored else None,
            latency=self.latency.build(),
            goal_completion=self.goal.build(confidence),
        )


#: cases whose (trials, passes) are held in a dict before they are handed to a :class:`Spill`
CASES_HELD = 50_000


@dataclass(slots=True)
class CaseTrials:
    """What pass@k and flakiness need, once every case's trials are counted."""

    cases: int = 0
    #: (trials, passes) -> how many cases had exactly that
    histogram: Counter[tuple[int, int]] = field(default_factory=Counter)
    flaky: int = 0
    #: the ``kept`` smallest ids of flaky cases, sorted
    flaky_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class CaseTrialsAcc:
    """(trials, passes) per case in bounded memory, whatever the number of cases.

    Up to ``held`` cases are counted in a dict; past that the dict's counts go to a
    :class:`Spill` (bucket files by a hash of the case id) and a new dict starts. The spilled
    counts of a case are added up bucket by bucket at the end.
    """

    kept: int
    held: int = field(default_factory=lambda: CASES_HELD)
    counts: dict[str, list[int]] = field(default_factory=dict)
    spill: Spill | None = None

    def add(self, case_id: str, passed: bool) -> None:
        c = self.counts.get(case_id)
        if c is None:
            if len(self.counts) >= self.held:
                self._flush()
            c = self.counts[case_id] = [0, 0]
        c[0] += 1
        c[1] += passed

    def _flush(self) -> None:
        if self.spill is None:
            self.spill = Spill()
        for cid, (n, c) in self.counts.items():
            self.spill.add(cid, orjson.dumps((cid, n, c)))
        self.counts = {}

    def finish(self) -> CaseTrials:
        out = CaseTrials()
        flaky: list[str] = []
        if self.spill is None:
            self._fold(self.counts, out, flaky)
        else:
            self._flush()
            for records in self.spill.groups():
                group: dict[str, list[int]] = {}
                for raw in records:
                    cid, n, c = orjson.loads(raw)
                    seen = group.get(cid)
                    if seen is None:
                        group[cid] = [n, c]
                    else:
                        seen[0] += n
                        seen[1] += c
                self._fold(group, out, flaky)
                flaky = sorted(flaky)[: self.kept]
            self.close()
        out.flaky_ids = sorted(flaky)[: self.kept]
        return out

    def _fold(self, group: dict[str, list[int]], out: CaseTrials, flaky: list[str]) -> None:
        out.cases += len(group)
        for cid, (n, c) in group.items():
            out.histogram[(n, c)] += 1
            if 0 < c < n:
                out.flaky += 1
                flaky.append(cid)
                if len(flaky) > 4 * self.kept:
                    flaky[:] = sorted(flaky)[: self.kept]

    def close(self) -> None:
        if self.spill is not None:
            self.spill.close()
            self.spill = None
