"""The garbage collector's pace during a run (runner/_gc.py): the young-generation threshold is
raised while cases are in flight, in this process and in ``--workers`` processes, and given
back when the last overlapping run ends; a collector turned off or already slower is left alone.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from runner_helpers import agent, make_suite

from agentgauge.providers import ModelRequest
from agentgauge.runner import RunConfig, run_suite, run_suite_file
from agentgauge.runner._gc import CALL_PHASE_THRESHOLD, call_phase_gc

SUITE = """\
name: gc-pace
tools:
  - name: get_weather
    description: weather
    parameters: {type: object, properties: {city: {type: string}}}
cases:
  - {id: a, input: weather in Paris}
  - {id: b, input: weather in Oslo}
"""

AGENT = """\
import gc

def agent(messages, tools):
    return f"threshold {gc.get_threshold()[0]}"
"""


@pytest.fixture(autouse=True)
def _default_thresholds() -> Iterator[None]:
    saved = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield
    gc.set_threshold(*saved)


def test_a_run_raises_the_young_threshold_and_gives_it_back(tmp_path: Path) -> None:
    seen: list[int] = []

    def record(request: ModelRequest) -> Any:
        seen.append(gc.get_threshold()[0])
        return "sunny"

    suite = make_suite([{"id": "a", "input": "Paris"}, {"id": "b", "input": "Oslo"}])
    config = RunConfig(agent="mock:", progress=False, cache=False)
    run_suite(suite, config, tmp_path / "run", provider=agent(record))
    assert seen == [CALL_PHASE_THRESHOLD, CALL_PHASE_THRESHOLD]
    assert gc.get_threshold() == (700, 10, 10)


def test_worker_processes_run_their_cases_at_the_same_pace(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "gc_agent.py").write_text(AGENT)
    config = RunConfig(
        agent=f"python:{tmp_path / 'gc_agent.py'}:agent",
        progress=False,
        cache=False,
        workers=2,
        max_concurrency=2,
    )
    from agentgauge.rundir import iter_results

    outcome = run_suite_file(tmp_path / "suite.yaml", config, tmp_path / "run")
    texts = sorted(r.text or "" for r in iter_results(outcome.run_dir))
    assert texts == [f"threshold {CALL_PHASE_THRESHOLD}"] * 2


def test_overlapping_runs_restore_the_threshold_when_the_last_ends() -> None:
    first, second = call_phase_gc(), call_phase_gc()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first run ends while the second still runs
    assert gc.get_threshold()[0] == CALL_PHASE_THRESHOLD
    second.__exit__(None, None, None)
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("given", [(0, 10, 10), (50_000, 5, 5)])
def test_a_collector_off_or_already_slower_is_left_alone(given: tuple[int, int, int]) -> None:
    gc.set_threshold(*given)
    with call_phase_gc():
        assert gc.get_threshold() == given
    assert gc.get_threshold() == given
