"""Every statistic against known values or an independent computation."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from agentgauge.metrics._stats import (
    binom_two_sided_p,
    bootstrap_mean,
    mcnemar_exact,
    normal_mean,
    paired_bootstrap,
    pass_at_k,
    pass_hat_k,
    percentile,
    sample_size_mcnemar,
    sample_size_two_proportions,
    wilson,
    z_value,
)

# Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
# method 3 (Wilson score interval without continuity correction), 95 %.
NEWCOMBE = [
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
]


@pytest.mark.parametrize(("k", "n", "low", "high"), NEWCOMBE)
def test_wilson_matches_newcombes_published_values(k: int, n: int, low: float, high: float) -> None:
    ci = wilson(k, n)
    assert ci.value == pytest.approx(k / n)
    assert ci.low == pytest.approx(low, abs=5e-5)
    assert ci.high == pytest.approx(high, abs=5e-5)


def test_wilson_edges() -> None:
    assert wilson(0, 0) == wilson(0, 0)
    assert (wilson(0, 0).low, wilson(0, 0).high) == (0.0, 1.0)
    full = wilson(10, 10)
    assert full.high == 1.0
    assert full.low == pytest.approx(1 - wilson(0, 10).high)
    # a 99 % interval is wider than a 95 % one
    assert wilson(5, 20, 0.99).low < wilson(5, 20).low
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_wilson_agrees_with_scipy_when_available() -> None:
    stats = pytest.importorskip("scipy.stats")
    for k, n in [(0, 5), (3, 7), (50, 60), (199, 200)]:
        ref = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        ci = wilson(k, n)
        assert ci.low == pytest.approx(ref.low, abs=1e-9)
        assert ci.high == pytest.approx(ref.high, abs=1e-9)


def test_z_value() -> None:
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.90) == pytest.approx(1.644854, abs=1e-6)


def _brute_pass_at_k(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """pass@k and pass^k by enumerating every k-subset of n trials (c of them passing)."""
    trials = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    any_pass = sum(any(trials[i] for i in s) for s in subsets)
    all_pass = sum(all(trials[i] for i in s) for s in subsets)
    return Fraction(any_pass, len(subsets)), Fraction(all_pass, len(subsets))


@pytest.mark.parametrize(("n", "c"), [(1, 0), (1, 1), (5, 2), (5, 5), (6, 1), (10, 7)])
def test_pass_at_k_and_pass_hat_k_match_enumeration(n: int, c: int) -> None:
    for k in range(1, n + 1):
        at, hat = _brute_pass_at_k(n, c, k)
        assert pass_at_k(n, c, k) == pytest.approx(float(at))
        assert pass_hat_k(n, c, k) == pytest.approx(float(hat))


def test_pass_at_k_known_values() -> None:
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)  # pass@1 is the plain pass rate
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)  # 1 - C(3,2)/C(5,2)
    assert pass_hat_k(5, 3, 2) == pytest.approx(0.3)  # C(3,2)/C(5,2)
    assert pass_hat_k(4, 4, 4) == 1.0
    assert pass_hat_k(4, 3, 4) == 0.0
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def _exact_binomial_p(k: int, n: int) -> float:
    """Independent two-sided exact binomial test at p = 1/2: the probability of every outcome
    no more likely than the observed one (the 'minimum likelihood' definition)."""
    if n == 0:
        return 1.0
    pmf = [Fraction(math.comb(n, i), 2**n) for i in range(n + 1)]
    return float(min(Fraction(1), sum(p for p in pmf if p <= pmf[k])))


@pytest.mark.parametrize(("fixed", "broken"), [(0, 0), (10, 2), (2, 10), (5, 5), (0, 7), (31, 12)])
def test_mcnemar_matches_exact_binomial(fixed: int, broken: int) -> None:
    assert mcnemar_exact(fixed, broken) == pytest.approx(_exact_binomial_p(fixed, fixed + broken))


def test_mcnemar_known_value_and_scipy() -> None:
    # 10 fixed vs 2 broken: 2 * (1 + 12 + 66) / 4096
    assert mcnemar_exact(10, 2) == pytest.approx(158 / 4096)
    stats = pytest.importorskip("scipy.stats")
    for k, n in [(3, 20), (40, 100), (1, 1)]:
        assert binom_two_sided_p(k, n) == pytest.approx(stats.binomtest(k, n, 0.5).pvalue)


def test_percentile_nearest_rank() -> None:
    vals = [15.0, 20.0, 35.0, 40.0, 50.0]
    assert percentile(vals, 5) == 15.0
    assert percentile(vals, 30) == 20.0
    assert percentile(vals, 40) == 20.0
    assert percentile(vals, 50) == 35.0
    assert percentile(vals, 100) == 50.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_bootstrap_mean_is_seeded_and_sensible() -> None:
    vals = [float(i % 7) for i in range(100)]
    a = bootstrap_mean(vals, seed=1)
    b = bootstrap_mean(vals, seed=1)
    assert a == b
    assert a.low < a.value < a.high
    # close to the normal interval for a sample this size
    mean = sum(vals) / len(vals)
    m2 = sum((v - mean) ** 2 for v in vals)
    normal = normal_mean(len(vals), mean, m2)
    assert a.low == pytest.approx(normal.low, abs=0.15)
    assert a.high == pytest.approx(normal.high, abs=0.15)
    const = bootstrap_mean([2.0] * 10)
    assert (const.low, const.value, const.high) == (2.0, 2.0, 2.0)


def test_paired_bootstrap() -> None:
    same = [(1.0, 1.0, 1.0, 1.0), (0.0, 1.0, 0.0, 1.0)] * 10
    ci = paired_bootstrap(same)
    assert (ci.value, ci.low, ci.high) == (0.0, 0.0, 0.0)
    better = [(0.0, 1.0, 1.0, 1.0)] * 5 + [(1.0, 1.0, 1.0, 1.0)] * 15
    ci = paired_bootstrap(better)
    assert ci.value == pytest.approx(0.25)
    assert 0 < ci.low <= 0.25 <= ci.high


def test_sample_size_two_proportions() -> None:
    # 50 % vs 60 %, alpha 0.05 two-sided, power 0.8: 387.3 -> 388 per group (Fleiss, no
    # continuity correction); the arcsine approximation 2((za+zb)/h)^2 gives ~387 too.
    assert sample_size_two_proportions(0.5, 0.6) == 388
    h = 2 * math.asin(math.sqrt(0.6)) - 2 * math.asin(math.sqrt(0.5))
    arcsine = 2 * ((1.959964 + 0.841621) / h) ** 2
    assert sample_size_two_proportions(0.5, 0.6) == pytest.approx(arcsine, rel=0.02)
    with pytest.raises(ValueError):
        sample_size_two_proportions(0.5, 0.5)


def test_sample_size_mcnemar() -> None:
    # 20 % fixed, 10 % broken: (1.96*sqrt(.3) + .8416*sqrt(.29))^2 / .01 = 233.1 -> 234
    assert sample_size_mcnemar(0.2, 0.1) == 234
    # few flips: pairing needs far fewer cases than two independent samples
    assert sample_size_mcnemar(0.06, 0.01) < sample_size_two_proportions(0.80, 0.85)
    with pytest.raises(ValueError):
        sample_size_mcnemar(0.1, 0.1)


def test_paired_bootstrap_and_delta_method_agree_on_a_large_sample() -> None:
    from agentgauge.metrics._stats import _paired_delta

    units = (
        [(0.0, 1.0, 1.0, 1.0)] * 40
        + [(1.0, 1.0, 0.0, 1.0)] * 15
        + [(1.0, 1.0, 1.0, 1.0)] * 300
        + [(0.0, 1.0, 0.0, 1.0)] * 45
    )
    boot = paired_bootstrap(units, seed=3)
    totals = [sum(u[j] for u in units) for j in range(4)]
    delta = _paired_delta(units, totals, boot.value, 0.95)
    assert boot.value == pytest.approx(25 / 400)
    assert boot.low == pytest.approx(delta.low, abs=0.01)
    assert boot.high == pytest.approx(delta.high, abs=0.01)
    # above the limit the delta method is used directly
    big = paired_bootstrap(units * 2)
    assert big.value == pytest.approx(25 / 400)
    assert big.high - big.low < boot.high - boot.low


def test_properties_hold_for_any_counts() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    st = hypothesis.strategies

    @hypothesis.given(st.integers(0, 500), st.integers(1, 500))
    @hypothesis.settings(max_examples=200, deadline=None)
    def wilson_contains_the_estimate(k: int, n: int) -> None:
        k = min(k, n)
        ci = wilson(k, n)
        assert 0.0 <= ci.low <= ci.value <= ci.high <= 1.0
        # symmetric: failures mirror successes
        mirror = wilson(n - k, n)
        assert ci.low == pytest.approx(1 - mirror.high, abs=1e-12)

    @hypothesis.given(st.integers(1, 30), st.integers(0, 30))
    @hypothesis.settings(max_examples=200, deadline=None)
    def pass_at_k_monotone(n: int, c: int) -> None:
        c = min(c, n)
        at = [pass_at_k(n, c, k) for k in range(1, n + 1)]
        hat = [pass_hat_k(n, c, k) for k in range(1, n + 1)]
        assert at == sorted(at)
        assert hat == sorted(hat, reverse=True)
        assert all(h <= a + 1e-12 for h, a in zip(hat, at, strict=True))
        assert at[0] == pytest.approx(c / n)

    wilson_contains_the_estimate()
    pass_at_k_monotone()
