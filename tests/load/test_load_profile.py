"""Load profiles: k6-style durations, stages and thresholds; one shape of load; the bounds a
suite's profile must stay inside (each excess a file:line: load.field problem)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest
from pydantic import ValidationError

from agentgauge.errors import UserError
from agentgauge.load import LoadLimits, make_plan, poisson_arrivals
from agentgauge.schema import LoadProfile, parse_duration, parse_threshold


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("30s", 30), ("1m30s", 90), ("500ms", 0.5), ("2h", 7200), (12, 12), ("1.5", 1.5)],
)
def test_durations_as_k6_writes_them(text: object, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["", "10x", "-5s", "s", True, "8d", float("nan"), 10**9])
def test_bad_durations_are_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration(bad)


@pytest.mark.parametrize(
    ("text", "metric", "op", "value"),
    [
        ("p95<500", "p95", "<", 500),
        ("p(99)<=2s", "p99", "<=", 2000),
        ("error_rate<1%", "error_rate", "<", 0.01),
        ("quality_ratio>=0.9", "quality_ratio", ">=", 0.9),
        ("ttft_p(95) < 300ms", "ttft_p95", "<", 300),
        ("pass_rate>90%", "pass_rate", ">", 0.9),
    ],
)
def test_thresholds_parse(text: str, metric: str, op: str, value: float) -> None:
    t = parse_threshold(text)
    assert (t.metric, t.op) == (metric, op)
    assert t.value == pytest.approx(value)


@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ("p95", "not a threshold"),
        ("latency<5", "unknown metric"),
        ("p95<5%", "a % is for"),
        ("error_rate<5ms", "for latencies"),
        ("p95<1.2.3", "not a number"),
    ],
)
def test_bad_thresholds_say_why(bad: str, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_threshold(bad)


def test_a_threshold_holds_or_breaks() -> None:
    t = parse_threshold("p95<500")
    assert t.holds(499.9)
    assert not t.holds(500)
    assert parse_threshold("quality_ratio>=0.9").holds(0.9)


@pytest.mark.parametrize(
    ("data", "why"),
    [
        ({}, "give users"),
        ({"users": 2}, "give a duration"),
        ({"users": 2, "rate": 3, "duration": 5}, "one shape"),
        ({"mode": "open", "users": 2, "duration": 5}, "users is for mode closed"),
        ({"rate": 2, "duration": 5}, "rate is for mode open"),
        ({"users": 2, "duration": 5, "think_time": [3, 1]}, "think_time"),
        ({"step": {"start": 5, "max": 2, "budget": ["p95<5"]}}, "below start"),
        ({"step": {"max": 2, "budget": []}}, "budget"),
        ({"users": 2, "duration": "5s", "thresholds": ["p95<<5"]}, "not a threshold"),
        ({"users": 0, "duration": 5}, "users"),
    ],
)
def test_profiles_of_no_or_two_shapes_are_refused(data: dict[str, object], why: str) -> None:
    with pytest.raises(ValidationError, match=why):
        LoadProfile.model_validate(data)


def test_stages_ramp_linearly_from_the_previous_target() -> None:
    profile = LoadProfile.model_validate(
        {
            "stages": [
                {"duration": "10s", "target": 10},
                {"duration": "10s", "target": 10},
                {"duration": "5s", "target": 0},
            ]
        }
    )
    plan = make_plan(profile)
    assert plan.duration_s == 25
    assert [plan.target_at(t) for t in (0, 5, 10, 15, 22.5)] == [0, 5, 10, 10, 5]
    assert plan.peak == 10
    assert plan.offered() == pytest.approx(50 + 100 + 25)  # user-seconds


def test_a_step_ramp_holds_each_level_for_its_step() -> None:
    profile = LoadProfile.model_validate(
        {"step": {"start": 2, "step": 2, "every": "3s", "max": 9, "budget": ["p95<100"]}}
    )
    plan = make_plan(profile)
    assert [s.begin for s in plan.segments] == [2, 4, 6, 8]
    assert [s.step for s in plan.segments] == [0, 1, 2, 3]
    assert plan.duration_s == 12
    assert plan.is_step
    assert plan.target_at(3.5) == 4


def test_users_held_for_a_number_of_sessions_end_by_count() -> None:
    plan = make_plan(LoadProfile.model_validate({"users": 3, "sessions": 40}))
    assert plan.sessions == 40
    assert plan.by_count
    assert math.isinf(plan.duration_s)


def test_the_session_cap_applies_to_every_run() -> None:
    plan = make_plan(LoadProfile.model_validate({"users": 3, "duration": "1h"}), max_sessions=7)
    assert plan.sessions == 7


SUITE_HEAD = """name: bounded
tools: []
cases:
  - id: a
    input: hi
    expect: {behavior: answer}
"""


def _suite(tmp_path: Path, load: str) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE_HEAD + load, encoding="utf-8")
    return path


def test_a_suite_cannot_ask_for_more_than_the_limits(tmp_path: Path) -> None:
    from agentgauge.suites import load_suite

    path = _suite(
        tmp_path,
        "load:\n  mode: open\n  stages:\n    - {duration: 10s, target: 5}\n"
        "    - {duration: 2h, target: 1000000}\n  sessions: 1000000000\n",
    )
    with pytest.raises(ValidationError):  # the schema's own bound (10^5/s, 10^7 sessions)
        LoadProfile.model_validate(load_suite_raw(path))
    path = _suite(
        tmp_path,
        "load:\n  mode: open\n  stages:\n    - {duration: 10s, target: 5}\n"
        "    - {duration: 2h, target: 5000}\n  sessions: 900000\n",
    )
    profile = load_suite(path).load
    assert profile is not None
    with pytest.raises(UserError) as err:
        make_plan(profile, suite_path=path)
    problems = err.value.problems
    assert problems[0] == (
        f"{path}:11: load.stages[1].target: 5000 arrivals/s is more than a suite may ask for "
        "(20); give --max-rate 5000 on the command line to allow it"
    )
    assert any(
        ":9: load.stages: 7210 s of load" in p and "--max-duration 7210s" in p for p in problems
    )
    assert any(":12: load.sessions: 900000 sessions" in p for p in problems)
    # the user's word on the command line lets it through
    raised = LoadLimits(max_rate=5000, max_duration_s=7210, max_sessions=900_000)
    assert make_plan(profile, suite_path=path, limits=raised).sessions == 900_000


def test_a_suite_profile_without_sessions_gets_the_suite_cap(tmp_path: Path) -> None:
    from agentgauge.suites import load_suite

    path = _suite(tmp_path, "load:\n  users: 4\n  duration: 1m\n")
    profile = load_suite(path).load
    assert profile is not None
    assert make_plan(profile, suite_path=path).sessions == LoadLimits().max_sessions
    assert make_plan(profile).sessions > LoadLimits().max_sessions  # the user's own profile


def load_suite_raw(path: Path) -> object:
    import yaml

    return yaml.safe_load(path.read_text())["load"]


def test_poisson_arrivals_are_seeded_and_follow_the_rate() -> None:
    plan = make_plan(
        LoadProfile.model_validate(
            {
                "mode": "open",
                "stages": [{"duration": "100s", "target": 20}, {"duration": "100s", "target": 20}],
            }
        )
    )
    first = list(poisson_arrivals(plan.segments, seed=3))
    assert first == list(poisson_arrivals(plan.segments, seed=3))
    assert first != list(poisson_arrivals(plan.segments, seed=4))
    assert first == sorted(first)
    # the ramp 0 -> 20/s over the first 100 s offers 1000 arrivals, the held 20/s 2000
    ramp = [t for t in first if t < 100]
    held = [t for t in first if t >= 100]
    assert abs(len(ramp) - 1000) < 4 * math.sqrt(1000)
    assert abs(len(held) - 2000) < 4 * math.sqrt(2000)
    # thinning follows the ramp: the first half of it offers a quarter of its arrivals
    assert abs(sum(t < 50 for t in ramp) / len(ramp) - 0.25) < 0.05
    # held: exponential gaps, mean 1/rate and coefficient of variation 1
    gaps = [b - a for a, b in itertools.pairwise(held)]
    mean = sum(gaps) / len(gaps)
    sd = math.sqrt(sum((g - mean) ** 2 for g in gaps) / len(gaps))
    assert mean == pytest.approx(1 / 20, rel=0.1)
    assert sd / mean == pytest.approx(1.0, rel=0.1)
