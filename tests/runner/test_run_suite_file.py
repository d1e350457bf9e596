"""One entry point for a suite file: ``run_suite_file`` (what `agentgauge run` and the pytest
plugin call) and ``run_suite`` from Python both score with the suite's ``scorers:`` section;
``RunConfig.from_record`` reads a run back with typed options and the library's defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.errors import RunInterrupted, UserError
from agentgauge.io import iter_results, load_suite
from agentgauge.runner import RunConfig, read_record, run_suite, run_suite_file

# the agent makes up a number: nothing the user or a tool said has 37
SUITE = """\
name: grounded
scorers:
  - scorer: numeric_grounding
cases:
  - id: made-up
    input: How warm is it in Oslo? It was 12 degrees this morning.
    expect: {behavior: answer}
  - id: grounded
    input: Repeat after me, it was 12 degrees.
    expect: {behavior: answer}
"""
SCRIPT = [{"text": "It is 37 degrees in Oslo."}, {"text": "It was 12 degrees."}]


def _write(tmp_path: Path) -> tuple[Path, str]:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    script = tmp_path / "agent.jsonl"
    script.write_text("".join(json.dumps(x) + "\n" for x in SCRIPT))
    return suite, f"mock:{script}"


def _grounding(run_dir: Path) -> dict[str, bool | None]:
    out = {}
    for r in iter_results(run_dir):
        [score] = [s for s in r.scores if s.name == "numeric_grounding"]
        out[r.case_id] = score.passed
    return out


def test_run_suite_file_scores_with_the_suite_scorers(tmp_path: Path) -> None:
    suite, agent = _write(tmp_path)
    config = RunConfig(agent=agent, max_concurrency=1, progress=False, cache=False)
    outcome = run_suite_file(suite, config, tmp_path / "run")
    assert _grounding(outcome.run_dir) == {"made-up": False, "grounded": True}
    made_up = next(r for r in iter_results(outcome.run_dir) if r.case_id == "made-up")
    assert made_up.status == "failed"
    assert read_record(outcome.run_dir).suite_path == str(suite.resolve())


def test_run_suite_from_python_scores_with_the_suite_scorers(tmp_path: Path) -> None:
    suite, agent = _write(tmp_path)
    config = RunConfig(agent=agent, max_concurrency=1, progress=False, cache=False)
    run_suite(load_suite(suite), config, tmp_path / "run")
    assert _grounding(tmp_path / "run") == {"made-up": False, "grounded": True}


def test_suite_scorers_can_be_left_out(tmp_path: Path) -> None:
    suite, agent = _write(tmp_path)
    config = RunConfig(agent=agent, progress=False, cache=False, suite_scorers=False)
    run_suite(load_suite(suite), config, tmp_path / "run")
    assert all(
        not r.scores or "numeric_grounding" not in [s.name for s in r.scores]
        for r in iter_results(tmp_path / "run")
    )


def test_a_filter_matching_nothing_is_reported(tmp_path: Path) -> None:
    suite, agent = _write(tmp_path)
    notes: list[str] = []
    config = RunConfig(agent=agent, progress=False, cache=False, case_filter=("nope*",))
    run_suite_file(suite, config, tmp_path / "run", notify=notes.append)
    assert notes == ["no case matches --filter nope*"]


def test_from_record_reads_typed_options_with_the_library_defaults(tmp_path: Path) -> None:
    suite, agent = _write(tmp_path)
    config = RunConfig(agent=agent, progress=False, cache=False, retries=0, seed=7, limit=1)
    run_suite_file(suite, config, tmp_path / "run")
    run = tmp_path / "run"
    record = read_record(run)
    again = RunConfig.from_record(record, run)
    assert (again.agent, again.retries, again.seed, again.limit, again.resume) == (
        agent,
        0,
        7,
        1,
        True,
    )
    assert again.cache is False
    bare = record.model_copy(update={"options": {}})
    defaults = RunConfig.from_record(bare, run)
    assert (defaults.retries, defaults.cache, defaults.replay) == (
        RunConfig().retries,
        RunConfig().cache,
        RunConfig().replay,
    )


def test_from_record_refuses_a_python_agent_not_named_again(tmp_path: Path) -> None:
    suite, agent = _write(tmp_path)
    run_suite_file(suite, RunConfig(agent=agent, progress=False, cache=False), tmp_path / "run")
    record = read_record(tmp_path / "run").model_copy(update={"agent": "python:agent.py:main"})
    with pytest.raises(UserError, match=r"add --agent python:agent\.py:main"):
        RunConfig.from_record(record, tmp_path / "run")
    named = RunConfig.from_record(record, tmp_path / "run", agent="python:agent.py:main")
    assert named.agent == "python:agent.py:main"


def test_ctrl_c_names_the_run_to_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import agentgauge.runner._suite as suite_module

    suite, agent = _write(tmp_path)

    def interrupted(*args: object, **kwargs: object) -> None:
        (tmp_path / "run").mkdir()
        (tmp_path / "run" / "run.json").write_text("{}")
        raise KeyboardInterrupt

    monkeypatch.setattr(suite_module, "run_suite", interrupted)
    with pytest.raises(RunInterrupted, match="--resume") as err:
        run_suite_file(suite, RunConfig(agent=agent, progress=False), tmp_path / "run")
    assert err.value.run_dir == tmp_path / "run"
    assert isinstance(err.value, KeyboardInterrupt)
