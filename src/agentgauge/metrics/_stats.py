"""Statistics in pure Python: intervals, pass@k / pass^k, exact McNemar, bootstrap, sample sizes.

Every function here is deterministic (bootstraps take a seed) and has no dependency beyond the
standard library, so results are the same on every machine. docs/statistics.md explains each one.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import mul
from statistics import NormalDist

__all__ = [
    "Interval",
    "PairedStream",
    "binom_two_sided_p",
    "bootstrap_mean",
    "mcnemar_exact",
    "normal_mean",
    "paired_bootstrap",
    "pass_at_k",
    "pass_hat_k",
    "percentile",
    "sample_size_mcnemar",
    "sample_size_two_proportions",
    "wilson",
    "z_value",
]


@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with a two-sided confidence interval."""

    value: float
    low: float
    high: float


def z_value(confidence: float) -> float:
    """The two-sided standard normal quantile for ``confidence`` (1.959964 for 0.95)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(successes: int, n: int, confidence: float = 0.95) -> Interval:
    """Wilson score interval for a binomial proportion (Wilson 1927; Newcombe 1998, method 3).

    Unlike the textbook ``p ± z·sqrt(p(1-p)/n)`` it stays inside [0, 1] and keeps its coverage
    for small ``n`` and for rates near 0 or 1 (e.g. 0/10 gives [0, 0.278], not [0, 0]).
    ``n == 0`` gives the uninformative interval [0, 1] around 0.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got {successes}/{n}")
    if n == 0:
        return Interval(0.0, 0.0, 1.0)
    z = z_value(confidence)
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # clamp rounding noise; at p == 0 (or 1) the bound is exactly 0 (or 1)
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return Interval(p, low, high)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one case with ``c`` passes in ``n`` trials (Chen et al. 2021).

    The probability that at least one of ``k`` trials drawn without replacement passes:
    ``1 - C(n-c, k) / C(n, k)``.
    """
    _check_nck(n, c, k)
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Unbiased pass^k for one case: the probability that all ``k`` drawn trials pass.

    ``C(c, k) / C(n, k)`` (the estimator tau-bench reports); with ``k == n`` this is 1 when
    every trial passed, else 0.
    """
    _check_nck(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check_nck(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")


#: up to this many trials the binomial tail is summed in exact integers; above, in floats
EXACT_BINOMIAL_LIMIT = 1000


def binom_two_sided_p(k: int, n: int) -> float:
    """Exact two-sided p-value of ``k`` successes in ``n`` fair coin flips (p = 1/2).

    Doubles the smaller tail and caps at 1, the usual definition for the symmetric case.
    Up to :data:`EXACT_BINOMIAL_LIMIT` flips the tail is an exact integer sum; above, the
    terms ``C(n, i) / 2^n`` are summed in floating point from the largest one down (each the
    previous times ``i / (n - i + 1)``) until they no longer change the sum: the same value to
    about 1e-9 relative, in time that does not grow with ``n`` the way big-integer binomial
    coefficients do (a million cases flip tens of thousands of times). A p-value below about
    1e-300 is 0.0.
    """
    if n == 0:
        return 1.0
    k = min(k, n - k)
    if n <= EXACT_BINOMIAL_LIMIT:
        tail = sum(math.comb(n, i) for i in range(k + 1))
        # exact integer arithmetic until the last division keeps large n accurate
        return min(1.0, float(2 * tail / 2**n))
    log_top = math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2)
    term = total = 1.0  # terms relative to the largest one, C(n, k) / 2^n
    for i in range(k, 0, -1):
        term *= i / (n - i + 1)
        total += term
        if term < total * 1e-17:
            break
    log_p = math.log(2) + log_top + math.log(total)
    return 0.0 if log_p < -745 else min(1.0, math.exp(log_p))


def mcnemar_exact(fixed: int, broken: int) -> float:
    """Exact McNemar test on the discordant pairs of a paired comparison.

    ``fixed`` are pairs that failed before and pass now, ``broken`` the reverse. Under the null
    hypothesis (no change) each discordant pair is equally likely to go either way, so the
    p-value is a two-sided binomial test of ``fixed`` out of ``fixed + broken`` at p = 1/2.
    Concordant pairs (unchanged) carry no information about the difference.
    """
    if fixed < 0 or broken < 0:
        raise ValueError("counts must be non-negative")
    return binom_two_sided_p(fixed, fixed + broken)


def percentile(sorted_values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in [0, 100]) of already sorted values.

    Nearest rank returns an observed value (p95 of latencies is a latency some case really had).
    """
    if not sorted_values:
        raise ValueError("percentile of no values")
    if q <= 0:
        return sorted_values[0]
    rank = math.ceil(q / 100 * len(sorted_values))
    return sorted_values[min(len(sorted_values), max(1, rank)) - 1]


def bootstrap_mean(
    values: Sequence[float],
    *,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> Interval:
    """Percentile bootstrap interval for the mean of ``values`` (seeded, so reproducible)."""
    n = len(values)
    if n == 0:
        return Interval(0.0, 0.0, 0.0)
    mean = math.fsum(values) / n
    if n == 1:
        return Interval(mean, mean, mean)
    rng = random.Random(seed)
    vals = list(values)
    means = sorted(math.fsum(rng.choices(vals, k=n)) / n for _ in range(resamples))
    alpha = (1 - confidence) / 2
    return Interval(mean, _quantile(means, alpha), _quantile(means, 1 - alpha))


#: above this many units, paired intervals use the delta method instead of resampling
PAIRED_BOOTSTRAP_LIMIT = 500

Unit = tuple[float, float, float, float]


def _ratio_diff(sums: Sequence[float]) -> float:
    bn, bd, nn, nd = sums
    return (nn / nd if nd else 0.0) - (bn / bd if bd else 0.0)


def paired_bootstrap(
    units: Sequence[Unit],
    *,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> Interval:
    """Interval for a difference of two ratio metrics over the same units (cases).

    Each unit is ``(base_num, base_den, new_num, new_den)``; the metric of a run is
    ``sum(num) / sum(den)`` and the statistic is ``new - base``. Units are resampled whole, so the
    pairing (same case in both runs, all its trials together) is kept. Identical units are
    resampled as one type with a count, which keeps this fast: cases of a binary metric come in
    a handful of types. Above :data:`PAIRED_BOOTSTRAP_LIMIT` units the delta-method normal
    interval is used, which the bootstrap approaches at that size.
    """
    n = len(units)
    totals = [math.fsum(u[j] for u in units) for j in range(4)]
    point = _ratio_diff(totals)
    if n < 2:
        return Interval(point, point, point)
    if n > PAIRED_BOOTSTRAP_LIMIT:
        return _paired_delta(units, totals, point, confidence)
    kinds: dict[Unit, int] = {}
    for u in units:
        kinds[u] = kinds.get(u, 0) + 1
    types = list(kinds)
    cum: list[int] = []
    running = 0
    for t in types:
        running += kinds[t]
        cum.append(running)
    rng = random.Random(seed)
    index = range(len(types))
    stats: list[float] = []
    for _ in range(resamples):
        counts = [0] * len(types)
        for i in rng.choices(index, cum_weights=cum, k=n):
            counts[i] += 1
        sums = [math.fsum(c * t[j] for c, t in zip(counts, types, strict=True)) for j in range(4)]
        stats.append(_ratio_diff(sums))
    stats.sort()
    alpha = (1 - confidence) / 2
    return Interval(point, _quantile(stats, alpha), _quantile(stats, 1 - alpha))


def _paired_delta(
    units: Sequence[Unit], totals: Sequence[float], point: float, confidence: float
) -> Interval:
    """Delta-method interval for ``sum(nn)/sum(nd) - sum(bn)/sum(bd)`` over paired units."""
    n = len(units)
    bn, bd, nn, nd = totals
    if not bd or not nd:
        return Interval(point, point, point)
    rb, rn = bn / bd, nn / nd
    mb, mn = bd / n, nd / n
    # each unit's influence on the difference of the two ratios
    z = [(u[2] - rn * u[3]) / mn - (u[0] - rb * u[1]) / mb for u in units]
    mean_z = math.fsum(z) / n
    var = math.fsum((x - mean_z) ** 2 for x in z) / (n - 1) / n
    half = z_value(confidence) * math.sqrt(var)
    return Interval(point, point - half, point + half)


@dataclass(slots=True)
class PairedStream:
    """:func:`paired_bootstrap` over units that arrive one at a time, in bounded memory.

    Up to :data:`PAIRED_BOOTSTRAP_LIMIT` units are kept with their keys (case ids), so the
    interval is exactly ``paired_bootstrap`` of the units in key order. Beyond that the interval
    is the delta method, which needs only the four sums and the 4 × 4 co-moment matrix of the
    units: they are accumulated a batch at a time (Chan, Golub and LeVeque's pairwise update), so
    memory stays at one batch whatever the number of units, and the interval equals
    ``_paired_delta`` of all units up to rounding (docs/statistics.md#memory).
    """

    batch: int = 1024
    n: int = 0
    first: list[tuple[str, Unit]] | None = field(default_factory=list)
    pending: list[Unit] = field(default_factory=list)
    mean: list[float] = field(default_factory=lambda: [0.0] * 4)
    #: co-moments sum((u_j - mean_j)(u_k - mean_k)) for j <= k, row by row
    comoment: list[float] = field(default_factory=lambda: [0.0] * 10)
    #: compensated running sums of each unit component (value, correction)
    sums: list[tuple[float, float]] = field(default_factory=lambda: [(0.0, 0.0)] * 4)
    folded: int = 0

    def add(self, key: str, unit: Unit) -> None:
        self.n += 1
        if self.first is not None:
            if len(self.first) < PAIRED_BOOTSTRAP_LIMIT:
                self.first.append((key, unit))
            else:
                self.first = None
        self.pending.append(unit)
        if len(self.pending) >= self.batch:
            self._fold()

    def _fold(self) -> None:
        m = len(self.pending)
        if not m:
            return
        cols = list(zip(*self.pending, strict=True))
        self.pending = []
        bsum = [math.fsum(c) for c in cols]
        bmean = [s / m for s in bsum]
        centred = [[x - mu for x in c] for c, mu in zip(cols, bmean, strict=True)]
        na = self.folded
        total = na + m
        delta = [b - a for a, b in zip(self.mean, bmean, strict=True)]
        w = na * m / total
        idx = 0
        for j in range(4):
            for k in range(j, 4):
                own = math.fsum(map(mul, centred[j], centred[k]))
                self.comoment[idx] += own + delta[j] * delta[k] * w
                idx += 1
        self.mean = [a + d * m / total for a, d in zip(self.mean, delta, strict=True)]
        self.folded = total
        for j, s in enumerate(bsum):
            value, comp = self.sums[j]
            t = value + s
            # Neumaier: keep the low-order part lost by the addition
            comp += (value - t) + s if abs(value) >= abs(s) else (s - t) + value
            self.sums[j] = (t, comp)

    def totals(self) -> tuple[float, float, float, float]:
        """The sums of each unit component (base_num, base_den, new_num, new_den)."""
        if self.first is not None:
            units = self.units()
            return (
                sum(u[0] for u in units),
                sum(u[1] for u in units),
                sum(u[2] for u in units),
                sum(u[3] for u in units),
            )
        self._fold()
        a, b, c, d = (v + comp for v, comp in self.sums)
        return a, b, c, d

    def units(self) -> list[Unit]:
        """The kept units in key order (only while there are few enough to keep)."""
        if self.first is None:
            raise ValueError("too many units were added to keep them")
        return [u for _, u in sorted(self.first, key=lambda ku: ku[0])]

    def interval(
        self, *, confidence: float = 0.95, resamples: int = 1000, seed: int = 0
    ) -> Interval:
        if self.first is not None:
            return paired_bootstrap(
                self.units(), confidence=confidence, resamples=resamples, seed=seed
            )
        bn, bd, nn, nd = totals = self.totals()
        point = _ratio_diff(totals)
        n = self.n
        if not bd or not nd:
            return Interval(point, point, point)
        rb, rn = bn / bd, nn / nd
        mb, mn = bd / n, nd / n
        # each unit's influence on the difference is c . unit (see _paired_delta)
        c = (-1 / mb, rb / mb, 1 / mn, -rn / mn)
        q = 0.0
        idx = 0
        for j in range(4):
            for k in range(j, 4):
                q += (1 if j == k else 2) * c[j] * c[k] * self.comoment[idx]
                idx += 1
        half = z_value(confidence) * math.sqrt(max(q, 0.0) / (n - 1) / n)
        return Interval(point, point - half, point + half)


def _quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear-interpolation quantile (``q`` in [0, 1]) used for bootstrap percentiles."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def normal_mean(n: int, mean: float, m2: float, confidence: float = 0.95) -> Interval:
    """Normal-approximation interval for a mean from streaming moments (Welford's ``m2``).

    Used instead of the bootstrap when a slice is too large to keep its values; at such sizes
    the central limit theorem makes the two agree closely.
    """
    if n < 2:
        return Interval(mean, mean, mean)
    sd = math.sqrt(m2 / (n - 1))
    half = z_value(confidence) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)


def sample_size_two_proportions(
    p1: float, p2: float, *, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Cases per run needed to detect ``p1`` vs ``p2`` with two independent samples.

    The classic normal-approximation formula (Fleiss) for a two-sided test:
    ``n = (z_a·sqrt(2·pbar·qbar) + z_b·sqrt(p1·q1 + p2·q2))² / (p1 - p2)²``.
    """
    _check_sizes(p1, p2, alpha, power)
    za = z_value(1 - alpha)
    zb = NormalDist().inv_cdf(power)
    pbar = (p1 + p2) / 2
    num = za * math.sqrt(2 * pbar * (1 - pbar)) + zb * math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))
    return math.ceil(num * num / (p1 - p2) ** 2)


def sample_size_mcnemar(
    p_fixed: float, p_broken: float, *, alpha: float = 0.05, power: float = 0.8
) -> int:
    """Paired cases needed to detect a change with McNemar's test (Connor 1987).

    ``p_fixed`` and ``p_broken`` are the expected fractions of cases that flip fail->pass and
    pass->fail; the detectable difference is ``p_fixed - p_broken`` and the discordant fraction
    ``p_fixed + p_broken``:
    ``n = (z_a·sqrt(pd) + z_b·sqrt(pd - d²))² / d²``.
    Paired designs need far fewer cases than independent samples when few cases flip.
    """
    d = p_fixed - p_broken
    pd = p_fixed + p_broken
    if not (0 <= p_fixed <= 1 and 0 <= p_broken <= 1 and pd <= 1) or d == 0:
        raise ValueError(
            "need 0 <= p_fixed, p_broken, p_fixed + p_broken <= 1 and a nonzero change"
        )
    _check_alpha_power(alpha, power)
    za = z_value(1 - alpha)
    zb = NormalDist().inv_cdf(power)
    num = za * math.sqrt(pd) + zb * math.sqrt(max(pd - d * d, 0.0))
    return math.ceil(num * num / (d * d))


def _check_sizes(p1: float, p2: float, alpha: float, power: float) -> None:
    if not (0 <= p1 <= 1 and 0 <= p2 <= 1) or p1 == p2:
        raise ValueError("need two different proportions in [0, 1]")
    _check_alpha_power(alpha, power)


def _check_alpha_power(alpha: float, power: float) -> None:
    if not (0 < alpha < 1 and 0 < power < 1):
        raise ValueError("alpha and power must be in (0, 1)")
