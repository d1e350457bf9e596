"""``agentgauge cache info|clear`` and ``agentgauge run --replay/--no-replay``."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import _cache as cache_cli
from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, read_record

SUITE = """\
name: demo
tools:
  - name: get_weather
    description: weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 20}}
cases:
  - id: hello
    input: hello
    expect: {behavior: answer}
  - id: weather
    input: What's the weather in Paris?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: bye
    input: bye
    expect: {behavior: answer}
"""


def invoke(
    *args: str, env: dict[str, str] | None = None, input: str | None = None
) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), env=env, input=input, catch_exceptions=False)
    return result.exit_code, result.output


@pytest.fixture
def cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "cache"


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE)
    return path


def _run(suite_file: Path, cache_dir: Path, run_dir: Path, *flags: str) -> str:
    code, out = invoke(
        "run",
        str(suite_file),
        "--agent",
        "mock:echo",
        "-o",
        str(run_dir),
        "--no-progress",
        *flags,
        env={"AGENTGAUGE_CACHE_DIR": str(cache_dir)},
    )
    assert code == 0, out
    return out


@pytest.fixture
def filled(suite_file: Path, cache_dir: Path, tmp_path: Path) -> Path:
    """A cache holding one run of the 3-case suite (mock:echo: one model call a case)."""
    _run(suite_file, cache_dir, tmp_path / "r1")
    return cache_dir


def _info(cache_dir: Path) -> dict[str, object]:
    code, out = invoke("cache", "info", "--cache-dir", str(cache_dir), "--format", "json")
    assert code == 0, out
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def test_info_shows_path_size_counts_and_dates(filled: Path) -> None:
    code, out = invoke("cache", "info", "--cache-dir", str(filled))
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == f"file:      {filled / 'responses.sqlite3'}"
    assert lines[1].startswith("size:")
    assert "bytes)" in lines[1]
    assert lines[2] == "responses: 3  (model responses)"
    assert lines[3] == "judge:     0  (judge replies)"
    assert lines[4] == "results:   3  (replayable case results)"
    assert lines[5].startswith("oldest:    20")
    assert "ago)" in lines[5]
    data = _info(filled)
    assert data["exists"] is True
    assert (data["responses"], data["judge_entries"], data["results"]) == (3, 0, 3)
    assert isinstance(data["size_bytes"], int)
    assert data["size_bytes"] > 0
    assert isinstance(data["oldest"], str)
    assert data["oldest"].endswith("+00:00")


def test_info_honours_agentgauge_cache_dir(filled: Path) -> None:
    code, out = invoke("cache", "info", env={"AGENTGAUGE_CACHE_DIR": str(filled)})
    assert code == 0, out
    assert "responses: 3" in out


def test_missing_cache_info_says_so_and_clear_exits_0(tmp_path: Path) -> None:
    missing = tmp_path / "none"
    code, out = invoke("cache", "info", "--cache-dir", str(missing))
    assert (code, out) == (0, f"no cache at {missing / 'responses.sqlite3'}\n")
    data = _info(missing)
    assert (data["exists"], data["responses"], data["oldest"]) == (False, 0, None)
    code, out = invoke("cache", "clear", "--cache-dir", str(missing))
    assert code == 0
    assert "nothing to clear" in out
    assert not missing.exists()


def test_clear_all(filled: Path) -> None:
    code, out = invoke("cache", "clear", "--cache-dir", str(filled))
    assert code == 0, out
    removed, reclaimed = out.splitlines()
    assert removed == (
        f"removed 3 responses, 0 judge replies and 3 results from {filled / 'responses.sqlite3'}"
    )
    assert reclaimed.startswith("reclaimed ")
    assert "the file is now" in reclaimed
    data = _info(filled)
    assert (data["responses"], data["results"], data["oldest"]) == (0, 0, None)


def test_clear_older_than_removes_only_backdated_entries(filled: Path) -> None:
    with sqlite3.connect(filled / "responses.sqlite3") as db:
        old = time.time() - 40 * 86400
        db.execute("UPDATE responses SET created = ? WHERE rowid = 1", (old,))
        db.execute("UPDATE results SET created = ? WHERE rowid <= 2", (old,))
    db.close()
    code, out = invoke("cache", "clear", "--cache-dir", str(filled), "--older-than", "30d")
    assert code == 0, out
    assert out.startswith("removed 1 response, 0 judge replies and 2 results created before 20")
    data = _info(filled)
    assert (data["responses"], data["results"]) == (2, 1)


def test_clear_results_only_keeps_responses(filled: Path, suite_file: Path, tmp_path: Path) -> None:
    code, out = invoke("cache", "clear", "--cache-dir", str(filled), "--results-only")
    assert code == 0, out
    assert out.startswith("removed 3 results (responses kept) from ")
    data = _info(filled)
    assert (data["responses"], data["results"]) == (3, 0)
    # the next run re-drives every case from the cached responses: no model call
    summary = _run(suite_file, filled, tmp_path / "r2")
    assert "0 model calls, 3 cached, 0 results replayed" in summary


@pytest.mark.parametrize("bad", ["30", "d", "3x", "-1d", "1.d", ""])
def test_bad_duration_is_one_line_and_exit_2(filled: Path, bad: str) -> None:
    code, out = invoke("cache", "clear", "--cache-dir", str(filled), "--older-than", bad)
    assert code == 2
    assert out.count("\n") == 1
    assert out.startswith(f"--older-than {bad!r}: expected a number and a unit")
    assert _info(filled)["responses"] == 3


def test_durations() -> None:
    assert cache_cli.parse_duration("90m") == 5400
    assert cache_cli.parse_duration("12h") == 43200
    assert cache_cli.parse_duration("1d12h") == 1.5 * 86400
    assert cache_cli.parse_duration("2w") == 14 * 86400
    assert cache_cli.parse_duration("0.5s") == 0.5


def test_dry_run_changes_nothing(filled: Path) -> None:
    code, out = invoke("cache", "clear", "--cache-dir", str(filled), "--dry-run")
    assert code == 0, out
    assert out.startswith("would remove 3 responses, 0 judge replies and 3 results from ")
    assert _info(filled)["responses"] == 3


def test_on_a_terminal_clear_asks_first(filled: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_cli, "_interactive", lambda: True)
    code, out = invoke("cache", "clear", "--cache-dir", str(filled), input="n\n")
    assert code == 1
    assert "Remove 3 responses, 0 judge replies and 3 results from " in out
    assert "cancelled: nothing removed" in out
    assert _info(filled)["responses"] == 3
    code, out = invoke("cache", "clear", "--cache-dir", str(filled), "--results-only", input="y\n")
    assert code == 0, out
    assert "removed 3 results" in out
    code, out = invoke("cache", "clear", "--cache-dir", str(filled), "--yes")
    assert code == 0, out
    assert "Remove" not in out
    assert _info(filled)["responses"] == 0


def test_a_locked_cache_is_one_line_and_exit_2(
    filled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("agentgauge.providers._cache._MAINTENANCE_TIMEOUT_S", 0.05)
    holder = sqlite3.connect(filled / "responses.sqlite3", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        code, out = invoke("cache", "clear", "--cache-dir", str(filled))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert code == 2
    assert out == (
        f"{filled / 'responses.sqlite3'} is locked by another process (a run using the cache?); "
        "try again later\n"
    )


def test_run_replays_by_default_and_no_replay_redrives_from_cached_responses(
    filled: Path, suite_file: Path, tmp_path: Path
) -> None:
    summary = _run(suite_file, filled, tmp_path / "r2")
    assert "0 model calls, 3 cached, 3 results replayed" in summary
    assert all(r.replayed for r in iter_results(tmp_path / "r2"))
    summary = _run(suite_file, filled, tmp_path / "r3", "--no-replay")
    assert "0 model calls, 3 cached, 0 results replayed" in summary
    results = list(iter_results(tmp_path / "r3"))
    assert [r.case_id for r in results] == ["hello", "weather", "bye"]
    assert not any(r.replayed for r in results)
    lines = (tmp_path / "r3" / "results.jsonl").read_text().splitlines()
    assert all(json.loads(line)["replayed"] is False for line in lines)
    # the same results as the run that made them
    first = {r.case_id: r.status for r in iter_results(tmp_path / "r1")}
    assert {r.case_id: r.status for r in results} == first


def test_no_replay_from_the_environment(filled: Path, suite_file: Path, tmp_path: Path) -> None:
    code, out = invoke(
        "run",
        str(suite_file),
        "--agent",
        "mock:echo",
        "-o",
        str(tmp_path / "r2"),
        "--no-progress",
        env={"AGENTGAUGE_CACHE_DIR": str(filled), "AGENTGAUGE_REPLAY": "0"},
    )
    assert code == 0, out
    assert "0 results replayed" in out


def test_resume_takes_replay_from_the_command_line_else_run_json(
    filled: Path, tmp_path: Path
) -> None:
    run = tmp_path / "r1"
    record = read_record(run)
    assert RunConfig.from_record(record, run, progress=False).replay is True
    assert RunConfig.from_record(record, run, progress=False, replay=False).replay is False
    recorded = record.model_copy(update={"options": {**record.options, "replay": False}})
    assert RunConfig.from_record(recorded, run, progress=False).replay is False
    assert RunConfig.from_record(recorded, run, progress=False, replay=True).replay is True
    # --no-replay is accepted with --resume (it does not change what a result is)
    code, out = invoke(
        "run",
        "--resume",
        str(tmp_path / "r1"),
        "--no-replay",
        "--no-progress",
        env={"AGENTGAUGE_CACHE_DIR": str(filled)},
    )
    assert code == 0, out
