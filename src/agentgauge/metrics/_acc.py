"""Streaming accumulators: counters whose memory grows with the number of slices, not cases."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ._model import Latency, Mean, Rate, Slice
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
    results: int = 0
    errors: int = 0
    passed: int = 0
    score_sum: float = 0.0
    latency: LatencyAcc = field(default_factory=LatencyAcc)

    def add(self, status: str, score: float, latency_ms: float) -> None:
        self.results += 1
        if status == "error":
            self.errors += 1
        else:
            self.passed += status == "passed"
            self.score_sum += score
        if latency_ms > 0:
            self.latency.add(latency_ms)

    def build(self, confidence: float) -> Slice:
        scored = self.results - self.errors
        return Slice(
            results=self.results,
            pass_rate=RateAcc(self.passed, scored).build(confidence),
            error_rate=RateAcc(self.errors, self.results).build(confidence),
            mean_score=self.score_sum / scored if scored else None,
            latency=self.latency.build(),
        )
