"""``agentgauge run`` streams the cases of case files from disk (never a whole Suite of them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import iter_results, load_suite
from agentgauge.io import suite_hash as _suite_hash
from agentgauge.runner import read_record

HEADER = """\
name: streamed
tools:
  - name: get_weather
    description: weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 20}}
cases:
  - id: inline
    input: hello
    expect: {behavior: answer}
case_files: [cases.jsonl]
"""

N = 40


def case(i: int) -> dict[str, object]:
    return {
        "id": f"case-{i:03d}",
        "input": f"Weather in city {i}?",
        "tags": ["even"] if i % 2 == 0 else [],
        "expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": f"c{i}"}}]},
    }


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "suite.yaml").write_text(HEADER)
    (folder / "cases.jsonl").write_text("".join(json.dumps(case(i)) + "\n" for i in range(N)))
    return folder / "suite.yaml"


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.output


def test_one_result_per_case_and_the_record(suite: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    code, out = invoke("run", str(suite), "--agent", "mock:", "-o", str(run_dir), "--no-cache")
    assert code == 0, out
    ids = [r.case_id for r in iter_results(run_dir)]
    assert sorted(ids) == sorted(["inline", *(f"case-{i:03d}" for i in range(N))])
    record = read_record(run_dir)
    assert record.case_count == N + 1
    assert record.suite == "streamed"
    # the same hash as running the suite held in memory
    assert record.suite_hash == _suite_hash(load_suite(suite))
    assert (run_dir / "summary.json").exists()


def test_a_bare_jsonl_suite(suite: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    cases = suite.parent / "cases.jsonl"
    code, out = invoke("run", str(cases), "--agent", "mock:echo", "-o", str(run_dir))
    assert code == 0, out
    assert len(list(iter_results(run_dir))) == N
    assert read_record(run_dir).suite == "cases"


def test_filter_and_limit_count_the_selected_cases(suite: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    code, out = invoke(
        "run", str(suite), "--agent", "mock:", "-o", str(run_dir), "--filter", "even",
        "--limit", "5", "--trials", "2",
    )  # fmt: skip
    assert code == 0, out
    pairs = sorted((r.case_id, r.trial) for r in iter_results(run_dir))
    assert pairs == sorted((f"case-{i:03d}", t) for i in range(0, 10, 2) for t in (0, 1))
    assert read_record(run_dir).case_count == 5


def test_bad_case_file_lines_all_reported_before_any_model_call(
    suite: Path, tmp_path: Path
) -> None:
    lines = [json.dumps(case(i)) for i in range(6)]
    lines[1] = '{"id": "x"}'
    lines[3] = "{oops"
    lines[5] = json.dumps(case(0))  # the id of line 1 again
    (suite.parent / "cases.jsonl").write_text("\n".join(lines) + "\n")
    run_dir = tmp_path / "run"
    code, out = invoke("run", str(suite), "--agent", "mock:", "-o", str(run_dir))
    assert code == 2
    shown = suite.parent / "cases.jsonl"
    assert f"{shown}:2: input: required field is missing" in out
    assert f"{shown}:4: invalid JSON:" in out
    assert f"{shown}:6: id: case id 'case-000' is used twice (first at {shown}:1)" in out
    assert not (run_dir / "results.jsonl").exists()  # nothing ran


def test_a_bad_function_fake_in_a_case_file_stops_the_run(suite: Path, tmp_path: Path) -> None:
    bad = {**case(0), "tool_results": {"get_weather": {"function": "nosuch_module_xyz:fn"}}}
    (suite.parent / "cases.jsonl").write_text(json.dumps(bad) + "\n")
    run_dir = tmp_path / "run"
    code, out = invoke("run", str(suite), "--agent", "mock:", "-o", str(run_dir))
    assert code == 2, out
    assert "nosuch_module_xyz" in out
    assert not (run_dir / "results.jsonl").exists()


def test_resume_runs_only_what_is_missing(suite: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    code, out = invoke("run", str(suite), "--agent", "mock:", "-o", str(run_dir), "--no-cache")
    assert code == 0, out
    journal = run_dir / "results.jsonl"
    kept = journal.read_text().splitlines()[:15]  # as if the run had been stopped
    journal.write_text("\n".join(kept) + "\n")
    code, out = invoke("run", "--resume", str(run_dir))
    assert code == 0, out
    assert "15 resumed" in out
    ids = [r.case_id for r in iter_results(run_dir)]
    assert len(ids) == N + 1
    assert len(set(ids)) == N + 1
    assert read_record(run_dir).case_count == N + 1
