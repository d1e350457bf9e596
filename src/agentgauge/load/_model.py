"""``load.json``: what a load run offered and measured (a versioned record; add fields, never
rename them)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .._factories import new_dict, new_list
from ..schema import FORMAT_VERSION, JsonValue, Model

__all__ = [
    "CostEstimate",
    "LoadReport",
    "Percentiles",
    "Saturation",
    "StepStats",
    "ThresholdVerdict",
    "Totals",
    "WindowStats",
]

#: why the load phase ended
StopReason = Literal["duration", "sessions", "max_cost", "step_broken", "interrupted"]


class Percentiles(Model):
    p50: float
    p90: float
    p95: float
    p99: float
    max: float


class WindowStats(Model):
    """One interval (or a step, or the whole load phase): the sessions that ended in it."""

    start_s: float
    end_s: float
    #: users (closed loop) or arrivals per second (open loop) the profile asked for at its middle
    target: float | None = None
    #: sessions started in it, and open-loop arrivals dropped (max_in_flight was reached)
    started: int = 0
    dropped: int = 0
    sessions: int
    passed: int
    failed: int
    errors: int
    errors_by_kind: dict[str, int] = Field(default_factory=new_dict)
    #: errors / sessions; pass rate = passed / (passed + failed): the sessions that got answers
    error_rate: float | None
    pass_rate: float | None
    sessions_per_s: float
    #: None: sessions ended and none reported its token usage (unknown, not 0)
    tokens_per_min: float | None
    latency_ms: Percentiles | None
    ttft_ms: Percentiles | None
    #: model call attempts beyond the first (the run's --retries)
    retries: int = 0
    cost_usd: float | None = None
    #: the baseline pass rate of the cases answered here, weighted as often as each ran
    expected_pass_rate: float | None = None
    #: pass rate here / expected_pass_rate, over the answered sessions of cases the baseline
    #: answered (None: no baseline, or nothing answered)
    quality_ratio: float | None = None


class Totals(WindowStats):
    """The whole load phase, with the unloaded baseline of the same cases."""

    baseline_sessions: int = 0
    baseline_pass_rate: float | None = None
    #: sessions an interrupt cut off after its graceful stop (no result: not journaled, not
    #: counted above)
    cancelled: int = 0


class StepStats(Model):
    """One step of a step ramp and whether its budget held."""

    index: int
    target: float
    window: WindowStats
    held: bool
    broken_by: list[str] = Field(default_factory=new_list)


class Saturation(Model):
    """Where a step ramp broke its budget: the first step that broke it (``saturated_at``) and
    the highest one that held (``sustained``; None: the first step broke it)."""

    found: bool
    saturated_at: float | None
    sustained: float | None
    #: sessions per second finished at the sustained step
    sustained_sessions_per_s: float | None = None
    broken_by: list[str] = Field(default_factory=new_list)
    unit: str = "users"


class ThresholdVerdict(Model):
    threshold: str
    metric: str
    measured: float | None
    passed: bool
    explanation: str


class CostEstimate(Model):
    """The cost a load run expects, printed before it starts."""

    model: str
    #: USD per 1M (input, output) tokens (None: no known price)
    price: tuple[float, float] | None
    tokens_per_session: float
    #: where tokens_per_session comes from: ``prompt size`` (before the run) or ``baseline``
    tokens_from: str
    expected_sessions: float
    max_sessions: int
    usd: float | None
    max_usd: float | None


class LoadReport(Model):
    version: int = FORMAT_VERSION
    suite: str
    agent: str
    run_dir: str
    mode: Literal["closed", "open"]
    profile: dict[str, JsonValue]
    interval_s: float
    started_at: str
    #: seconds of the load phase (the baseline excluded)
    duration_s: float
    stopped_by: StopReason
    #: the signal that interrupted the run (``SIGINT``: Ctrl-C, ``SIGTERM``), None: not
    #: interrupted; the intervals and totals then cover what ran until it stopped
    interrupted_by: str | None = None
    #: seconds the sessions in flight were given to finish after an interrupt
    graceful_stop_s: float | None = None
    max_cost_usd: float | None = None
    estimate: CostEstimate | None = None
    intervals: list[WindowStats]
    steps: list[StepStats] = Field(default_factory=new_list)
    saturation: Saturation | None = None
    totals: Totals
    thresholds: list[ThresholdVerdict] = Field(default_factory=new_list)
    passed: bool
