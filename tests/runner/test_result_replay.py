"""Replaying whole case results from the cache: when it happens, and when it must not."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest
from runner_helpers import agent, make_suite, weather_agent

from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, RunOutcome, _replay, run_suite
from agentgauge.schema import Case, CaseResult, Message, Score, Suite
from agentgauge.testing import MockProvider

CASES: list[dict[str, Any]] = [
    {
        "id": f"c{i}",
        "input": f"city {i}",
        "tool_results": {"get_weather": {"result": i}},
        "expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": f"city {i}"}}]},
    }
    for i in range(4)
]


def _run(
    suite: Suite, tmp_path: Path, name: str, provider: MockProvider | None = None, **cfg: Any
) -> tuple[RunOutcome, MockProvider]:
    p = provider or agent(weather_agent)
    config = RunConfig(progress=False, cache_dir=tmp_path / "cache", **cfg)
    return run_suite(suite, config, tmp_path / name, provider=p), p


def _lines(run_dir: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in (run_dir / "results.jsonl").read_bytes().splitlines()]


def test_unchanged_rerun_replays_every_result(tmp_path: Path) -> None:
    suite = make_suite(CASES)
    first, _ = _run(suite, tmp_path, "r1")
    assert (first.replayed, first.provider_calls) == (0, 8)
    second, p = _run(suite, tmp_path, "r2")
    assert p.calls == 0
    assert (second.replayed, second.ran, second.provider_calls, second.cache_hits) == (4, 4, 0, 8)
    assert (second.passed, second.failed, second.errors) == (first.passed, first.failed, 0)
    before = {d["case_id"]: d for d in _lines(tmp_path / "r1")}
    after = {d["case_id"]: d for d in _lines(tmp_path / "r2")}
    assert all(d["replayed"] is True for d in after.values())
    # the very same result, trace and latencies included, only marked as replayed
    assert {k: {**v, "replayed": True} for k, v in before.items()} == after
    # and every replayed line is a valid result for the readers
    assert sorted(r.case_id for r in iter_results(tmp_path / "r2")) == ["c0", "c1", "c2", "c3"]


def test_changed_expectation_is_scored_again_from_cached_responses(tmp_path: Path) -> None:
    _run(make_suite(CASES), tmp_path, "r1")
    # (runner tests score with a stand-in that checks the tool names called)
    changed = [{**CASES[0], "expect": {"tool_calls": [{"name": "get_forecast"}]}}]
    out, p = _run(make_suite(changed + CASES[1:]), tmp_path, "r2")
    assert p.calls == 0  # the requests are the same: the response cache answers them
    assert out.replayed == 3
    results = {r.case_id: r for r in iter_results(tmp_path / "r2")}
    assert results["c0"].status == "failed"
    assert not results["c0"].replayed
    assert "get_forecast" in results["c0"].explanation
    assert results["c1"].replayed


@pytest.mark.parametrize(
    "change",
    [
        {"seed": 7},
        {"max_steps": 3},
        {"timeout_s": 12.0},
        {"stream": True},
        {"trials": 2},
    ],
)
def test_run_options_that_decide_a_result_are_part_of_the_key(
    tmp_path: Path, change: dict[str, Any]
) -> None:
    suite = make_suite(CASES[:2])
    _run(suite, tmp_path, "r1")
    out, _ = _run(suite, tmp_path, "r2", **change)
    expected = 2 if change == {"trials": 2} else 0  # trial 0 is the same, trial 1 is new
    assert out.replayed == expected


def test_another_agent_or_suite_header_misses(tmp_path: Path) -> None:
    suite = make_suite(CASES[:2])
    _run(suite, tmp_path, "r1")
    out, _ = _run(suite, tmp_path, "r2", provider=agent(weather_agent, name="mock:other"))
    assert out.replayed == 0
    out, _ = _run(make_suite(CASES[:2], defaults={"system": "Be brief."}), tmp_path, "r3")
    assert out.replayed == 0


def test_new_agentgauge_code_never_replays_old_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = make_suite(CASES[:2])
    _run(suite, tmp_path, "r1")
    monkeypatch.setattr(_replay, "code_fingerprint", lambda: b"edited scoring code")
    out, p = _run(suite, tmp_path, "r2")
    assert out.replayed == 0
    assert p.calls == 0  # the responses themselves are still cached


def test_source_fingerprint_changes_with_any_module(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "scoring").mkdir(parents=True)
    module = pkg / "scoring" / "_args.py"
    module.write_text("X = 1\n")
    (pkg / "README.md").write_text("docs")
    before = _replay.source_fingerprint(pkg)
    assert _replay.source_fingerprint(pkg) == before
    (pkg / "README.md").write_text("other docs")  # not code
    assert _replay.source_fingerprint(pkg) == before
    module.write_text("X = 22\n")  # an edit (a new size; a same-size edit has a new mtime)
    assert _replay.source_fingerprint(pkg) != before
    os.utime(module, ns=(1, 1))
    touched = _replay.source_fingerprint(pkg)
    os.utime(module, ns=(2, 2))
    assert _replay.source_fingerprint(pkg) != touched
    assert len(_replay.code_fingerprint()) == 16


#: the fakes live in runner_fakes.py beside this file: the suite's folder is this one, and the
#: run allows the suite's code
FAKES = {"allow_suite_code": True, "suite_path": str(Path(__file__).parent)}


def test_cases_with_function_fakes_are_always_run(tmp_path: Path) -> None:
    fake = {"get_weather": {"function": "runner_fakes:lookup"}}
    cases = [{**CASES[0], "tool_results": fake}, CASES[1]]
    _run(make_suite(cases), tmp_path, "r1", **FAKES)
    out, _ = _run(make_suite(cases), tmp_path, "r2", **FAKES)
    assert out.replayed == 1
    assert {r.case_id: r.replayed for r in iter_results(tmp_path / "r2")} == {
        "c0": False,
        "c1": True,
    }
    # a suite tool simulated by a function: no case offered that tool replays
    tools = [
        {
            "name": "get_weather",
            "description": "Current weather in a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
            "simulation": {"function": "runner_fakes:lookup"},
        }
    ]
    plain = [{k: v for k, v in c.items() if k != "tool_results"} for c in CASES[:2]]
    suite = Suite.model_validate({"name": "t", "tools": tools, "cases": plain})
    _run(suite, tmp_path, "r3", **FAKES)
    out, _ = _run(suite, tmp_path, "r4", **FAKES)
    assert out.replayed == 0


class CountingJudge:
    name = "judge"

    def __init__(self) -> None:
        self.calls = 0

    async def score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        self.calls += 1
        return [Score(name="judge", value=1.0, passed=True)]


def test_runs_with_extra_scorers_do_not_replay(tmp_path: Path) -> None:
    suite = make_suite(CASES[:2])
    _run(suite, tmp_path, "r1", extra_scorers=[CountingJudge()])
    judge = CountingJudge()
    out, _ = _run(suite, tmp_path, "r2", extra_scorers=[judge])
    assert out.replayed == 0
    assert judge.calls == 2


def test_errors_are_never_replayed(tmp_path: Path) -> None:
    suite = make_suite(CASES[:1])
    failing = MockProvider([RuntimeError("boom")], repeat_last=True, name="mock:test")
    first, _ = _run(suite, tmp_path, "r1", provider=failing, retries=0)
    assert first.errors == 1
    out, p = _run(suite, tmp_path, "r2")
    assert out.replayed == 0
    assert p.calls == 2
    assert out.passed == 1


def test_replay_off_and_cache_off(tmp_path: Path) -> None:
    suite = make_suite(CASES[:2])
    _run(suite, tmp_path, "r1")
    out, p = _run(suite, tmp_path, "r2", replay=False)
    assert (out.replayed, p.calls, out.cache_hits) == (0, 0, 4)
    out, p = _run(suite, tmp_path, "r3", cache=False)
    assert (out.replayed, p.calls) == (0, 4)


def test_streamed_cases_replay_too(tmp_path: Path) -> None:
    suite = make_suite(CASES)
    _run(suite, tmp_path, "r1")
    header = make_suite([])
    config = RunConfig(progress=False, cache_dir=tmp_path / "cache")
    out = run_suite(
        header, config, tmp_path / "r2", provider=agent(weather_agent), cases=iter(suite.cases)
    )
    assert out.replayed == 4


def test_resume_after_replay_keeps_every_pair_once(tmp_path: Path) -> None:
    cases = [{**CASES[0], "id": f"k{i}", "input": f"city {i}"} for i in range(40)]
    suite = make_suite(cases)
    _run(suite, tmp_path, "r1")
    _run(suite, tmp_path, "r2")
    # a kill mid-run: cut the journal in the middle of a line
    journal = tmp_path / "r2" / "results.jsonl"
    data = journal.read_bytes()
    journal.write_bytes(data[: len(data) // 2])
    out, _ = _run(suite, tmp_path, "r2", resume=True)
    ids = [r.case_id for r in iter_results(tmp_path / "r2")]
    assert sorted(ids) == sorted(c["id"] for c in cases)
    assert out.replayed == out.ran
    assert out.ran + out.resumed == 40


def test_summary_and_reports_say_how_many_results_were_replayed(tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    from agentgauge.metrics import summarize
    from agentgauge.report import render_console, render_markdown

    suite = make_suite(CASES)
    _run(suite, tmp_path, "r1")
    assert summarize(tmp_path / "r1").replayed == 0
    _run(suite, tmp_path, "r2")
    summary = summarize(tmp_path / "r2")
    assert summary.replayed == 4
    out = StringIO()
    render_console(summary, Console(file=out, width=120))
    assert "4 of 4 results replayed from the cache" in out.getvalue()
    assert "4 results (4 replayed from the cache)" in render_markdown(summary)
