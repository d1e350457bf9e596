"""Load runs against the loopback fake server with a known capacity (at most K completions at
once): the step ramp finds the saturation point, an open-loop profile offers exactly its seeded
arrivals, the load gates fail runs that break them, --max-cost stops a run, and every session
is a whole case journaled like any run's.

Nothing here asserts on wall-clock speed: the capacity comes from the server's concurrency
limit (K), which a slow machine does not change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from agentgauge.errors import UserError
from agentgauge.load import LOAD_FILE, make_plan, poisson_arrivals, read_load, run_load_file
from agentgauge.runner import RunConfig
from agentgauge.schema import LoadProfile, ToolCall
from agentgauge.testing import FakeOpenAIServer, FakeReply, FakeRequest

SUITE = """name: load-smoke
tools:
  - name: get_weather
    description: Current weather in a city
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
    simulation: {result: {temp_c: 21}}
cases:
  - id: weather
    input: What is the weather in Paris?
    expect:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - id: chat
    input: Say hello.
    expect: {behavior: answer}
    turns:
      - user: And again?
        expect: {behavior: answer}
  - id: hi
    input: Hi.
    expect: {behavior: answer}
"""


def _agent(request: FakeRequest) -> FakeReply:
    """A right agent: calls the weather tool for Paris, else answers."""
    messages = request.body["messages"]
    last = messages[-1]
    if last["role"] == "tool":
        return "It is 21 C in Paris."
    if "Paris" in str(last.get("content")):
        return ToolCall(name="get_weather", arguments={"city": "Paris"})
    return "Hello!"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def _config(server: FakeOpenAIServer, **kw: Any) -> RunConfig:
    options = {"base_url": server.base_url, "api_key": "sk-load-test-key"}
    return RunConfig(agent="openai:fake-model", agent_options=options, retries=0, **kw)


def _profile(**data: Any) -> LoadProfile:
    return LoadProfile.model_validate(data)


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_a_step_ramp_finds_the_capacity_of_a_server_that_refuses_past_k(
    suite: Path, tmp_path: Path
) -> None:
    k = 10
    profile = _profile(
        step={"start": 7, "step": 1, "every": "1s", "max": 14, "budget": ["error_rate<0.001"]},
        think_time=0.005,
    )
    with FakeOpenAIServer(
        _agent, latency_ms=120, max_concurrent=k, over_capacity="reject", record=False
    ) as srv:
        out = run_load_file(suite, _config(srv), tmp_path / "run", profile=profile)
    sat = out.report.saturation
    assert sat is not None
    assert sat.found
    assert sat.sustained is not None
    assert abs(sat.sustained - k) / k <= 0.10  # within 10 % of the known capacity
    assert sat.saturated_at == sat.sustained + 1
    assert out.report.stopped_by == "step_broken"
    held = [s for s in out.report.steps if s.held]
    assert all(s.window.errors == 0 for s in held)
    assert out.report.totals.errors_by_kind.get("429", 0) > 0
    assert srv.peak_in_flight <= k


def test_a_step_ramp_finds_where_a_queueing_server_breaks_the_p95_budget(
    suite: Path, tmp_path: Path
) -> None:
    # K = 2 served at once, 300 ms each, the rest queued: at 3 users a third of the calls wait
    # a whole service time (~600 ms); the budget (450 ms) sits between 1 and 2 service times
    profile = _profile(
        step={"start": 1, "step": 1, "every": "2s", "max": 4, "budget": ["p95<450"]},
        baseline=False,
    )
    with FakeOpenAIServer(["Hello!"], latency_ms=300, max_concurrent=2, record=False) as srv:
        out = run_load_file(
            suite, _config(srv, case_filter=("hi",)), tmp_path / "run", profile=profile
        )
    sat = out.report.saturation
    assert sat is not None
    assert sat.found
    assert sat.saturated_at == 3
    assert sat.sustained == 2
    assert sat.broken_by == ["p95<450"]
    assert srv.queued_peak >= 1


def test_an_open_loop_profile_offers_its_seeded_poisson_arrivals(
    suite: Path, tmp_path: Path
) -> None:
    data = {
        "mode": "open",
        "interval": "500ms",
        "max_in_flight": 50,
        "stages": [
            {"duration": "1s", "target": 8},
            {"duration": "1s", "target": 8},
            {"duration": "1s", "target": 0},
        ],
    }
    profile = _profile(**data)
    with FakeOpenAIServer(_agent, latency_ms=20, record=False) as srv:
        out = run_load_file(suite, _config(srv, seed=7), tmp_path / "run", profile=profile)
    expected = list(poisson_arrivals(make_plan(profile).segments, seed=7))
    r = out.report
    assert r.mode == "open"
    assert r.totals.started + r.totals.dropped == len(expected)
    assert r.totals.sessions == r.totals.started  # every started session finished
    assert len(r.intervals) == 6
    # the target at each interval's middle (the last one runs on while sessions finish)
    assert [w.target for w in r.intervals][:5] == pytest.approx([2, 6, 8, 8, 6])
    assert r.intervals[-1].target is not None
    assert r.intervals[-1].target <= 2
    assert sum(w.sessions for w in r.intervals) == r.totals.sessions
    assert r.totals.quality_ratio == pytest.approx(1.0)
    assert r.totals.errors == 0
    # the sessions' start times are the seeded arrivals
    starts = [s["start_s"] for s in _lines(tmp_path / "run" / "load.jsonl") if s["phase"] == "load"]
    assert len(starts) == len(expected)


def test_closed_loop_runs_whole_cases_back_to_back_and_journals_each(
    suite: Path, tmp_path: Path
) -> None:
    profile = _profile(users=3, sessions=12, think_time=[0.0, 0.01])
    with FakeOpenAIServer(_agent, latency_ms=5, record=False) as srv:
        out = run_load_file(suite, _config(srv), tmp_path / "run", profile=profile)
    r = out.report
    assert r.stopped_by == "sessions"
    assert r.totals.sessions == 12
    assert r.totals.baseline_sessions == 3
    results = _lines(tmp_path / "run" / "results.jsonl")
    assert len(results) == 15  # the baseline's 3 and the load's 12, each a whole case
    pairs = {(x["case_id"], x["trial"]) for x in results}
    assert len(pairs) == 15  # every session its own (case, trial)
    weather = [x for x in results if x["case_id"] == "weather"]
    assert all(any(e["kind"] == "tool" for e in x["trace"]) for x in weather)
    chat = [x for x in results if x["case_id"] == "chat"]
    assert all(len([m for m in x["messages"] if m["role"] == "user"]) == 2 for x in chat)
    assert all(x["status"] == "passed" for x in results)
    assert read_load(tmp_path / "run") == r
    assert "sk-load-test-key" not in (tmp_path / "run" / LOAD_FILE).read_text()


def _degrading_agent(server_ref: list[FakeOpenAIServer]) -> Any:
    """Right when alone, wrong when other requests are being served (quality falls under load)."""

    def reply(request: FakeRequest) -> FakeReply:
        if server_ref and server_ref[0].in_flight > 0:
            return "I am too busy."  # no tool call: the weather case fails
        return _agent(request)

    return reply


def test_the_quality_gate_fails_an_agent_that_degrades_under_load(
    suite: Path, tmp_path: Path
) -> None:
    profile = _profile(users=4, sessions=24, thresholds=["quality_ratio>0.9"])
    ref: list[FakeOpenAIServer] = []
    srv = FakeOpenAIServer(_degrading_agent(ref), latency_ms=60, record=False)
    ref.append(srv)
    with srv:  # started: its port is known
        config = _config(srv, case_filter=("weather",))
        bad = run_load_file(suite, config, tmp_path / "bad", profile=profile)
    (verdict,) = bad.report.thresholds
    assert not verdict.passed
    assert bad.report.totals.baseline_pass_rate == 1.0
    assert bad.report.totals.quality_ratio is not None
    assert bad.report.totals.quality_ratio < 0.9
    with FakeOpenAIServer(_agent, latency_ms=60, record=False) as good_srv:
        good = run_load_file(
            suite, _config(good_srv, case_filter=("weather",)), tmp_path / "good", profile=profile
        )
    assert good.passed
    assert good.report.totals.quality_ratio == pytest.approx(1.0)


def test_the_error_rate_gate_fails_a_run_past_capacity_and_passes_within(
    suite: Path, tmp_path: Path
) -> None:
    profile = _profile(users=4, duration="1s", think_time=0.005, thresholds=["error_rate<0.01"])
    with FakeOpenAIServer(
        _agent, latency_ms=100, max_concurrent=2, over_capacity="reject", record=False
    ) as srv:
        bad = run_load_file(suite, _config(srv), tmp_path / "bad", profile=profile)
    assert not bad.passed
    assert bad.report.totals.errors_by_kind["429"] > 0
    with FakeOpenAIServer(
        _agent, latency_ms=100, max_concurrent=4, over_capacity="reject", record=False
    ) as srv:
        good = run_load_file(suite, _config(srv), tmp_path / "good", profile=profile)
    assert good.passed
    assert good.report.totals.errors == 0


def test_the_p95_gate_fails_a_run_over_its_budget_and_passes_under_it(
    suite: Path, tmp_path: Path
) -> None:
    # no timing luck: every session waits 50 ms at the server, and no session takes an hour
    with FakeOpenAIServer(_agent, latency_ms=50, record=False) as srv:
        bad = run_load_file(
            suite,
            _config(srv),
            tmp_path / "bad",
            profile=_profile(users=2, sessions=6, thresholds=["p95<40"]),
        )
        good = run_load_file(
            suite,
            _config(srv),
            tmp_path / "good",
            profile=_profile(users=2, sessions=6, thresholds=["p(95)<3600000"]),
        )
    assert not bad.passed
    assert "breaks p95<40" in bad.report.thresholds[0].explanation
    assert good.passed


def test_max_cost_stops_the_run_and_needs_a_price(suite: Path, tmp_path: Path) -> None:
    profile = _profile(users=2, duration="30s")
    with FakeOpenAIServer(_agent, latency_ms=5, record=False) as srv:
        with pytest.raises(UserError, match="no price for 'openai:fake-model'"):
            run_load_file(suite, _config(srv), tmp_path / "x", profile=profile, max_cost=1.0)
        assert not (tmp_path / "x").exists()
        lines: list[str] = []
        out = run_load_file(
            suite,
            _config(srv),
            tmp_path / "run",
            profile=profile,
            max_cost=0.05,
            price=(100.0, 100.0),
            notify=lines.append,
        )
    r = out.report
    assert r.stopped_by == "max_cost"
    assert r.totals.cost_usd is not None
    assert r.estimate is not None
    assert r.estimate.usd is not None
    # a session costs ~(tokens x $100 / 1M); the run stops within the sessions in flight
    per_session = r.totals.cost_usd / max(1, r.totals.sessions)
    assert r.totals.cost_usd <= 0.05 + 2 * per_session + 1e-9  # 2 users: at most 2 in flight
    assert r.duration_s < 30
    assert lines[0].startswith("estimated cost (before the run): $")
    assert lines[1].startswith("baseline (unloaded, one at a time): 3 sessions  p50 ")
    assert lines[2].startswith("estimated cost (after the baseline): $")


def test_a_suite_without_a_profile_is_a_user_error(suite: Path, tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no load profile"):
        run_load_file(suite, RunConfig(agent="mock:x"), tmp_path / "run")
