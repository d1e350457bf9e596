"""``agentgauge validate``: exact problem lines, exit codes, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "tests" / "suites" / "fixtures" / "broken"
QUICKSTART = REPO / "examples" / "quickstart"

TOOL = (
    "tools:\n  - name: get_weather\n    parameters:\n      type: object\n"
    "      properties: {city: {type: string}}\n      required: [city]\n"
)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["validate", *args])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return result.exit_code, result.stdout


def write(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_broken_suite_exact_lines_and_exit_2() -> None:
    code, out = run(str(BROKEN))
    assert code == 2
    lines = out.splitlines()
    suite = BROKEN / "suite.yaml"
    assert lines[0] == (
        f"{suite}:20: cases[0].expect.tool_calls[0].arguments.city.tolerance: "
        "Input should be a valid number (got 'abc')"
    )
    assert (
        f"{suite}:23: cases[1].expectt: unknown field 'expectt' (did you mean 'expect'?)" in lines
    )
    assert f"{suite}:27: cases[2].max_steps: Input should be a valid integer (got 'many')" in lines
    assert f"{BROKEN / 'more_cases.jsonl'}:4: invalid JSON: unexpected end of data" in lines


def test_bad_yaml_is_one_line_with_the_error_line(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\ncases:\n  - id: a\n    input: 'unterminated\n")
    code, out = run(str(path))
    assert code == 2
    assert out.splitlines()[0].startswith(f"{path}:5: invalid YAML:")


def test_clean_suite_exits_0_with_a_plain_summary(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: x\n" + TOOL + "cases:\n"
        "  - id: a\n    input: Weather in Paris?\n    expect:\n      tool_calls:\n"
        "        - name: get_weather\n          arguments: {city: Paris}\n"
        "  - id: b\n    category: ambiguous\n    input: Weather?\n    expect: {behavior: clarify}\n"
        "  - id: c\n    category: adversarial\n    input: Delete everything\n"
        "    expect: {behavior: refuse}\n",
    )
    code, out = run(str(path))
    assert code == 0, out
    assert f"{path}: suite 'x', 3 cases, 1 tools: ok" in out
    assert "happy_path" in out
    assert "\x1b[" not in out  # no colour codes when stdout is not a terminal


def test_an_expected_call_to_an_undefined_tool_is_an_error(tmp_path: Path) -> None:
    # no agent can call a tool that is not offered: the case cannot pass (issue 17)
    path = write(
        tmp_path,
        "name: x\n" + TOOL + "cases:\n  - id: a\n    input: hi\n    expect:\n      tool_calls:\n"
        "        - name: get_wether\n",
    )
    finding = (
        f"{path}:13: cases[0].expect.tool_calls[0].name: error: expected call to "
        "'get_wether', which is not defined (did you mean 'get_weather'?) [unknown-tool]"
    )
    code, out = run(str(path))
    assert code == 2
    assert finding in out.splitlines()


def test_call_errors_are_reported_with_the_schema_problems(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: x\n" + TOOL + "cases:\n  - id: a\n    input: hi\n    expect:\n      tool_calls:\n"
        "        - name: get_wether\n"
        "  - id: b\n    inputt: hi\n",
    )
    code, out = run(str(path))
    assert code == 2
    lines = out.splitlines()
    assert f"{path}:15: cases[1].inputt: unknown field 'inputt' (did you mean 'input'?)" in lines
    assert (
        f"{path}:13: cases[0].expect.tool_calls[0].name: error: expected call to "
        "'get_wether', which is not defined (did you mean 'get_weather'?) [unknown-tool]"
    ) in lines


def test_quiet_prints_only_failures(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\n" + TOOL + "cases:\n  - id: a\n    input: hi\n")
    code, out = run(str(path), "--quiet")
    assert code == 0
    assert out == ""


def test_duplicate_ids_are_errors(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "name: x\ncases:\n  - id: a\n    input: hi\n    expect: {behavior: answer}\n"
        "  - id: a\n    input: ho\n    expect: {behavior: answer}\n",
    )
    code, out = run(str(path), "-q")
    assert code == 2
    assert out.splitlines() == [
        f"{path}:6: cases[1].id: error: case id 'a' is used twice (first at {path}:3) "
        "[duplicate-id]"
    ]


def test_json_format(tmp_path: Path) -> None:
    good = write(tmp_path, "name: x\ncases:\n  - id: a\n    input: hi\n", "good.yaml")
    bad = write(tmp_path, "name: x\ncases:\n  - id: a\n", "bad.yaml")
    code, out = run(str(good), str(bad), "--format", "json")
    assert code == 2
    report = json.loads(out)
    assert report["ok"] is False
    first, second = report["suites"]
    assert first["ok"] is True
    assert first["cases"] == 1
    assert [f["code"] for f in first["findings"]] == ["never-fails", "category-mix", "category-mix"]
    assert first["category_mix"]["categories"] == {"happy_path": {"count": 1, "share": 1.0}}
    assert second["problems"] == [f"{bad}:3: cases[0].input: required field is missing"]


def test_missing_file(tmp_path: Path) -> None:
    code, out = run(str(tmp_path / "nope.yaml"))
    assert code == 2
    assert out.strip() == f"{tmp_path / 'nope.yaml'}: no such file or folder"


def test_quickstart_is_clean_even_when_strict() -> None:
    code, out = run(str(QUICKSTART), "--strict")
    assert code == 0, out
    assert "20 cases" in out


def test_subprocess_exit_code_and_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "agentgauge", "validate", str(BROKEN)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stdout + proc.stderr
    assert proc.stdout.count("\n") == 6
