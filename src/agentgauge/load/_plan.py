"""A load profile made into a plan: the target (users, or arrivals per second) at every moment,
the stop conditions, and the bounds a profile from a suite must stay inside.

A suite is untrusted input: the profile in its ``load:`` section may ask for at most
:class:`LoadLimits` (64 users, 20 arrivals/s, 10 minutes, 5,000 sessions by default); more needs
the user's word on the command line (``--max-users`` ...). A profile the user gives
(``--profile FILE`` or the profile flags) is bounded only by the schema.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import UserError
from ..schema import LoadProfile, Threshold, parse_threshold

__all__ = ["LoadLimits", "LoadPlan", "Segment", "make_plan"]

#: sessions a load run starts at the most when neither the profile nor the user says
DEFAULT_SESSION_CAP = 100_000
#: sessions in flight at once in an open loop when the profile does not say (k6's maxVUs)
DEFAULT_MAX_IN_FLIGHT = 100


@dataclass(frozen=True, kw_only=True)
class LoadLimits:
    """What a profile read from a suite may ask for (the command line raises these)."""

    max_users: int = 64
    max_rate: float = 20.0
    max_duration_s: float = 600.0
    max_sessions: int = 5_000


@dataclass(frozen=True, slots=True)
class Segment:
    """``start_s`` to ``end_s`` of the load phase, the target moving linearly ``begin`` -> ``end``
    (a step of a step ramp: ``step`` is its index and ``begin == end``)."""

    start_s: float
    end_s: float
    begin: float
    end: float
    step: int | None = None

    def at(self, t: float) -> float:
        span = self.end_s - self.start_s
        if span <= 0:
            return self.end
        return self.begin + (self.end - self.begin) * min(1.0, max(0.0, (t - self.start_s) / span))


@dataclass(frozen=True, kw_only=True)
class LoadPlan:
    """A profile made concrete: what the scheduler follows and the report describes."""

    mode: str
    segments: list[Segment]
    #: sessions started at the most (the profile's ``sessions``, else the cap)
    sessions: int
    #: the profile named ``sessions`` itself (the run may end by count, not by time)
    by_count: bool
    think: tuple[float, float]
    max_in_flight: int
    interval_s: float
    thresholds: list[Threshold]
    budget: list[Threshold] = field(default_factory=list)
    baseline: bool = True
    #: the profile as given (JSON), for the report
    profile: dict[str, object] = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        """The load phase's length; ``inf`` for users held until ``sessions`` have run."""
        return self.segments[-1].end_s if self.segments else 0.0

    @property
    def is_step(self) -> bool:
        return bool(self.budget)

    def target_at(self, t: float) -> float:
        for seg in self.segments:
            if t < seg.end_s:
                return seg.at(t)
        return self.segments[-1].end if self.segments else 0.0

    def segment_at(self, t: float) -> Segment | None:
        return next((s for s in self.segments if s.start_s <= t < s.end_s), None)

    @property
    def peak(self) -> float:
        return max((max(s.begin, s.end) for s in self.segments), default=0.0)

    def offered(self) -> float:
        """The integral of the target over the load phase: user-seconds, or arrivals."""
        total = 0.0
        for s in self.segments:
            span = s.end_s - s.start_s
            if math.isfinite(span):
                total += span * (s.begin + s.end) / 2
        return total


def _segments(profile: LoadProfile) -> list[Segment]:
    if profile.step is not None:
        every = profile.step.every
        return [
            Segment(i * every, (i + 1) * every, level, level, i)
            for i, level in enumerate(profile.step.levels())
        ]
    if profile.stages:
        out: list[Segment] = []
        at, before = 0.0, 0.0
        for stage in profile.stages:
            out.append(Segment(at, at + stage.duration, before, stage.target))
            at, before = at + stage.duration, stage.target
        return out
    held = float(profile.users if profile.users is not None else profile.rate or 0.0)
    duration = profile.duration if profile.duration is not None else math.inf
    return [Segment(0.0, duration, held, held)]


@dataclass(frozen=True)
class _Where:
    """Where the profile came from, to name the field that breaks a limit."""

    display: str
    #: the line of each path in the suite file (None: a profile given on the command line)
    line_of: dict[tuple[str | int, ...], int] | None = None

    def at(self, path: tuple[str | int, ...]) -> str:
        dotted = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)[1:]
        if self.line_of is None:
            return f"{self.display}: {dotted}"
        line = self.line_of.get(path) or self.line_of.get(path[:2]) or self.line_of.get(path[:1])
        return f"{self.display}:{line or 1}: {dotted}"


def _suite_lines(path: Path, profile: LoadProfile) -> tuple[str, dict[tuple[str | int, ...], int]]:
    """The suite file holding ``load:`` and the line of each field a limit may name."""
    from ..files import read_document
    from ..suites import find_suite_file

    file = find_suite_file(path) if path.is_dir() else path
    if file is None:
        return str(path), {}
    doc = read_document(file, str(file))
    paths: list[tuple[str | int, ...]] = [("load",)]
    keys = ("users", "rate", "duration", "sessions", "max_in_flight", "stages", "step")
    paths += [("load", k) for k in keys]
    paths += [("load", "step", k) for k in ("max", "every", "start")]
    for i in range(len(profile.stages)):
        paths += [("load", "stages", i, "target"), ("load", "stages", i, "duration")]
    lines = {p: doc.locator.line(p) for p in paths}
    return str(file), {p: n for p, n in lines.items() if n is not None}


Path_ = tuple[str | int, ...]


def _excesses(
    profile: LoadProfile, plan: LoadPlan, limits: LoadLimits
) -> list[tuple[Path_, str, str, str]]:
    """(field, what it asks for, what a suite may, the flag that allows it) of each excess."""
    users = plan.mode == "closed"
    cap = float(limits.max_users) if users else limits.max_rate
    name, flag = ("users", "--max-users") if users else ("arrivals/s", "--max-rate")
    targets: list[tuple[Path_, float]] = []
    if profile.users is not None:
        targets.append((("load", "users"), float(profile.users)))
    if profile.rate is not None:
        targets.append((("load", "rate"), profile.rate))
    targets += [(("load", "stages", i, "target"), s.target) for i, s in enumerate(profile.stages)]
    if profile.step is not None:
        targets.append((("load", "step", "max"), profile.step.max))
    out = [
        (path, f"{value:g} {name}", f"{cap:g}", f"{flag} {value:g}")
        for path, value in targets
        if value > cap
    ]
    if math.isfinite(plan.duration_s) and plan.duration_s > limits.max_duration_s:
        path: Path_ = ("load", "duration")
        if profile.duration is None:
            path = ("load", "stages") if profile.stages else ("load", "step", "every")
        need = f"--max-duration {math.ceil(plan.duration_s)}s"
        out.append((path, f"{plan.duration_s:g} s of load", f"{limits.max_duration_s:g} s", need))
    if profile.sessions is not None and profile.sessions > limits.max_sessions:
        asked = profile.sessions
        out.append(
            (
                ("load", "sessions"),
                f"{asked} sessions",
                f"{limits.max_sessions}",
                f"--max-sessions {asked}",
            )
        )
    if profile.max_in_flight is not None and profile.max_in_flight > limits.max_users:
        asked = profile.max_in_flight
        out.append(
            (
                ("load", "max_in_flight"),
                f"{asked} sessions in flight",
                f"{limits.max_users}",
                f"--max-users {asked}",
            )
        )
    return out


def _check_limits(profile: LoadProfile, plan: LoadPlan, limits: LoadLimits, where: _Where) -> None:
    """Every number of a suite's profile against ``limits``: each excess is one problem."""
    problems = [
        f"{where.at(path)}: {what} is more than a suite may ask for ({allowed}); give {flag} "
        "on the command line to allow it"
        for path, what, allowed, flag in _excesses(profile, plan, limits)
    ]
    if problems:
        raise UserError(problems[0], problems=problems)


def make_plan(
    profile: LoadProfile,
    *,
    suite_path: Path | None = None,
    limits: LoadLimits | None = None,
    extra_thresholds: Sequence[str] = (),
    max_sessions: int | None = None,
) -> LoadPlan:
    """The plan of ``profile``. ``suite_path`` given: the profile is the suite's ``load:`` and must
    stay inside ``limits`` (each excess is a ``file:line: load.field: ...`` problem);
    ``extra_thresholds`` are the command line's; ``max_sessions`` the user's session cap."""
    thresholds = [parse_threshold(t) for t in profile.thresholds]
    for text in extra_thresholds:
        try:
            thresholds.append(parse_threshold(text))
        except ValueError as exc:  # the command line's: one line, exit 2
            raise UserError(f"--threshold: {exc}") from None
    budget = [parse_threshold(t) for t in profile.step.budget] if profile.step else []
    think = profile.think_time
    low, high = (float(think), float(think)) if isinstance(think, int | float) else think
    segments = _segments(profile)
    by_count = profile.sessions is not None
    cap = profile.sessions or max_sessions or DEFAULT_SESSION_CAP
    if max_sessions is not None:
        cap = min(cap, max_sessions)
    plan = LoadPlan(
        mode=profile.mode,
        segments=segments,
        sessions=cap,
        by_count=by_count,
        think=(low, high),
        max_in_flight=profile.max_in_flight or DEFAULT_MAX_IN_FLIGHT,
        interval_s=profile.interval,
        thresholds=thresholds,
        budget=budget,
        baseline=profile.baseline,
        profile=profile.model_dump(mode="json", exclude_defaults=True),
    )
    if suite_path is not None:
        display, lines = _suite_lines(suite_path, profile)
        _check_limits(profile, plan, limits or LoadLimits(), _Where(display, lines))
        if plan.sessions > (limits or LoadLimits()).max_sessions and max_sessions is None:
            plan = _with_sessions(plan, (limits or LoadLimits()).max_sessions)
    if not math.isfinite(plan.duration_s) and not by_count:
        raise UserError("load: users held without a duration need a number of sessions")
    return plan


def _with_sessions(plan: LoadPlan, sessions: int) -> LoadPlan:
    from dataclasses import replace

    return replace(plan, sessions=sessions)
