"""What a load run measures per interval, end to end against the loopback fake server: errors
by kind as the client really meets them (an HTTP 429, a 503, a connection the server drops, a
session past its timeout), time to first token of streamed replies, tokens per minute; and an
open-loop step ramp that finds the arrival rate a server of known capacity sustains.

Every figure is checked against the sessions themselves (``load.jsonl``, the journal), never
against a wall-clock expectation: the server's own latency is a floor, not a bound.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from agentgauge.load import run_load_file
from agentgauge.runner import RunConfig
from agentgauge.schema import LoadProfile, ToolCall
from agentgauge.testing import FakeDrop, FakeFault, FakeOpenAIServer, FakeReply, FakeRequest

SUITE = """name: load-errors
tools:
  - name: slow_lookup
    description: A lookup that takes a while
    parameters: {type: object, properties: {}}
    simulation: {result: {ok: true}, delay_s: 8}
cases:
  - {id: ok, input: plain question, expect: {behavior: answer}}
  - {id: e429, input: rate-limited question, expect: {behavior: answer}}
  - {id: e503, input: server-error question, expect: {behavior: answer}}
  - {id: drop, input: connection-drop question, expect: {behavior: answer}}
  - {id: slow, input: slow-tool question, expect: {behavior: answer}}
"""

#: the error kind each case's sessions must be counted as
KINDS = {"e429": "429", "e503": "5xx", "drop": "transport", "slow": "timeout"}


def _reply(request: FakeRequest) -> FakeReply:
    first = str(request.body["messages"][-1].get("content"))
    if first.startswith("rate-limited"):
        return FakeFault(429, message="slow down")
    if first.startswith("server-error"):
        return FakeFault(503, message="overloaded")
    if first.startswith("connection-drop"):
        return FakeDrop()
    if first.startswith("slow-tool"):
        return ToolCall(name="slow_lookup", arguments={})
    return "Here you are."


def _lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _config(server: FakeOpenAIServer, **kw: Any) -> RunConfig:
    options = {"base_url": server.base_url, "api_key": "sk-measures-key"}
    return RunConfig(agent="openai:fake-model", agent_options=options, retries=0, **kw)


def _bucket(end_s: float, width: float, count: int) -> int:
    return min(count - 1, max(0, int(end_s // width)))


def test_errors_are_counted_by_kind_in_the_interval_each_session_ends(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    # 5 users, each running the 5 cases from its own start: every case 3 times in 15 sessions;
    # the slow case's tool takes 8 s, the session's timeout is 2 s
    profile = LoadProfile.model_validate(
        {"users": 5, "sessions": 15, "interval": "500ms", "baseline": False}
    )
    with FakeOpenAIServer(_reply, latency_ms=20, record=False) as srv:
        out = run_load_file(suite, _config(srv, timeout_s=2.0), tmp_path / "run", profile=profile)
    r = out.report
    sessions = [s for s in _lines(tmp_path / "run" / "load.jsonl") if s["phase"] == "load"]
    assert len(sessions) == r.totals.sessions == 15
    # each case's sessions are errors of its kind, and only those
    for s in sessions:
        assert s["error_kind"] == KINDS.get(s["case_id"]), s
    runs = Counter(s["case_id"] for s in sessions)
    assert r.totals.errors_by_kind == {kind: runs[case] for case, kind in KINDS.items()}
    assert r.totals.errors == 15 - runs["ok"]
    assert r.totals.passed == runs["ok"]
    # ... and per interval: where each session ended
    count, width = len(r.intervals), r.interval_s
    for i, w in enumerate(r.intervals):
        ended = [s for s in sessions if _bucket(s["end_s"], width, count) == i]
        want = Counter(s["error_kind"] for s in ended if s["error_kind"] is not None)
        assert w.errors_by_kind == dict(want), (i, w.errors_by_kind, want)
        assert w.errors == sum(want.values())
        assert w.sessions == len(ended)
    # the timeouts end ~2 s after the rest: the kinds are spread over several intervals
    assert len({i for i, w in enumerate(r.intervals) if w.errors_by_kind}) >= 2
    journal = {x["case_id"]: x["error"] for x in _lines(tmp_path / "run" / "results.jsonl")}
    assert journal["slow"].startswith("timeout after 2s")


HI = """name: load-stream
tools: []
cases:
  - {id: hi, input: Say hello., expect: {behavior: answer}}
  - {id: long, input: Tell a story., expect: {behavior: answer}}
"""


def test_ttft_and_tokens_per_minute_are_measured_per_interval(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(HI, encoding="utf-8")
    profile = LoadProfile.model_validate(
        {"users": 3, "duration": "2s", "interval": "500ms", "think_time": 0.01}
    )
    story = "Once upon a time " * 20
    with FakeOpenAIServer([story], latency_ms=40, chunk_delay_ms=2, record=False) as srv:
        out = run_load_file(suite, _config(srv, stream=True), tmp_path / "run", profile=profile)
    r = out.report
    sessions = [s for s in _lines(tmp_path / "run" / "load.jsonl") if s["phase"] == "load"]
    assert sessions
    count, width = len(r.intervals), r.interval_s
    busy = 0
    for i, w in enumerate(r.intervals):
        ended = [s for s in sessions if _bucket(s["end_s"], width, count) == i]
        tokens = sum(s["input_tokens"] + s["output_tokens"] for s in ended)
        assert w.tokens_per_min == pytest.approx(tokens / (w.end_s - w.start_s) * 60, rel=1e-6)
        if not ended:
            assert w.ttft_ms is None
            continue
        busy += 1
        assert w.ttft_ms is not None
        assert w.latency_ms is not None
        # the server waits 40 ms before the first byte; the first token comes before the
        # reply's last one
        assert w.ttft_ms.p50 >= 40
        assert w.ttft_ms.max <= w.latency_ms.max
        ttfts = sorted(s["ttft_ms"] for s in ended)
        assert w.ttft_ms.max == pytest.approx(ttfts[-1])
    assert busy >= 3
    assert r.totals.tokens_per_min is not None
    assert r.totals.tokens_per_min > 0
    assert all(s["output_tokens"] > 20 for s in sessions)


def test_an_open_loop_step_ramp_brackets_the_rate_a_server_of_capacity_k_sustains(
    tmp_path: Path,
) -> None:
    # K = 2 at once, 250 ms each, queued past it: the server finishes at most K / 0.25 s = 8
    # sessions per second. The ramp offers 2 arrivals/s (a quarter of it: p95 ~0.25-0.55 s
    # over Poisson arrivals), then 16/s (twice it: the queue grows by 8 a second, p95 > 1.1 s
    # by the end of a 4 s step); the budget sits between
    suite = tmp_path / "suite.yaml"
    suite.write_text(HI, encoding="utf-8")
    profile = LoadProfile.model_validate(
        {
            "mode": "open",
            "step": {"start": 2, "step": 14, "every": "4s", "max": 30, "budget": ["p95<850"]},
            "max_in_flight": 200,
            "baseline": False,
        }
    )
    with FakeOpenAIServer(["Hi!"], latency_ms=250, max_concurrent=2, record=False) as srv:
        out = run_load_file(
            suite, _config(srv, case_filter=("hi",), seed=3), tmp_path / "run", profile=profile
        )
    r = out.report
    sat = r.saturation
    assert sat is not None
    assert sat.unit == "arrivals/s"
    assert sat.found
    assert sat.broken_by == ["p95<850"]
    assert sat.sustained == 2
    assert sat.saturated_at == 16
    assert sat.sustained < 8 < sat.saturated_at  # the capacity lies between the two steps
    assert r.stopped_by == "step_broken"
    assert srv.peak_in_flight <= 2
    assert srv.queued_peak > 2  # the second step queued at the server
    assert r.totals.errors == 0  # saturation showed as latency, not errors


def test_the_cost_is_estimated_before_any_request_and_matches_what_the_run_cost(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(HI, encoding="utf-8")
    profile = LoadProfile.model_validate({"users": 2, "sessions": 12})
    seen: list[tuple[str, int]] = []
    with FakeOpenAIServer(["Hello there, friend."], latency_ms=5, record=False) as srv:
        out = run_load_file(
            suite,
            _config(srv),
            tmp_path / "run",
            profile=profile,
            price=(3.0, 15.0),
            notify=lambda line: seen.append((line, srv.count)),
        )
    (before, requests), (_, _), (after, _) = seen[:3]
    assert before.startswith("estimated cost (before the run): $")
    assert requests == 0  # printed before the first session reached the server
    assert after.startswith("estimated cost (after the baseline): $")
    r = out.report
    assert r.estimate is not None
    assert r.estimate.usd is not None
    assert r.estimate.expected_sessions == 12
    assert r.totals.cost_usd is not None
    # the baseline's tokens per session x 12 sessions, against what the 12 sessions cost
    assert r.estimate.usd == pytest.approx(r.totals.cost_usd, rel=0.25)
    load = [s for s in _lines(tmp_path / "run" / "load.jsonl") if s["phase"] == "load"]
    usd = sum(s["input_tokens"] * 3.0 + s["output_tokens"] * 15.0 for s in load) / 1e6
    assert r.totals.cost_usd == pytest.approx(usd)


FAULTY = """name: load-faults
tools:
  - name: get_weather
    description: Current weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 21}}
cases:
  - id: weather
    input: What is the weather in Paris?
    expect:
      tool_calls: [{name: get_weather, arguments: {city: Paris}}]
    faults: [{kind: error, rate: 0.5, tools: [get_weather]}]
"""


def _weather(request: FakeRequest) -> FakeReply:
    if request.body["messages"][-1]["role"] == "tool":
        return "It is 21 C in Paris."
    return ToolCall(name="get_weather", arguments={"city": "Paris"})


def test_each_session_gets_the_cases_fault_injection_seeded_by_its_trial(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(FAULTY, encoding="utf-8")
    profile = LoadProfile.model_validate({"users": 1, "sessions": 16, "baseline": False})

    def faulted(run: str) -> list[tuple[int, bool]]:
        with FakeOpenAIServer(_weather, latency_ms=2, record=False) as srv:
            run_load_file(suite, _config(srv, seed=11), tmp_path / run, profile=profile)
        journal = _lines(tmp_path / run / "results.jsonl")
        return [
            (x["trial"], any(e.get("fault") for e in x["trace"] if e["kind"] == "tool"))
            for x in journal
        ]

    first = faulted("a")
    assert len(first) == 16
    hits = sum(f for _, f in first)
    assert 0 < hits < 16  # a fault in some sessions, at the case's rate, not in all or none
    assert faulted("b") == first  # the same sessions faulted again with the same seed
