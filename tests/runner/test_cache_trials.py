"""The response cache, trials, extra scorers, filters and the run record."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import orjson
import pytest
from runner_helpers import agent, make_suite, weather_agent

from agentgauge.errors import UserError
from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, default_cache_dir, read_record, run_suite
from agentgauge.schema import Case, CaseResult, Message, Score

CASES = [
    {"id": f"c{i}", "input": f"city {i}", "tool_results": {"get_weather": {"result": i}}}
    for i in range(4)
]


def test_default_cache_dir_follows_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("AGENTGAUGE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "agentgauge"


def test_second_run_is_served_from_the_cache(tmp_path: Path) -> None:
    suite = make_suite(CASES)
    # replay off: every case is driven again, each model call answered by the response cache
    cfg = RunConfig(progress=False, cache_dir=tmp_path / "cache", replay=False)
    first = agent(weather_agent)
    out1 = run_suite(suite, cfg, tmp_path / "r1", provider=first)
    assert (out1.provider_calls, out1.cache_hits) == (8, 0)
    second = agent(weather_agent)
    out2 = run_suite(suite, cfg, tmp_path / "r2", provider=second)
    assert second.calls == 0
    assert (out2.provider_calls, out2.cache_hits) == (0, 8)
    r1 = {r.case_id: r for r in iter_results(tmp_path / "r1")}
    r2 = {r.case_id: r for r in iter_results(tmp_path / "r2")}
    assert {k: v.messages for k, v in r1.items()} == {k: v.messages for k, v in r2.items()}
    assert all(e.cached for r in r2.values() for e in r.trace if e.kind == "model")
    assert r2["c0"].usage == r1["c0"].usage


def test_changed_request_misses_the_cache(tmp_path: Path) -> None:
    cfg = RunConfig(progress=False, cache_dir=tmp_path / "cache")
    run_suite(make_suite(CASES[:1]), cfg, tmp_path / "r1", provider=agent(weather_agent))
    changed = make_suite([{**CASES[0], "input": "another city"}])
    p = agent(weather_agent)
    run_suite(changed, cfg, tmp_path / "r2", provider=p)
    assert p.calls == 2
    other_model = agent(weather_agent, name="mock:other")
    run_suite(make_suite(CASES[:1]), cfg, tmp_path / "r3", provider=other_model)
    assert other_model.calls == 2


def test_no_cache(tmp_path: Path) -> None:
    cfg = RunConfig(progress=False, cache=False, cache_dir=tmp_path / "cache")
    run_suite(make_suite(CASES), cfg, tmp_path / "r1", provider=agent(weather_agent))
    p = agent(weather_agent)
    run_suite(make_suite(CASES), cfg, tmp_path / "r2", provider=p)
    assert p.calls == 8
    assert not (tmp_path / "cache").exists()


def test_trials_are_independent_and_recorded(tmp_path: Path) -> None:
    cfg = RunConfig(progress=False, trials=3, cache_dir=tmp_path / "cache")
    p = agent(weather_agent)
    out = run_suite(make_suite(CASES[:2]), cfg, tmp_path / "r1", provider=p)
    assert p.calls == 12  # trial > 0 is never served trial 0's response
    pairs = sorted((r.case_id, r.trial) for r in iter_results(tmp_path / "r1"))
    assert pairs == [(c, t) for c in ("c0", "c1") for t in range(3)]
    assert out.record.trials == 3
    again = agent(weather_agent)
    run_suite(make_suite(CASES[:2]), cfg, tmp_path / "r2", provider=again)
    assert again.calls == 0  # each trial is cached under its own key


def test_suite_default_trials(tmp_path: Path) -> None:
    suite = make_suite(CASES[:1], defaults={"trials": 2})
    run_suite(suite, RunConfig(progress=False, cache=False), tmp_path, provider=agent("x"))
    assert [r.trial for r in iter_results(tmp_path)] == [0, 1]


class Judge:
    name = "judge"

    def __init__(self, passed: bool | None = True, crash: bool = False) -> None:
        self.passed = passed
        self.crash = crash
        self.seen: list[tuple[str, str, int]] = []

    async def score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        self.seen.append((case.id, result.status, len(turns)))
        if self.crash:
            raise RuntimeError("judge unreachable")
        value = 1.0 if self.passed else 0.0
        return [Score(name="judge", value=value, passed=self.passed, explanation="too vague")]


def test_extra_scorers_append_scores(tmp_path: Path) -> None:
    judge = Judge(passed=False)
    cfg = RunConfig(progress=False, cache=False, extra_scorers=[judge])
    run_suite(make_suite(CASES[:1]), cfg, tmp_path, provider=agent(weather_agent))
    [r] = list(iter_results(tmp_path))
    assert judge.seen == [("c0", "passed", 1)]
    assert [s.name for s in r.scores][-1] == "judge"
    assert r.status == "failed"
    assert "judge: too vague" in r.explanation


def test_failing_extra_scorer_marks_error(tmp_path: Path) -> None:
    cfg = RunConfig(progress=False, cache=False, extra_scorers=[Judge(crash=True)])
    run_suite(make_suite(CASES[:1]), cfg, tmp_path, provider=agent(weather_agent))
    [r] = list(iter_results(tmp_path))
    assert r.status == "error"
    assert r.error == "scorer 'judge' crashed: RuntimeError: judge unreachable"


def test_filter_and_limit(tmp_path: Path) -> None:
    cases = [
        {"id": "w-1", "input": "a", "category": "edge_case"},
        {"id": "w-2", "input": "b", "tags": ["smoke"]},
        {"id": "x-1", "input": "c"},
        {"id": "x-2", "input": "d", "tags": ["smoke"]},
    ]
    cfg = RunConfig(progress=False, cache=False, case_filter=("edge_*", "smoke"), limit=2)
    out = run_suite(make_suite(cases), cfg, tmp_path, provider=agent("ok"))
    assert [r.case_id for r in iter_results(tmp_path)] == ["w-1", "w-2"]
    assert out.record.case_count == 2


def test_run_record_and_refusal_to_overwrite(tmp_path: Path) -> None:
    cfg = RunConfig(progress=False, cache=False, seed=5, suite_path="suites/t.yaml")
    run_suite(make_suite(CASES[:1]), cfg, tmp_path, provider=agent("ok"))
    record = read_record(tmp_path)
    assert record.suite == "t"
    assert record.agent == "mock:test"
    assert record.finished_at is not None
    assert record.suite_path == "suites/t.yaml"
    assert record.options["seed"] == 5
    with pytest.raises(UserError, match="already holds results"):
        run_suite(make_suite(CASES[:1]), cfg, tmp_path, provider=agent("ok"))


SECRET = "sk-test-0123456789abcdefSECRET"


def test_secrets_never_reach_any_output_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("AGENTGAUGE_API_KEY", SECRET)
    cfg = RunConfig(
        progress=False,
        cache_dir=tmp_path / "cache",
        agent_options={"api_key": SECRET, "base_url": "http://127.0.0.1:9/v1"},
        trials=2,
    )
    run_suite(make_suite(CASES), cfg, tmp_path / "run", provider=agent(weather_agent))
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert any(p.name == "results.jsonl" for p in files)
    assert any(p.suffix == ".sqlite3" for p in files)
    for path in files:
        assert SECRET.encode() not in path.read_bytes(), path
    record = orjson.loads((tmp_path / "run" / "run.json").read_bytes())
    assert record["options"]["base_url"] == "http://127.0.0.1:9/v1"
    assert os.environ["OPENAI_API_KEY"] == SECRET


def test_cache_key_covers_the_offered_tools(tmp_path: Path) -> None:
    cfg = RunConfig(progress=False, cache_dir=tmp_path / "cache")
    base = {"id": "t", "input": "Paris", "tool_results": {"get_weather": {"result": 1}}}
    run_suite(make_suite([base]), cfg, tmp_path / "r1", provider=agent(weather_agent))
    inline = {"name": "get_weather", "description": "changed description"}
    p = agent(weather_agent)
    run_suite(make_suite([{**base, "tools": [inline]}]), cfg, tmp_path / "r2", provider=p)
    assert p.calls == 2  # a different tool definition is a different request
    p = agent(weather_agent)
    run_suite(make_suite([{**base, "tools": [inline]}]), cfg, tmp_path / "r3", provider=p)
    assert p.calls == 0


def test_provider_max_concurrency_caps_the_workers(tmp_path: Path) -> None:
    in_flight = 0
    peak = 0

    async def serial(request: object) -> str:
        nonlocal in_flight, peak
        import anyio

        in_flight += 1
        peak = max(peak, in_flight)
        await anyio.sleep(0.001)
        in_flight -= 1
        return "ok"

    provider = agent(serial)
    provider.max_concurrency = 1  # type: ignore[attr-defined]
    cfg = RunConfig(progress=False, cache=False, max_concurrency=8)
    out = run_suite(make_suite(CASES), cfg, tmp_path, provider=provider)
    assert peak == 1
    assert out.record.max_concurrency == 1


def test_secret_in_the_agent_spec_is_not_recorded(tmp_path: Path) -> None:
    from agentgauge.runner._suite import public_spec

    spec = f"openai:gpt-4o-mini?api_key={SECRET}&api=responses"
    assert public_spec(spec) == "openai:gpt-4o-mini?api=responses"
    assert public_spec(f"openai:m?token={SECRET}") == "openai:m"
    assert public_spec("mock:") == "mock:"
    cfg = RunConfig(progress=False, cache=False, agent=spec)
    p = agent("ok", name="openai:gpt-4o-mini")
    run_suite(make_suite(CASES[:1]), cfg, tmp_path, provider=p)
    assert SECRET.encode() not in (tmp_path / "run.json").read_bytes()


@pytest.mark.parametrize("stagger", [0.0, 0.002])
def test_every_pair_runs_once_whatever_the_stagger(tmp_path: Path, stagger: float) -> None:
    cases = [{"id": f"c{i}", "input": f"city {i}"} for i in range(25)]
    cfg = RunConfig(progress=False, cache=False, max_concurrency=7, trials=2, stagger_s=stagger)
    out = run_suite(make_suite(cases), cfg, tmp_path, provider=agent(weather_agent))
    pairs = sorted((r.case_id, r.trial) for r in iter_results(tmp_path))
    assert pairs == sorted((f"c{i}", t) for i in range(25) for t in range(2))
    assert out.ran == 50


def test_provider_cache_tag_is_part_of_the_key(tmp_path: Path) -> None:
    cfg = RunConfig(progress=False, cache_dir=tmp_path / "cache")
    first = agent(weather_agent)
    first.cache_tag = "prompt-v1"  # type: ignore[attr-defined]
    run_suite(make_suite(CASES[:1]), cfg, tmp_path / "r1", provider=first)
    second = agent(weather_agent)
    second.cache_tag = "prompt-v2"  # type: ignore[attr-defined]
    run_suite(make_suite(CASES[:1]), cfg, tmp_path / "r2", provider=second)
    assert second.calls == 2
