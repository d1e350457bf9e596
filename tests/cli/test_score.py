"""``agentgauge score``: recorded responses scored into a run folder, in both modes."""

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
    parameters:
      type: object
      properties:
        city: {type: string}
        unit: {type: string, default: celsius}
      required: [city]
cases:
  - id: paris
    category: tool_call
    input: What's the weather in Paris?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Paris}}]}
  - id: hello
    category: no_tool
    input: hello
    expect: {behavior: no_tool}
  - id: rome
    category: tool_call
    input: Weather in Rome?
    expect: {tool_calls: [{name: get_weather, arguments: {city: Rome}}]}
"""


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


def responses(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.mark.parametrize("mode", ["default", "bfcl"])
def test_score_writes_results_summary_and_run(suite_file: Path, tmp_path: Path, mode: str) -> None:
    resp = responses(
        tmp_path,
        [
            {
                "case_id": "paris",
                "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
            },
            {"case_id": "hello", "text": "Hi there!"},
            {"case_id": "ghost", "text": "?"},
        ],
    )
    run_dir = tmp_path / "run"
    out = CliRunner().invoke(
        cli,
        ["score", str(suite_file), "--responses", str(resp), "-o", str(run_dir), "--mode", mode],
    )
    assert out.exit_code == 0, out.output
    assert "scored 3 result(s)" in out.output
    assert "1 response(s) for case ids not in the suite: ghost" in out.output
    results = {r.case_id: r for r in iter_results(run_dir)}  # validates every line
    assert results["paris"].status == "passed"
    assert results["paris"].calls[0].arguments == {"city": "Paris"}
    assert results["paris"].expected_tools == ["get_weather"]
    assert results["hello"].status == "passed"
    assert results["hello"].text == "Hi there!"
    assert results["rome"].status == "error"
    assert results["rome"].error == "no response"
    record = read_record(run_dir)
    assert record.scoring_mode == mode
    assert record.options["unknown_case_ids"] == ["ghost"]
    # absolute, like `run`: `gate` finds the suite's gates from any folder
    assert record.suite_path == str(suite_file.resolve())
    summary = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    assert summary


def test_failure_is_explained(suite_file: Path, tmp_path: Path) -> None:
    resp = responses(
        tmp_path,
        [{"case_id": "paris", "calls": [{"name": "get_weather", "arguments": {"city": "Lyon"}}]}],
    )
    run_dir = tmp_path / "run"
    args = ["score", str(suite_file), "-r", str(resp), "-o", str(run_dir), "--mode", "bfcl"]
    assert CliRunner().invoke(cli, args).exit_code == 0
    paris = next(r for r in iter_results(run_dir) if r.case_id == "paris")
    assert paris.status == "failed"
    assert "value_error:string" in paris.explanation
    assert "Lyon" in paris.explanation
    # a second run into the same folder needs --overwrite
    again = CliRunner().invoke(cli, args)
    assert again.exit_code == 2
    assert "already holds results.jsonl" in again.output
    assert CliRunner().invoke(cli, [*args, "--overwrite"]).exit_code == 0
    assert len(list(iter_results(run_dir))) == 3


def test_bad_responses_file_exits_2_with_file_line(suite_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"case_id": "paris"}\n{oops\n', encoding="utf-8")
    out = CliRunner().invoke(
        cli, ["score", str(suite_file), "-r", str(path), "-o", str(tmp_path / "run")]
    )
    assert out.exit_code == 2
    assert f"{path}:2: invalid JSON" in out.output


@pytest.mark.shared_data
def test_bfcl_result_file_against_bfcl_data(shared_data: Path, tmp_path: Path) -> None:
    folder = shared_data / "bfcl-v4"
    resp = responses(
        tmp_path,
        [
            {"id": "simple_python_1", "result": [{"math_factorial": '{"number": 5}'}]},
            {"id": "simple_python_2", "result": "[math.hypot(x=4, y=5)]"},
            {"id": "irrelevance_0", "result": "I cannot compute that with these tools."},
            {"id": "live_relevance_0-0-0", "result": "no call"},
            # BFCL v3 called simple_python "simple"
            {"id": "simple_3", "result": "[algebra.quadratic_roots(a=1, b=-3, c=2)]"},
        ],
    )
    run_dir = tmp_path / "run"
    out = CliRunner().invoke(
        cli, ["score", str(folder), "-r", str(resp), "-o", str(run_dir), "--mode", "bfcl"]
    )
    assert out.exit_code == 0, out.output
    got = {r.case_id: r for r in iter_results(run_dir)}
    assert got["simple_python_1"].status == "passed"
    assert got["simple_python_1"].calls[0].name == "math.factorial"
    assert got["simple_python_2"].status == "passed"
    assert got["irrelevance_0"].status == "passed"
    assert got["live_relevance_0-0-0"].status == "failed"
    assert got["simple_python_0"].status == "error"
    assert got["simple_python_3"].status == "passed"


def test_trials_are_scored_separately(suite_file: Path, tmp_path: Path) -> None:
    call = {"name": "get_weather", "arguments": {"city": "Paris"}}
    resp = responses(
        tmp_path,
        [
            {"case_id": "paris", "trial": 1, "calls": [call]},
            {"case_id": "paris", "trial": 0, "text": "I don't know."},
        ],
    )
    run_dir = tmp_path / "run"
    out = CliRunner().invoke(cli, ["score", str(suite_file), "-r", str(resp), "-o", str(run_dir)])
    assert out.exit_code == 0, out.output
    paris = [(r.trial, r.status) for r in iter_results(run_dir) if r.case_id == "paris"]
    assert paris == [(0, "failed"), (1, "passed")]
    assert read_record(run_dir).trials == 2


def test_skip_missing_leaves_out_cases_without_response(suite_file: Path, tmp_path: Path) -> None:
    resp = responses(tmp_path, [{"case_id": "hello", "text": "Hi!"}])
    run_dir = tmp_path / "run"
    args = ["score", str(suite_file), "-r", str(resp), "-o", str(run_dir), "--skip-missing"]
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "2 case(s) without a response left out" in out.output
    assert [r.case_id for r in iter_results(run_dir)] == ["hello"]
    assert read_record(run_dir).options["skipped_without_response"] == 2


def test_printed_pass_rate_leaves_errors_out_like_the_report(
    suite_file: Path, tmp_path: Path
) -> None:
    resp = responses(tmp_path, [{"case_id": "hello", "text": "Hi!"}])
    run_dir = tmp_path / "run"
    out = CliRunner().invoke(cli, ["score", str(suite_file), "-r", str(resp), "-o", str(run_dir)])
    assert out.exit_code == 0, out.output
    # one scored case (passed) and two without a response (errors)
    assert "pass rate 100.0% of 1 scored; 33.3% of all 3" in out.output


def test_scored_from_python_without_a_path_records_no_suite_path(tmp_path: Path) -> None:
    from agentgauge.io import read_responses
    from agentgauge.runner import score_responses
    from agentgauge.schema import Suite
    from agentgauge.scoring import ScoringConfig

    suite = Suite.model_validate({"name": "inline", "cases": [{"id": "a", "input": "hi"}]})
    resp = read_responses(responses(tmp_path, [{"case_id": "a", "text": "Hello!"}]))
    score_responses(suite, resp, tmp_path / "run", ScoringConfig())
    assert read_record(tmp_path / "run").suite_path is None  # not the suite's name as a path
