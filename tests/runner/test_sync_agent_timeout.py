"""A blocking (sync) ``python:`` agent is held to the case timeout like any other agent.

It runs in a worker thread with a deadline; at the deadline the case is an error ("timeout
after Ns") and the run goes on. The abandoned call keeps running but cannot reach the next
case: it got private copies of the messages and tools, and what it returns is dropped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from runner_helpers import make_suite

from agentgauge.io import iter_results
from agentgauge.providers._python import load_object
from agentgauge.runner import RunConfig, run_suite

AGENTS = Path(__file__).resolve().parent / "sync_agents.py"


def _config(spec: str, **extra: Any) -> RunConfig:
    return RunConfig(agent=f"python:{AGENTS}:{spec}", cache=False, progress=False, **extra)


def test_a_sleeping_sync_agent_times_out_and_the_run_goes_on(tmp_path: Path) -> None:
    suite = make_suite([{"id": "slow", "input": "be slow"}, {"id": "quick", "input": "be quick"}])
    outcome = run_suite(suite, _config("sleepy", timeout_s=0.5), tmp_path)
    by_id = {r.case_id: r for r in iter_results(tmp_path)}
    assert by_id["slow"].status == "error"
    assert by_id["slow"].error == "timeout after 0.5s"
    assert by_id["slow"].text is None  # the late answer never reached the transcript
    assert by_id["quick"].status == "passed"
    assert by_id["quick"].text == "a quick answer"
    assert (outcome.errors, outcome.passed) == (1, 1)


def test_an_inline_sync_agent_past_its_deadline_is_a_timeout(tmp_path: Path) -> None:
    # ?thread=0 blocks the event loop, so nothing can interrupt it; once it returns, the case
    # is past its deadline and recorded as a timeout rather than scored
    suite = make_suite([{"id": "slow", "input": "be slow"}])
    run_suite(suite, _config("sleepy?thread=0", timeout_s=0.5), tmp_path)
    [r] = list(iter_results(tmp_path))
    assert (r.status, r.error) == ("error", "timeout after 0.5s")


def test_an_abandoned_call_cannot_write_into_the_next_trial(tmp_path: Path) -> None:
    load_object(f"{AGENTS}:reset")()
    # a list input: both trials start from the same Message objects of the case, and every
    # case shares the suite's tool specs
    suite = make_suite([{"id": "c", "input": [{"role": "user", "content": "hello"}]}])
    cfg = _config("vandal", timeout_s=0.5, trials=2, max_concurrency=1)
    run_suite(suite, cfg, tmp_path)
    assert load_object(f"{AGENTS}:DONE").is_set()  # the abandoned call did scribble
    first, second = sorted(iter_results(tmp_path), key=lambda r: r.trial)
    assert (first.status, first.error) == ("error", "timeout after 0.5s")
    assert second.status == "passed"
    assert second.text == "answer to hello; tools: ['city']"
    assert "SCRIBBLED" not in second.model_dump_json()
    assert suite.cases[0].input[0].content == "hello"  # type: ignore[union-attr]
    assert "city" in suite.tools[0].parameters["properties"]
