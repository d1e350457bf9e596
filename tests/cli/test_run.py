"""``agentgauge run``: flags, env vars, defaults, summary, resume and gate exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.runner import read_record

SUITE = """\
name: demo
tools:
  - name: get_weather
    description: weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 20}}
cases:
  - id: weather-paris
    category: tool_call
    input: What's the weather in Paris?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: hello
    category: no_tool
    tags: [smoke]
    input: hello
    expect: {behavior: answer}
  - id: weather-rome
    category: tool_call
    input: Weather in Rome?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Rome}}]}
"""


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return path


def invoke(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


def test_run_writes_results_record_and_summary(suite_file: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    code, out = invoke("run", str(suite_file), "--agent", "mock:", "-o", str(run_dir))
    assert code == 0, out
    results = list(iter_results(run_dir))
    assert [r.case_id for r in results] == ["weather-paris", "hello", "weather-rome"]
    assert {r.status for r in results} <= {"passed", "failed"}
    record = read_record(run_dir)
    assert record.agent == "mock:"
    assert record.suite == "demo"
    assert record.suite_path == str(suite_file.resolve())
    assert record.case_count == 3
    assert "demo" in out
    if (run_dir / "summary.json").exists():
        assert json.loads((run_dir / "summary.json").read_text())


def test_default_run_dir_and_agent_from_env(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = invoke(
        "run", str(suite_file), env={"AGENTGAUGE_AGENT": "mock:echo", "AGENTGAUGE_LIMIT": "1"}
    )
    assert code == 0, out
    [run_dir] = list((tmp_path / "runs").iterdir())
    assert run_dir.name.startswith("demo-")
    [r] = list(iter_results(run_dir))
    assert r.text == "What's the weather in Paris?"
    assert read_record(run_dir).agent == "mock:echo"


def test_filter_trials_and_options(suite_file: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    code, out = invoke(
        "run", str(suite_file), "--agent", "mock:", "-o", str(run_dir), "--filter", "smoke",
        "--filter", "weather-r*", "--trials", "2", "--no-cache", "--seed", "3", "--timeout", "5",
    )  # fmt: skip
    assert code == 0, out
    pairs = sorted((r.case_id, r.trial) for r in iter_results(run_dir))
    assert pairs == [("hello", 0), ("hello", 1), ("weather-rome", 0), ("weather-rome", 1)]
    opts = read_record(run_dir).options
    assert (opts["seed"], opts["timeout_s"], opts["cache"]) == (3, 5.0, False)
    assert opts["case_filter"] == ["smoke", "weather-r*"]


def test_existing_results_need_resume(suite_file: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert invoke("run", str(suite_file), "--agent", "mock:", "-o", str(run_dir))[0] == 0
    code, out = invoke("run", str(suite_file), "--agent", "mock:", "-o", str(run_dir))
    assert code == 2
    assert "--resume" in out
    code, out = invoke("run", "--resume", str(run_dir))
    assert code == 0, out
    assert len(list(iter_results(run_dir))) == 3  # nothing re-run


def test_resume_refuses_flags_it_would_ignore(suite_file: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    args = ("run", str(suite_file), "--agent", "mock:", "-o", str(run_dir), "--limit", "1")
    assert invoke(*args)[0] == 0
    code, out = invoke("run", "--resume", str(run_dir), "--agent", "mock:echo", "--trials", "3")
    assert code == 2
    assert "--agent, --trials cannot be changed on resume" in out
    assert len(list(iter_results(run_dir))) == 1  # nothing ran with the other agent
    # the concurrency may change; options from the environment are not flags the user typed
    code, out = invoke(
        "run", "--resume", str(run_dir), "--max-concurrency", "2", env={"AGENTGAUGE_AGENT": "x:"}
    )
    assert code == 0, out
    assert read_record(run_dir).agent == "mock:"


def test_user_errors_exit_2(tmp_path: Path, suite_file: Path) -> None:
    code, out = invoke("run")
    assert code == 2
    assert "SUITE" in out
    code, out = invoke("run", "--resume", str(tmp_path / "nowhere"))
    assert code == 2
    assert "not a run directory" in out
    code, out = invoke("run", str(suite_file), "--agent", "nosuch:thing", "-o", str(tmp_path / "x"))
    assert code == 2
    assert "unknown agent spec" in out


def test_nan_timeout_is_a_usage_error(tmp_path: Path, suite_file: Path) -> None:
    # click's FloatRange lets NaN through; every case then errored with "deadline must not be NaN"
    run_dir = tmp_path / "x"
    code, out = invoke(
        "run", str(suite_file), "--agent", "mock:", "-o", str(run_dir), "--timeout", "nan"
    )
    assert code == 2
    assert "--timeout must be a positive number" in out
    assert not (run_dir / "results.jsonl").exists()


def test_filter_matching_no_case_warns(suite_file: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "x"
    code, out = invoke(
        "run", str(suite_file), "--agent", "mock:", "-o", str(run_dir), "--filter", "wether*"
    )
    assert code == 0
    assert "warning: no case matches --filter wether*" in out
    code, out = invoke(
        "run",
        str(suite_file),
        "--agent",
        "mock:",
        "-o",
        str(tmp_path / "y"),
        "--filter",
        "weather*",
    )
    assert "no case matches" not in out


def test_gate_failure_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "gated.yaml"
    path.write_text(SUITE + "gates: {min_pass_rate: 1.0, min_sample_size: 1}\n")
    code, out = invoke("run", str(path), "--agent", "mock:", "-o", str(tmp_path / "r"), "--gate")
    assert code == 1, out


def test_env_vars_mirror_flags(suite_file: Path, tmp_path: Path) -> None:
    env = {
        "AGENTGAUGE_AGENT": "mock:",
        "AGENTGAUGE_MAX_CONCURRENCY": "3",
        "AGENTGAUGE_TRIALS": "2",
        "AGENTGAUGE_SEED": "9",
        "AGENTGAUGE_CACHE": "0",
        "AGENTGAUGE_MODE": "bfcl",
        "AGENTGAUGE_MAX_STEPS": "2",
    }
    code, out = invoke("run", str(suite_file), "-o", str(tmp_path / "r"), env=env)
    assert code == 0, out
    record = read_record(tmp_path / "r")
    assert (record.agent, record.max_concurrency, record.trials) == ("mock:", 3, 2)
    opts = record.options
    assert (opts["seed"], opts["cache"], opts["mode"], opts["max_steps"]) == (9, False, "bfcl", 2)
