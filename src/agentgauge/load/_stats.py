"""What a load run measured, gathered from its sessions: per interval, per step and overall.

Sessions are counted in the interval they *end* in (as k6 counts requests); a session that ended
in an error is counted by its kind (``429``, ``5xx``, ``4xx``, ``timeout``, ``transport``,
``other``). Latencies are whole-session wall times; TTFT is the first model call's.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..runner import SessionResult
from ._model import Percentiles, StepStats, Totals, WindowStats
from ._plan import LoadPlan

__all__ = [
    "Sample",
    "error_kind",
    "percentile",
    "step_stats",
    "steps",
    "totals",
    "window_stats",
    "windows",
]

_HTTP = re.compile(r"\bHTTP (\d{3})\b")
ERROR_KINDS = ("429", "5xx", "4xx", "timeout", "transport", "other")


def error_kind(error: str | None) -> str | None:
    """The kind of a session's error (None: no error)."""
    if error is None:
        return None
    match = _HTTP.search(error)
    if match is not None:
        status = int(match.group(1))
        if status == 429:
            return "429"
        if status == 408:
            return "timeout"
        return "5xx" if status >= 500 else "4xx"
    low = error.lower()
    if low.startswith("timeout after") or "timed out" in low or "timeout" in low:
        return "timeout"
    if low.startswith("provider error") or "connection" in low:
        return "transport"
    return "other"


@dataclass(frozen=True, slots=True)
class Sample:
    """One session of the run: when it started and ended (seconds from the start of the load
    phase; negative for the baseline), the target at its start, and what it did."""

    phase: str
    start_s: float
    end_s: float
    target: float
    step: int | None
    result: SessionResult
    price: tuple[float, float] | None

    @property
    def kind(self) -> str | None:
        return error_kind(self.result.error) if self.result.status == "error" else None

    @property
    def tokens(self) -> int:
        return self.result.input_tokens + self.result.output_tokens

    @property
    def cost(self) -> float | None:
        if self.price is None:
            return self.result.cost_usd
        r = self.result
        return (r.input_tokens * self.price[0] + r.output_tokens * self.price[1]) / 1e6


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of sorted ``values``, linear between ranks."""
    if not values:
        return math.nan
    pos = (len(values) - 1) * q / 100
    low = math.floor(pos)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (pos - low)


def _percentiles(values: Iterable[float | None]) -> Percentiles | None:
    ordered = sorted(v for v in values if v is not None)
    if not ordered:
        return None
    return Percentiles(
        p50=percentile(ordered, 50),
        p90=percentile(ordered, 90),
        p95=percentile(ordered, 95),
        p99=percentile(ordered, 99),
        max=ordered[-1],
    )


def _tokens_per_min(samples: Sequence[Sample], span: float) -> float | None:
    """Tokens of the sessions that reported usage, per minute; None when sessions ended and
    none of them reported any (unknown, not 0)."""
    known = [s.tokens for s in samples if s.result.usage_recorded]
    if samples and not known:
        return None
    return sum(known) * 60 / span


def window_stats(samples: Sequence[Sample], start: float, end: float) -> WindowStats:
    span = max(end - start, 1e-9)
    kinds = Counter(s.kind for s in samples if s.kind is not None)
    passed = sum(s.result.status == "passed" for s in samples)
    failed = sum(s.result.status == "failed" for s in samples)
    costs = [s.cost for s in samples]
    return WindowStats(
        start_s=start,
        end_s=end,
        sessions=len(samples),
        passed=passed,
        failed=failed,
        errors=sum(kinds.values()),
        errors_by_kind={k: kinds[k] for k in ERROR_KINDS if kinds[k]},
        error_rate=sum(kinds.values()) / len(samples) if samples else None,
        pass_rate=passed / (passed + failed) if passed + failed else None,
        sessions_per_s=len(samples) / span,
        tokens_per_min=_tokens_per_min(samples, span),
        latency_ms=_percentiles(s.result.latency_ms for s in samples),
        ttft_ms=_percentiles(s.result.ttft_ms for s in samples),
        retries=sum(s.result.retries for s in samples),
        cost_usd=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs),
    )


#: intervals a report holds at the most (a longer run gets wider intervals)
MAX_INTERVALS = 2000


def interval_width(plan: LoadPlan, end_s: float) -> float:
    """The reporting interval of a run that lasted ``end_s``: the profile's, widened so that
    there are at most :data:`MAX_INTERVALS` of them."""
    return max(plan.interval_s, end_s / MAX_INTERVALS)


def windows(
    samples: Sequence[Sample],
    plan: LoadPlan,
    end_s: float,
    started: Sequence[float] = (),
    dropped: Sequence[float] = (),
) -> list[WindowStats]:
    """One :class:`WindowStats` per interval of the load phase (up to ``end_s``), with the
    target at its middle, the sessions started in it and the open-loop arrivals dropped."""
    width = interval_width(plan, end_s)
    # a last piece shorter than half an interval joins the one before it (no rate spikes)
    count = max(1, int(end_s / width + 0.5))
    buckets: list[list[Sample]] = [[] for _ in range(count)]
    for s in samples:
        if s.phase == "load":
            buckets[min(count - 1, max(0, int(s.end_s // width)))].append(s)
    starts = Counter(min(count - 1, int(t // width)) for t in started)
    drops = Counter(min(count - 1, int(t // width)) for t in dropped)
    rates = baseline_rates(samples)
    out = []
    for i, bucket in enumerate(buckets):
        lo, hi = i * width, (i + 1) * width if i < count - 1 else max(end_s, i * width + 1e-9)
        w = window_stats(bucket, lo, hi)
        with_quality(w, bucket, rates)
        w.target = plan.target_at((lo + hi) / 2)
        w.started = starts[i]
        w.dropped = drops[i]
        out.append(w)
    return out


def step_stats(plan: LoadPlan, samples: Sequence[Sample], index: int) -> StepStats:
    """Step ``index`` of a step ramp: the sessions that ended inside it, and whether every
    budget threshold held over them (a step in which no session ended did not hold)."""
    seg = plan.segments[index]
    inside = [s for s in samples if s.phase == "load" and seg.start_s <= s.end_s < seg.end_s]
    stats = window_stats(inside, seg.start_s, seg.end_s)
    from ._thresholds import evaluate

    verdicts = evaluate(plan.budget, stats, None)
    broken = [v.threshold for v in verdicts if not v.passed]
    if not inside:
        broken.append("no session finished within the step")
    return StepStats(index=index, target=seg.end, window=stats, held=not broken, broken_by=broken)


def steps(plan: LoadPlan, samples: Sequence[Sample], ran: int) -> list[StepStats]:
    return [step_stats(plan, samples, i) for i in range(ran)]


def baseline_rates(samples: Sequence[Sample]) -> dict[str, float]:
    """Each case's pass rate in the unloaded baseline (its answered sessions only)."""
    by_case: dict[str, list[bool]] = {}
    for s in samples:
        if s.phase == "baseline" and s.result.status != "error":
            by_case.setdefault(s.result.case_id, []).append(s.result.status == "passed")
    return {k: sum(v) / len(v) for k, v in by_case.items()}


def with_quality(stats: WindowStats, samples: Sequence[Sample], rates: dict[str, float]) -> None:
    """Set ``stats``' expected pass rate and quality ratio from the sessions it counts."""
    answered = [s for s in samples if s.result.status != "error" and s.result.case_id in rates]
    if not answered:
        return
    expected = sum(rates[s.result.case_id] for s in answered) / len(answered)
    got = sum(s.result.status == "passed" for s in answered) / len(answered)
    stats.expected_pass_rate = expected
    stats.quality_ratio = got / expected if expected else None


def totals(samples: Sequence[Sample], start: float, end: float) -> Totals:
    """The whole load phase, and the quality ratio against the baseline of the same cases."""
    load = [s for s in samples if s.phase == "load"]
    base = [s for s in samples if s.phase == "baseline"]
    whole = window_stats(load, start, end)
    with_quality(whole, load, baseline_rates(samples))
    base_passed = sum(s.result.status == "passed" for s in base)
    base_answered = sum(s.result.status != "error" for s in base)
    return Totals(
        **whole.model_dump(),
        baseline_sessions=len(base),
        baseline_pass_rate=base_passed / base_answered if base_answered else None,
    )
