"""``agentgauge import``: counts printed, files written, bad input exits 2 with file:line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.io import load_suite

DATA = Path(__file__).resolve().parents[1] / "importers" / "data"


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["import", *args])
    return result.exit_code, result.stdout, result.stderr


def test_when2call_counts_per_file_category_and_behaviour(tmp_path: Path) -> None:
    out = tmp_path / "w2c"
    code, stdout, _ = _run("when2call", str(DATA / "when2call_sample.jsonl"), "-o", str(out))
    assert code == 0
    lines = stdout.splitlines()
    assert lines[0] == f"imported 3 case(s) from 1 file(s); wrote 3 to {out}"
    assert "  when2call_sample.jsonl       3  100.0%" in lines
    assert any(line.split()[:2] == ["not_supported", "1"] for line in lines)
    assert any(line.split()[:2] == ["refuse", "1"] for line in lines)
    assert len(load_suite(out).cases) == 3


def test_a_case_without_a_behaviour_is_counted_as_not_set(tmp_path: Path) -> None:
    # BFCL's multi-turn cases expect no behaviour label (their turns and state are checked):
    # the summary said "None", Python's word, as if it were a behaviour
    source = tmp_path / "in.yaml"
    source.write_text(
        "name: s\ncases:\n  - {id: a, input: hi, expect: {response_contains: [hello]}}\n"
        "  - {id: b, input: hi, expect: {behavior: refuse}}\n"
    )
    code, stdout, _ = _run("suite", str(source), "-o", str(tmp_path / "out.yaml"))
    assert code == 0
    behaviours = stdout[stdout.index("per behavior:") :].splitlines()[1:3]
    assert [line.split()[:2] for line in behaviours] == [["(not", "set)"], ["refuse", "1"]]
    assert "None" not in stdout


def test_tool_selection_to_yaml_with_tools(tmp_path: Path) -> None:
    out = tmp_path / "suite.yaml"
    code, stdout, stderr = _run(
        "tool-selection",
        str(DATA / "test_dataset.json"),
        "--tools",
        str(DATA / "tools.json"),
        "--name",
        "assistant",
        "-o",
        str(out),
    )
    assert code == 0, stderr
    suite = load_suite(out)
    assert suite.name == "assistant"
    assert len(suite.tools) == 3
    assert "suite tools: 3" in stdout


def test_golden_writes_recorded_responses(tmp_path: Path) -> None:
    out = tmp_path / "golden"
    code, stdout, _ = _run("golden", str(DATA / "golden.jsonl"), "-o", str(out), "--limit", "2")
    assert code == 0
    assert f"recorded responses: 1 written to {out / 'responses.jsonl'}" in stdout
    (line,) = (out / "responses.jsonl").read_text(encoding="utf-8").splitlines()
    assert json.loads(line) == {
        "case_id": "g1",
        "trial": 0,
        "text": "It was founded in 1892.",
        "calls": [],
    }


def test_golden_map_option(tmp_path: Path) -> None:
    src = tmp_path / "qa.jsonl"
    src.write_text('{"q": "Why?", "a": "Because."}\n', encoding="utf-8")
    out = tmp_path / "qa.yaml"
    code, _, stderr = _run(
        "golden", str(src), "--map", "query=q", "--map", "ground_truth=a", "-o", str(out)
    )
    assert code == 0, stderr
    (case,) = load_suite(out).cases
    assert case.expect.reference == "Because."


def test_reexport_a_suite_as_tool_selection(tmp_path: Path) -> None:
    suite_dir = tmp_path / "s"
    _run(
        "tool-selection",
        str(DATA / "test_dataset.json"),
        "--tools",
        str(DATA / "tools.json"),
        "-o",
        str(suite_dir),
    )
    out = tmp_path / "again.json"
    code, stdout, stderr = _run("suite", str(suite_dir), "-o", str(out), "--to", "tool-selection")
    assert code == 0, stderr
    assert "wrote 6 to" in stdout  # the tools-file note is not a case left out
    assert [r["id"] for r in json.loads(out.read_text())] == [
        "A001",
        "A002",
        "B001",
        "C001",
        "D001",
        "E001",
    ]
    assert (tmp_path / "again.tools.json").exists()


def test_bad_input_exits_2_with_file_and_line(tmp_path: Path) -> None:
    src = tmp_path / "w.jsonl"
    src.write_text('{"question": "q", "correct_answer": "direct", "answers": {}}\n{oops\n')
    code, stdout, stderr = _run("when2call", str(src), "-o", str(tmp_path / "o"))
    assert code == 2
    assert stderr.startswith(f"{src}:2: invalid JSON")
    assert "Traceback" not in stdout + stderr


def test_bad_map_and_missing_tools(tmp_path: Path) -> None:
    code, _, stderr = _run(
        "golden", str(DATA / "golden.jsonl"), "--map", "query", "-o", str(tmp_path / "o")
    )
    assert (code, stderr.strip()) == (
        2,
        "--map query: expected FIELD=COLUMN, e.g. --map query=question",
    )
    code, _, stderr = _run(
        "tool-selection", str(DATA / "test_dataset.json"), "-o", str(tmp_path / "o")
    )
    assert code == 2
    assert "--tools" in stderr


def test_imported_fixtures_validate_clean(tmp_path: Path) -> None:
    runs = [
        ("when2call", [str(DATA / "when2call_sample.jsonl")]),
        ("tool-selection", [str(DATA / "test_dataset.json"), "--tools", str(DATA / "tools.json")]),
        ("golden", [str(DATA / "golden.jsonl")]),
    ]
    for fmt, args in runs:
        out = tmp_path / fmt
        code, _, stderr = _run(fmt, *args, "-o", str(out))
        assert code == 0, stderr
        result = CliRunner().invoke(cli, ["validate", str(out)])
        assert result.exit_code == 0, f"{fmt}: {result.output}"


@pytest.mark.shared_data
def test_real_when2call_imports_and_validates(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "when2call" / "when2call_test_llm_judge.jsonl"
    out = tmp_path / "w2c"
    code, stdout, stderr = _run("when2call", str(src), "-o", str(out))
    assert code == 0, stderr
    assert stdout.splitlines()[0] == f"imported 300 case(s) from 1 file(s); wrote 300 to {out}"
    result = CliRunner().invoke(cli, ["validate", str(out)])
    assert result.exit_code == 0, result.output
