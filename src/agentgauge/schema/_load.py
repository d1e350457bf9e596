"""A load profile: how many sessions a load test offers the agent, and when (docs/load.md).

The shapes follow k6 and Locust, so their users recognise them: ``stages: [{duration, target}]``
ramps (k6's ``ramping-vus`` / ``ramping-arrival-rate``), a think time as a number or a
``[min, max]`` range (Locust's ``between``), and thresholds written ``p95<500``
(or k6's ``p(95)<500``). Every number has a hard bound here; what a *suite* may ask for is bounded
further by the load command (a suite cannot start a billion sessions you did not ask for).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from .._factories import new_list
from ._base import Model

__all__ = [
    "THRESHOLD_METRICS",
    "LoadProfile",
    "LoadStage",
    "StepRamp",
    "Threshold",
    "parse_duration",
    "parse_threshold",
]

#: hard bounds of any profile, whoever wrote it (a week; 10^5 users or arrivals per second)
MAX_DURATION_S = 7 * 24 * 3600.0
MAX_TARGET = 100_000.0
MAX_SESSIONS = 10_000_000

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def parse_duration(value: object) -> float:
    """Seconds of a duration: a number of seconds, or k6's ``30s`` / ``1m30s`` / ``500ms`` /
    ``2h``; a ValueError for anything else (negative, NaN, over a week, another unit)."""
    if isinstance(value, bool):
        raise ValueError("give a duration such as 30s, 2m or 1m30s")
    if isinstance(value, int | float):
        seconds = float(value)
    elif isinstance(value, str):
        text = value.strip().replace(" ", "")
        parts = list(_DURATION_PART.finditer(text))
        if not text or "".join(p.group(0) for p in parts) != text:
            try:
                seconds = float(text)
            except ValueError:
                raise ValueError(
                    f"{value!r} is not a duration (give 30s, 2m, 1m30s or 500ms)"
                ) from None
        else:
            seconds = sum(float(p.group(1)) * _UNITS[p.group(2)] for p in parts)
    else:
        raise ValueError("give a duration such as 30s, 2m or 1m30s")
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{value!r}: a duration must be a positive number of seconds")
    if seconds > MAX_DURATION_S:
        raise ValueError(f"{value!r}: a duration must be at most a week")
    return seconds


Duration = Annotated[float, BeforeValidator(parse_duration)]

#: the metrics a threshold may name -> what they measure
THRESHOLD_METRICS: dict[str, str] = {
    "p50": "session latency, 50th percentile (ms)",
    "p90": "session latency, 90th percentile (ms)",
    "p95": "session latency, 95th percentile (ms)",
    "p99": "session latency, 99th percentile (ms)",
    "ttft_p50": "time to first token, 50th percentile (ms)",
    "ttft_p95": "time to first token, 95th percentile (ms)",
    "ttft_p99": "time to first token, 99th percentile (ms)",
    "error_rate": "sessions that ended in an error, share of all (0-1, or a %)",
    "pass_rate": "passed sessions, share of those without an error (0-1, or a %)",
    "quality_ratio": "pass rate under load / the same cases' pass rate unloaded",
    "sessions_per_s": "sessions finished per second",
}
_ALIASES = {f"p({n})": f"p{n}" for n in (50, 90, 95, 99)} | {
    f"ttft_p({n})": f"ttft_p{n}" for n in (50, 95, 99)
}
_THRESHOLD = re.compile(
    r"\s*([a-z_][a-z0-9_]*(?:\(\d+\))?)\s*(<=|>=|<|>)\s*([0-9.]+)\s*(%|ms|s)?\s*"
)


@dataclass(frozen=True, slots=True)
class Threshold:
    """One threshold, ``p95<500``: ``metric`` ``op`` ``value`` (latencies in ms, rates 0-1)."""

    metric: str
    op: str
    value: float
    text: str

    def holds(self, measured: float) -> bool:
        if self.op == "<":
            return measured < self.value
        if self.op == "<=":
            return measured <= self.value
        if self.op == ">":
            return measured > self.value
        return measured >= self.value


def parse_threshold(text: str) -> Threshold:
    """``p95<500``, ``p(99)<=2s``, ``error_rate<1%``, ``quality_ratio>=0.9``; a ValueError
    naming the metrics for anything else."""
    match = _THRESHOLD.fullmatch(text.lower())
    if match is None:
        raise ValueError(
            f"{text!r} is not a threshold: write METRIC<VALUE such as p95<500, "
            "error_rate<0.01 or quality_ratio>0.9"
        )
    name, op, number, unit = match.groups()
    metric = _ALIASES.get(name, name)
    if metric not in THRESHOLD_METRICS:
        known = ", ".join(THRESHOLD_METRICS)
        raise ValueError(f"{text!r}: unknown metric {name!r} (known: {known})")
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"{text!r}: {number!r} is not a number") from None
    latency = metric.startswith(("p", "ttft")) and metric != "pass_rate"
    if unit == "%":
        if latency or metric in ("sessions_per_s", "quality_ratio"):
            raise ValueError(f"{text!r}: a % is for error_rate and pass_rate")
        value /= 100
    elif unit in ("ms", "s"):
        if not latency:
            raise ValueError(f"{text!r}: {unit} is for latencies (p95, ttft_p95 ...)")
        value = value * 1000 if unit == "s" else value
    return Threshold(metric=metric, op=op, value=value, text=text.strip())


def _check_thresholds(values: list[str]) -> list[str]:
    for text in values:
        parse_threshold(text)
    return values


class LoadStage(Model):
    """One stage: over ``duration``, move the target (users, or arrivals per second) linearly
    from the previous stage's target (0 before the first) to ``target`` (k6's stages)."""

    duration: Duration
    target: float = Field(ge=0, le=MAX_TARGET)


class StepRamp(Model):
    """A step ramp that looks for the saturation point: hold ``start`` for ``every``, then
    ``start + step`` ... up to ``max``; the ramp stops after the first step that breaks
    ``budget`` (thresholds such as ``p95<2000``, ``error_rate<0.01``). The saturation point is
    that step's target; the last step that held is the highest sustained load."""

    start: float = Field(default=1, gt=0, le=MAX_TARGET)
    step: float = Field(default=1, gt=0, le=MAX_TARGET)
    every: Duration = 10.0
    max: float = Field(gt=0, le=MAX_TARGET)
    budget: list[str] = Field(min_length=1)

    _budget = field_validator("budget")(_check_thresholds)

    @model_validator(mode="after")
    def _steps(self) -> StepRamp:
        if self.max < self.start:
            raise ValueError(f"max ({self.max:g}) is below start ({self.start:g})")
        if not self.every > 0:
            raise ValueError("every must be more than 0 s")
        return self

    def levels(self) -> list[float]:
        """The target of each step, ``start`` to ``max`` (at most 10,000 steps)."""
        count = min(10_000, math.floor((self.max - self.start) / self.step + 1e-9) + 1)
        return [self.start + i * self.step for i in range(count)]


class LoadProfile(Model):
    """How a load test offers sessions. Give exactly one shape: ``users`` or ``rate`` held for
    ``duration``, ``stages`` (ramps), or ``step`` (a step ramp). ``sessions`` ends the test after
    that many sessions (with a shape, whichever comes first; alone, with ``users``)."""

    #: ``closed``: virtual users, each running cases back to back with a think time; ``open``:
    #: sessions arrive at a rate (Poisson), whether or not earlier ones have finished
    mode: Literal["closed", "open"] = "closed"
    #: closed loop: virtual users held for ``duration``
    users: int | None = Field(default=None, ge=1, le=int(MAX_TARGET))
    #: open loop: arrivals per second held for ``duration``
    rate: float | None = Field(default=None, gt=0, le=MAX_TARGET)
    duration: Duration | None = None
    stages: list[LoadStage] = Field(default_factory=new_list, max_length=1000)
    step: StepRamp | None = None
    #: end after this many sessions have started
    sessions: int | None = Field(default=None, ge=1, le=MAX_SESSIONS)
    #: closed loop: seconds a user waits after each session (a number, or [min, max] uniform)
    think_time: float | tuple[float, float] = 0.0
    #: open loop: sessions in flight at once at the most (k6's maxVUs); an arrival past it is
    #: dropped and counted (None: the run's --max-concurrency)
    max_in_flight: int | None = Field(default=None, ge=1, le=int(MAX_TARGET))
    #: the width of one reporting interval
    interval: Duration = 1.0
    #: the load gates (k6's thresholds): every one must hold over the whole load phase
    thresholds: list[str] = Field(default_factory=new_list, max_length=100)
    #: run every case once, one at a time, before the load (the unloaded pass rate the quality
    #: ratio compares with)
    baseline: bool = True
    #: after Ctrl-C or SIGTERM, how long the sessions in flight may take to finish before they
    #: are cancelled (k6's gracefulStop)
    graceful_stop: Duration = 30.0

    _thresholds = field_validator("thresholds")(_check_thresholds)

    @field_validator("think_time")
    @classmethod
    def _think(cls, value: float | tuple[float, float]) -> float | tuple[float, float]:
        low, high = (value, value) if isinstance(value, int | float) else value
        if not (0 <= low <= high <= 3600):
            raise ValueError("think_time is seconds from 0 to 3600, or [min, max] with min <= max")
        return value

    @model_validator(mode="after")
    def _one_shape(self) -> LoadProfile:
        held = self.users is not None or self.rate is not None
        shapes = [
            n
            for n, on in (
                ("users/rate", held),
                ("stages", bool(self.stages)),
                ("step", self.step is not None),
            )
            if on
        ]
        if len(shapes) > 1:
            raise ValueError(f"give one shape of load, not {' and '.join(shapes)}")
        if not shapes:
            raise ValueError("give users (closed) or rate (open) with a duration, stages, or step")
        if self.users is not None and self.rate is not None:
            raise ValueError("give one shape of load: users (closed) or rate (open), not both")
        if self.users is not None and self.mode == "open":
            raise ValueError("users is for mode closed; an open profile gives a rate")
        if self.rate is not None and self.mode == "closed":
            raise ValueError("rate is for mode open; a closed profile gives users")
        if held and self.duration is None and (self.sessions is None or self.rate is not None):
            raise ValueError("give a duration (or, with users, a number of sessions)")
        if not self.interval > 0:
            raise ValueError("interval must be more than 0 s")
        return self
