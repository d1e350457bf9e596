"""The run history keys an agent by what it is, not how its path was typed, and does not count
a fully replayed run as a new measurement (issue 22, item 10)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.metrics import read_history
from agentgauge.metrics._history import agent_identity

AGENT = "def agent(messages, tools):\n    return 'word0 ' + messages[-1].content\n"


def suite(folder: Path, extra: str = "") -> Path:
    path = folder / "suite.yaml"
    path.write_text(
        f"name: words\n{extra}cases:\n"
        "  - id: say-0\n    input: please say word0\n    expect: {response_contains: [word0]}\n"
        "  - id: say-1\n    input: please say word1\n    expect: {response_contains: [word1]}\n",
        encoding="utf-8",
    )
    return path


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, ["run", *args, "--no-progress"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_relative_and_absolute_paths_of_one_python_agent_are_one_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: python:examples/... and python:/abs/examples/... were two agents."""
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "agent.py").write_text(AGENT, encoding="utf-8")
    path = suite(tmp_path)
    history = tmp_path / "h.sqlite"
    monkeypatch.chdir(tmp_path)
    common = [str(path), "--history", str(history), "--no-replay", "--no-cache"]
    run(*common, "--agent", "python:agents/agent.py:agent", "-o", "r1")
    run(*common, "--agent", f"python:{tmp_path / 'agents' / 'agent.py'}:agent", "-o", "r2")
    run(*common, "--agent", "python:./agents/../agents/agent.py:agent", "-o", "r3")
    entries = read_history(path=history)
    absolute = f"python:{(tmp_path / 'agents' / 'agent.py').resolve()}:agent"
    assert [e.agent for e in entries] == [absolute] * 3
    # the filter finds them however the path is typed
    assert len(read_history(agent="python:agents/agent.py:agent", path=history)) == 3
    out = CliRunner().invoke(
        cli, ["history", "--history", str(history), "--agent", "python:agents/agent.py:agent"]
    )
    assert f"words · {absolute}: 3 run(s)" in out.output.replace("\n", "")


def test_the_suites_own_agent_is_resolved_from_the_suites_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "agent.py").write_text(AGENT, encoding="utf-8")
    path = suite(folder, "defaults: {agent: 'python:agent.py:agent'}\n")
    history = tmp_path / "h.sqlite"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the run is made from another folder
    run(str(path), "--allow-suite-code", "--history", str(history), "-o", "r1", "--no-cache")
    run(
        str(path), "--agent", f"python:{folder / 'agent.py'}:agent", "--history", str(history),
        "-o", "r2", "--no-cache",
    )  # fmt: skip
    [agent] = {e.agent for e in read_history(path=history)}
    assert agent == f"python:{(folder / 'agent.py').resolve()}:agent"


def test_agent_identity_leaves_other_specs_alone(tmp_path: Path) -> None:
    assert agent_identity("openai:gpt-4o?api=responses") == "openai:gpt-4o?api=responses"
    assert agent_identity("python:my_pkg.agents:run") == "python:my_pkg.agents:run"
    assert agent_identity("python:a.py:agent?thread=0", tmp_path) == (
        f"python:{tmp_path.resolve() / 'a.py'}:agent?thread=0"
    )
    assert agent_identity("langgraph:g/graph.py:graph", tmp_path) == (
        f"langgraph:{tmp_path.resolve() / 'g' / 'graph.py'}:graph"
    )


def test_a_fully_replayed_run_is_not_a_new_data_point(tmp_path: Path) -> None:
    """Regression: a run whose every result was copied from the cache was recorded as a new run
    (the same measurement counted twice, narrowing the band)."""
    path = suite(tmp_path)
    history = tmp_path / "h.sqlite"
    common = [str(path), "--agent", "mock:echo", "--history", str(history)]
    run(*common, "-o", str(tmp_path / "r1"))
    result = CliRunner().invoke(cli, ["run", *common, "-o", str(tmp_path / "r2"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "2 results replayed" in result.stderr
    assert (
        f"note: run history: {tmp_path / 'r2'} not recorded: all 2 results were replayed from "
        "the cache (an earlier run's results, not a new measurement); run with --no-replay to "
        "measure again" in result.stderr
    )
    assert [Path(e.run_dir).name for e in read_history(path=history)] == ["r1"]
    # measured again (the cached responses re-driven): a new data point
    run(*common, "-o", str(tmp_path / "r3"), "--no-replay")
    # runs started in the same second come back in the order they were recorded
    assert [Path(e.run_dir).name for e in read_history(path=history)] == ["r1", "r3"]
    doc = json.loads(
        CliRunner().invoke(cli, ["history", "--history", str(history), "--json"]).output
    )
    assert len(doc["groups"][0]["runs"]) == 2
