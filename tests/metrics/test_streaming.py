"""Comparisons and summaries in bounded memory: spilled results mean what in-memory ones mean."""

from __future__ import annotations

import random
import tracemalloc
from pathlib import Path

import orjson
import pytest

from agentgauge.io import iter_light_results
from agentgauge.metrics import _acc, _spill, compare, summarize_results
from agentgauge.metrics._compare import LISTED, _parts
from agentgauge.metrics._spill import Spill
from agentgauge.metrics._stats import (
    PAIRED_BOOTSTRAP_LIMIT,
    PairedStream,
    _paired_delta,
    paired_bootstrap,
)
from agentgauge.schema import CaseResult, Usage

STATUSES = ("passed", "failed", "error")


def _result(cid: str, trial: int, status: str, rng: random.Random) -> CaseResult:
    return CaseResult(
        case_id=cid,
        trial=trial,
        status=status,  # type: ignore[arg-type]
        category=("a", "b", "c")[len(cid) % 3],
        explanation="" if status == "passed" else f"tool_selection: {cid} went wrong\nmore",
        latency_ms=rng.uniform(50, 900),
        usage=Usage(input_tokens=rng.randint(10, 90), output_tokens=rng.randint(1, 30)),
        cost_usd=rng.choice([None, 0.001, 0.002]),
    )


def _runs(
    root: Path, cases: int, trials: int, *, seed: int = 0, shuffle: bool = True
) -> tuple[Path, Path]:
    """Two runs of ``cases`` cases: some removed, some new, many flipped, lines shuffled."""
    rng = random.Random(seed)
    dirs = []
    for which in ("base", "new"):
        rows = []
        for i in range(cases):
            if (which == "base" and i % 17 == 3) or (which == "new" and i % 19 == 5):
                continue  # new and removed cases
            weights = (6, 3, 1) if which == "base" else (7, 2, 1)
            for t in range(trials):
                status = rng.choices(STATUSES, weights=weights)[0]
                rows.append(_result(f"case-{i:05d}", t, status, rng))
        if shuffle:
            rng.shuffle(rows)
        d = root / which
        d.mkdir(parents=True)
        with open(d / "results.jsonl", "wb") as fh:
            for r in rows:
                fh.write(orjson.dumps(r.model_dump(mode="json")) + b"\n")
        dirs.append(d)
    return dirs[0], dirs[1]


def _reference(base_dir: Path, new_dir: Path) -> dict[str, object]:
    """The comparison computed with every case in memory, the obvious way."""
    runs: list[dict[str, list[CaseResult]]] = [{}, {}]
    for run, d in zip(runs, (base_dir, new_dir), strict=True):
        for r in iter_light_results(d):
            run.setdefault(r.case_id, []).append(r)
    base, new = runs
    shared = sorted(set(base) & set(new))

    def ok(rs: list[CaseResult]) -> bool:
        return all(r.status == "passed" for r in rs)

    fixed = [c for c in shared if not ok(base[c]) and ok(new[c])]
    broken = [c for c in shared if ok(base[c]) and not ok(new[c])]
    units = []
    for c in shared:
        b = [sum(_parts(r)[j] for r in base[c]) for j in (0, 1)]
        n = [sum(_parts(r)[j] for r in new[c]) for j in (0, 1)]
        if b[1] and n[1]:
            units.append((float(b[0]), float(b[1]), float(n[0]), float(n[1])))
    return {
        "fixed": fixed,
        "broken": broken,
        "new": sorted(set(new) - set(base)),
        "removed": sorted(set(base) - set(new)),
        "units": units,
        "paired": len(shared),
    }


# --- the spill -------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [1 << 20, 2000, 400])
def test_spill_groups_each_keys_records_together_in_order(budget: int) -> None:
    rng = random.Random(1)
    keys = [f"k{i}" for i in range(400)]
    added: dict[str, list[bytes]] = {}
    with Spill(memory_bytes=budget) as spill:
        for i in range(2000):
            k = rng.choice(keys)
            rec = orjson.dumps((k, i))
            added.setdefault(k, []).append(rec)
            spill.add(k, rec)
        assert spill.spilled == (budget < 1 << 20)
        root = Path(spill._tmp.name) if spill._tmp is not None else None
        seen: dict[str, list[bytes]] = {}
        groups = 0
        for group in spill.groups():
            groups += 1
            keys_here = set()
            for rec in group:
                k = orjson.loads(rec)[0]
                assert k not in seen or k in keys_here, f"{k} is split over two groups"
                keys_here.add(k)
                seen.setdefault(k, []).append(rec)
    assert seen == added  # nothing lost, nothing doubled, order kept per key
    if budget == 400:
        assert groups > 64  # buckets larger than the budget were split again
    if root is not None:
        assert not root.exists()  # the temporary folder is gone


def test_spill_keeps_a_key_too_large_to_split_whole() -> None:
    with Spill(memory_bytes=100) as spill:
        for i in range(500):
            spill.add("one", b"%d" % i)
        groups = [list(g) for g in spill.groups()]
    assert groups == [[b"%d" % i for i in range(500)]]


# --- the paired interval ---------------------------------------------------------------------


def test_paired_stream_is_the_bootstrap_in_key_order_whatever_the_arrival() -> None:
    rng = random.Random(2)
    units = [
        (float(rng.random() < 0.7), 1.0, float(rng.random() < 0.8), 1.0)
        for _ in range(PAIRED_BOOTSTRAP_LIMIT)
    ]
    keyed = [(f"c{i:04d}", u) for i, u in enumerate(units)]
    rng.shuffle(keyed)
    stream = PairedStream()
    for k, u in keyed:
        stream.add(k, u)
    assert stream.interval(seed=4) == paired_bootstrap(units, seed=4)
    assert stream.totals() == tuple(sum(u[j] for u in units) for j in range(4))


@pytest.mark.parametrize(("n", "batch"), [(PAIRED_BOOTSTRAP_LIMIT + 1, 4096), (5000, 7)])
def test_paired_stream_beyond_the_limit_is_the_delta_method(n: int, batch: int) -> None:
    rng = random.Random(3)
    # latency-like units: large values with a small spread (where naive moments lose digits)
    units = [
        (1e6 + rng.random() * 10, float(rng.randint(1, 3)), 1e6 + rng.random() * 12, 2.0)
        for _ in range(n)
    ]
    stream = PairedStream(batch=batch)
    for i, u in enumerate(units):
        stream.add(str(i), u)
    totals = [sum(u[j] for u in units) for j in range(4)]
    want = _paired_delta(units, totals, paired_bootstrap(units).value, 0.95)
    got = stream.interval()
    assert got.value == pytest.approx(want.value, rel=1e-12)
    assert got.high - got.value == pytest.approx(want.high - want.value, rel=1e-9)
    assert got.low == pytest.approx(want.low, rel=1e-12)


# --- compare ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cases", "trials", "budget"),
    [(300, 2, 700), (1200, 1, 20_000)],  # buckets split again; buckets read whole
)
def test_spilled_compare_equals_in_memory_and_the_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cases: int, trials: int, budget: int
) -> None:
    base, new = _runs(tmp_path, cases, trials)
    held = compare(base, new)
    monkeypatch.setattr(_spill, "MEMORY_BYTES", budget)
    spilled = compare(base, new)
    assert spilled == held

    ref = _reference(base, new)
    assert spilled.paired == ref["paired"]
    assert [c.case_id for c in spilled.fixed] == ref["fixed"][:LISTED]  # type: ignore[index]
    assert [c.case_id for c in spilled.broken] == ref["broken"][:LISTED]  # type: ignore[index]
    assert spilled.counts["fixed"] == len(ref["fixed"])  # type: ignore[arg-type]
    assert spilled.counts["broken"] == len(ref["broken"])  # type: ignore[arg-type]
    assert spilled.new_cases == ref["new"][:LISTED]  # type: ignore[index]
    assert spilled.removed_cases == ref["removed"][:LISTED]  # type: ignore[index]
    assert spilled.counts["removed"] == len(ref["removed"])  # type: ignore[arg-type]
    units: list[tuple[float, float, float, float]] = ref["units"]  # type: ignore[assignment]
    pr = spilled.delta("pass_rate")
    assert pr is not None
    want = paired_bootstrap(units, seed=0)
    assert pr.n == len(units)
    assert (pr.delta, pr.low, pr.high) == pytest.approx((want.value, want.low, want.high))
    # a broken case's explanation comes from the new run's failing trial
    if spilled.broken:
        assert spilled.broken[0].explanation.startswith("tool_selection:")


def test_compare_lists_the_smallest_ids_when_more_changed_than_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    for which, status in (("base", "passed"), ("new", "failed")):
        d = tmp_path / which
        d.mkdir()
        ids = [f"c{i:04d}" for i in range(3 * LISTED)]
        rng.shuffle(ids)
        with open(d / "results.jsonl", "wb") as fh:
            for cid in ids:
                r = _result(cid, 0, status, rng)
                fh.write(orjson.dumps(r.model_dump(mode="json")) + b"\n")
    monkeypatch.setattr(_spill, "MEMORY_BYTES", 1000)
    cmp = compare(tmp_path / "base", tmp_path / "new")
    assert cmp.counts["broken"] == 3 * LISTED
    assert [c.case_id for c in cmp.broken] == [f"c{i:04d}" for i in range(LISTED)]
    assert all(c.base == "1/1" and c.new == "0/1" for c in cmp.broken)
    assert cmp.mcnemar_p < 1e-10


def test_compare_memory_does_not_grow_with_the_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_spill, "MEMORY_BYTES", 128 << 10)

    def peak(cases: int) -> int:
        base, new = _runs(tmp_path / str(cases), cases, 1, shuffle=False)
        tracemalloc.start()
        try:
            compare(base, new)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    # past 1,500 cases every buffer has reached its cap (500 units kept for the exact bootstrap
    # and a batch of 1,024 per metric, 4 x LISTED changed ids, one bucket of records)
    peak(200)  # first-call allocations (caches, lazy imports) out of the way
    small, large = peak(1500), peak(6000)
    # holding per-case state (the old design) took > 1.5 KB per case: > 9 MB for 6,000
    assert large < 3 << 20
    assert large < small + (1 << 20)  # the old design: + 7 MB


# --- summary ---------------------------------------------------------------------------------


def test_spilled_case_trials_equal_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(6)
    rows = [
        _result(f"c{i:04d}", t, rng.choices(STATUSES, weights=(5, 4, 1))[0], rng)
        for t in range(3)
        for i in range(900)
    ]
    rng.shuffle(rows)
    rows += [_result("late", 0, "passed", rng)]  # a case with fewer trials sets k_max
    held = summarize_results(rows)
    monkeypatch.setattr(_acc, "CASES_HELD", 50)
    monkeypatch.setattr(_spill, "MEMORY_BYTES", 3000)
    acc = _acc.CaseTrialsAcc(kept=50)
    for r in rows:
        acc.add(r.case_id, r.status == "passed")
    assert acc.spill is not None  # the test really spills
    assert acc.spill.spilled
    counted = acc.finish()
    spilled = summarize_results(rows)
    assert spilled.trials == held.trials
    assert spilled.cases == held.cases == counted.cases == 901
    t = spilled.trials
    assert t.trials == 1
    trials: dict[str, list[int]] = {}
    for r in rows:
        n_c = trials.setdefault(r.case_id, [0, 0])
        n_c[0] += 1
        n_c[1] += r.status == "passed"
    flaky = sorted(cid for cid, (n, c) in trials.items() if 0 < c < n)
    assert t.flaky.passed == len(flaky)
    assert t.flaky_cases == flaky[:50]


def test_spilled_pass_at_k_matches_a_direct_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_acc, "CASES_HELD", 10)
    monkeypatch.setattr(_spill, "MEMORY_BYTES", 300)
    rng = random.Random(7)
    passes = {f"c{i:03d}": rng.randint(0, 3) for i in range(200)}
    rows = [
        _result(cid, t, "passed" if t < c else "failed", rng)
        for t in range(3)
        for cid, c in passes.items()
    ]
    rng.shuffle(rows)
    t = summarize_results(rows).trials
    assert t.trials == 3
    assert t.pass_at_k["1"] == pytest.approx(sum(passes.values()) / 600)
    assert t.pass_hat_k["3"] == pytest.approx(sum(c == 3 for c in passes.values()) / 200)
    assert t.pass_at_k["3"] == pytest.approx(sum(c > 0 for c in passes.values()) / 200)


def test_latency_percentiles_stay_within_half_a_percent_in_bounded_counters() -> None:
    from agentgauge.metrics._acc import LatencyAcc
    from agentgauge.metrics._stats import percentile

    rng = random.Random(8)
    # log-uniform from 1 µs to 3 hours: the widest range a latency has
    values = [10 ** rng.uniform(-3, 7.03) for _ in range(60_000)]
    acc = LatencyAcc()
    for v in values:
        acc.add(v)
    lat = acc.build()
    assert lat.approximate
    assert len(acc.buckets) < 2400
    exact = sorted(values)
    for q, got in ((50, lat.p50), (90, lat.p90), (95, lat.p95)):
        want = percentile(exact, q)
        assert got == pytest.approx(want, rel=0.005), q
    # a wrong bucket (one off) would be 1 % away: the check can fail
    assert lat.p95 != pytest.approx(percentile(exact, 95) * 1.01, rel=0.004)


def test_a_regression_gate_on_spilled_runs_fails_a_worse_run_and_passes_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentgauge.metrics import gate_run
    from agentgauge.schema import Gates

    monkeypatch.setattr(_spill, "MEMORY_BYTES", 3000)
    monkeypatch.setattr(_acc, "CASES_HELD", 40)
    base, new = _runs(tmp_path, 600, 2)  # new passes 7 in 10 trials where base passed 6
    gates = Gates(max_regression_points=1.0, require_significance=True, min_sample_size=1)
    _, report, cmp = gate_run(base, gates=gates, baseline=new)  # base is worse than new
    assert cmp is not None
    assert cmp.counts["broken"] > cmp.counts["fixed"]
    assert not report.passed
    assert any(not c.passed and "pass" in c.name for c in report.checks)
    _, same, _ = gate_run(new, gates=gates, baseline=new)
    assert same.passed


@pytest.mark.parametrize(
    ("n", "k"), [(1001, 480), (1500, 700), (2000, 900), (2000, 1000), (3000, 1300), (4000, 4000)]
)
def test_mcnemar_of_many_flips_equals_the_exact_integer_sum(n: int, k: int) -> None:
    from math import comb

    from agentgauge.metrics._stats import EXACT_BINOMIAL_LIMIT, binom_two_sided_p

    assert n > EXACT_BINOMIAL_LIMIT  # the float path
    low = min(k, n - k)
    exact = min(1.0, float(2 * sum(comb(n, i) for i in range(low + 1)) / 2**n))
    assert binom_two_sided_p(k, n) == pytest.approx(exact, rel=1e-9, abs=1e-300)


def test_mcnemar_of_a_million_cases_is_computed() -> None:
    from agentgauge.metrics._stats import mcnemar_exact

    # 45,000 fixed against 45,500 broken: no evidence; 44,000 against 46,000: strong evidence
    assert mcnemar_exact(45_000, 45_500) == pytest.approx(0.0973, abs=0.001)
    assert mcnemar_exact(44_000, 46_000) < 1e-10
    assert mcnemar_exact(45_000, 45_000) == 1.0
