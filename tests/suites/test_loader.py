"""Loading suites and case files: exact ``file:line: field: message`` problems."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io import load_cases, load_suite, read_suite
from agentgauge.schema import Suite

FIXTURES = Path(__file__).parent / "fixtures"


def problems_of(path: str | Path) -> list[str]:
    with pytest.raises(UserError) as info:
        load_suite(path)
    assert str(info.value) == info.value.problems[0]
    return info.value.problems


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_broken_fixture_reports_every_problem_at_its_line() -> None:
    problems = problems_of(FIXTURES / "broken")
    shown = [p.replace(str(FIXTURES / "broken") + "/", "") for p in problems]
    assert shown == [
        "suite.yaml:20: cases[0].expect.tool_calls[0].arguments.city.tolerance: "
        "Input should be a valid number (got 'abc')",
        "suite.yaml:23: cases[1].expectt: unknown field 'expectt' (did you mean 'expect'?)",
        "suite.yaml:27: cases[2].max_steps: Input should be a valid integer (got 'many')",
        "suite.yaml:31: cases[3].expect.behavior: Input should be 'tool_call', 'any_tool', "
        "'no_tool', 'answer', 'clarify', 'refuse' or 'recover' (got 'sing')",
        "more_cases.jsonl:3: expect.tool_calls[0].name: required field is missing",
        "more_cases.jsonl:4: invalid JSON: unexpected end of data",
    ]


def test_bad_yaml_syntax_gives_the_line_of_the_error(tmp_path: Path) -> None:
    path = write(
        tmp_path, "s.yaml", "name: x\ncases:\n  - id: a\n    input: [unclosed\n  - id: b\n"
    )
    (line,) = problems_of(path)
    assert line.startswith(f"{path}:5: invalid YAML:")


def test_bad_indentation_line(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "name: x\ncases:\n  - id: a\n   input: hi\n")
    (line,) = problems_of(path)
    assert line.startswith(f"{path}:4: invalid YAML:")


def test_custom_tags_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "name: x\ncases:\n  - id: !!python/name:os.system a\n")
    (line,) = problems_of(path)
    assert line.startswith(f"{path}:3: invalid YAML: custom tag")
    assert "not allowed" in line


def test_duplicate_keys_are_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "name: x\ncases:\n  - id: a\n    input: hi\n    id: b\n")
    assert problems_of(path) == [f"{path}:5: cases[0].id: duplicate key 'id'"]


def test_missing_field_uses_the_parent_mapping_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        "name: x\ncases:\n  - id: a\n    input: hi\n  - id: b\n    category: edge_case\n",
    )
    assert problems_of(path) == [f"{path}:5: cases[1].input: required field is missing"]


def test_union_noise_is_dropped(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        "name: x\ncases:\n  - id: a\n    input: hi\n    tool_results:\n"
        "      get_weather:\n        fault: sometimes\n",
    )
    (line,) = problems_of(path)
    assert line.startswith(f"{path}:7: cases[0].tool_results.get_weather.fault: Input should be")


def test_shorthand_expansion_steps_are_not_shown(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        "name: x\ncases:\n  - id: a\n    input: hi\n    expect:\n      tool_calls:\n"
        "        - name: book\n          arguments:\n            where:\n"
        "              city: Paris\n              zip: {one_of: 75001}\n",
    )
    assert problems_of(path) == [
        f"{path}:11: cases[0].expect.tool_calls[0].arguments.where.zip.one_of: "
        "Input should be a valid list (got 75001)"
    ]


def test_yaml_core_schema_keeps_times_and_dates_as_strings(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        "name: x\ncases:\n  - id: a\n    input: hi\n    expect:\n      tool_calls:\n"
        "        - name: create_event\n          arguments:\n"
        "            start: 10:30\n            day: 2026-03-20\n            private: no\n",
    )
    args = load_suite(path).cases[0].expect.tool_calls[0].arguments
    assert args["start"].value == "10:30"
    assert args["day"].value == "2026-03-20"
    assert args["private"].value == "no"


def test_missing_case_file_points_at_the_reference(tmp_path: Path) -> None:
    write(tmp_path, "suite.yaml", "name: x\ncase_files:\n  - a.jsonl\n  - nope.jsonl\n")
    write(tmp_path, "a.jsonl", '{"id": "a", "input": "hi"}\n')
    assert problems_of(tmp_path) == [
        f"{tmp_path / 'suite.yaml'}:4: case_files[1]: no such file: {tmp_path / 'nope.jsonl'}"
    ]


def test_case_and_tool_files_resolve_relative_to_the_suite(tmp_path: Path) -> None:
    sub = tmp_path / "s"
    sub.mkdir()
    write(sub, "suite.yaml", "name: x\ncase_files: [c.jsonl]\ntool_files: [t.json]\n")
    write(sub, "c.jsonl", '{"id": "a", "input": "hi"}\n{"id": "b", "input": "ho"}\n')
    write(
        sub,
        "t.json",
        '[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}},'
        ' {"name": "g", "input_schema": {"type": "object", "properties": {}}}]',
    )
    loaded = read_suite(sub)
    suite = loaded.suite
    assert [c.id for c in suite.cases] == ["a", "b"]
    assert [t.name for t in suite.tools] == ["f", "g"]
    assert suite.case_files == []
    assert suite.tool_files == []
    assert loaded.case_origins[1].where() == f"{sub / 'c.jsonl'}:2"
    assert loaded.tool_origins[0].where() == f"{sub / 't.json'}:1"


def test_inline_vendor_tools_are_converted(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        "name: x\ntools:\n  - type: function\n    function:\n      name: f\n"
        "      parameters: {type: object, properties: {a: {type: string}}}\n",
    )
    (tool,) = load_suite(path).tools
    assert tool.name == "f"
    assert tool.properties() == {"a": {"type": "string"}}


def test_jsonl_problems_name_the_record_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "c.jsonl",
        '{"id": "a", "input": "hi"}\n\n[1, 2]\n{"id": "b", "input": "x", "expect": 3}\nnot json\n',
    )
    with pytest.raises(UserError) as info:
        load_cases(path)
    problems = info.value.problems
    assert problems[:2] == [
        f"{path}:3: expected a case (a mapping with id and input), got a list",
        f"{path}:4: expect: Input should be a valid dictionary or instance of Expectation (got 3)",
    ]
    assert len(problems) == 3
    assert problems[2].startswith(f"{path}:5: invalid JSON: ")


def test_yaml_case_list_file(tmp_path: Path) -> None:
    path = write(tmp_path, "c.yaml", "- id: a\n  input: hi\n- id: b\n  input: [1]\n")
    with pytest.raises(UserError) as info:
        load_cases(path)
    assert info.value.problems[0].startswith(f"{path}:4: [1].input[0]: ")


def test_json_suite_lines_are_found(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.json",
        '{\n  "name": "x",\n  "cases": [\n    {"id": "a", "input": "hi"},\n'
        '    {"id": "b",\n     "input": "hi",\n     "max_steps": 0}\n  ]\n}\n',
    )
    assert problems_of(path) == [
        f"{path}:7: cases[1].max_steps: Input should be greater than or equal to 1"
    ]


def test_bad_json_syntax_line(tmp_path: Path) -> None:
    path = write(tmp_path, "s.json", '{\n  "name": "x",\n  "cases": [,]\n}\n')
    (line,) = problems_of(path)
    assert line.startswith(f"{path}:3: invalid JSON:")


def test_jsonl_given_as_a_suite(tmp_path: Path) -> None:
    path = write(tmp_path, "mine.jsonl", '{"id": "a", "input": "hi"}\n')
    suite = load_suite(path)
    assert isinstance(suite, Suite)
    assert suite.name == "mine"
    assert len(suite.cases) == 1


def test_folder_without_suite_and_missing_path(tmp_path: Path) -> None:
    assert problems_of(tmp_path)[0].startswith(f"{tmp_path}: no suite.yaml")
    assert problems_of(tmp_path / "nope.yaml") == [
        f"{tmp_path / 'nope.yaml'}: no such file or folder"
    ]


def test_empty_and_non_mapping_suites(tmp_path: Path) -> None:
    assert problems_of(write(tmp_path, "e.yaml", "# nothing\n"))[0].endswith(
        "the file is empty (expected a suite: name, tools, cases)"
    )
    assert "expected a suite" in problems_of(write(tmp_path, "n.yaml", "42\n"))[0]


def test_bad_tool_file_entries(tmp_path: Path) -> None:
    write(tmp_path, "suite.yaml", "name: x\ntool_files: [t.yaml]\n")
    write(tmp_path, "t.yaml", "- name: a\n  paramters: {}\n- name: b\n")
    assert problems_of(tmp_path) == [
        f"{tmp_path / 't.yaml'}:2: [0].paramters: unknown field 'paramters' "
        "(did you mean 'parameters'?)"
    ]


def test_many_bad_cases_are_all_reported(tmp_path: Path) -> None:
    lines = "".join(f'{{"id": "c{i}"}}\n' for i in range(50))
    path = write(tmp_path, "c.jsonl", lines)
    with pytest.raises(UserError) as info:
        load_cases(path)
    assert len(info.value.problems) == 50
    assert info.value.problems[49] == f"{path}:50: input: required field is missing"


def test_tab_indentation_is_explained(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "name: x\ncases:\n\t- id: a\n")
    (line,) = problems_of(path)
    assert line.startswith(f"{path}:3: invalid YAML:")
    assert "indented with a tab" in line


def test_byte_order_mark_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "a", "input": "hi"}\n')
    assert [c.id for c in load_cases(path)] == ["a"]


def test_a_field_in_the_wrong_place_is_not_suggested_as_itself(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        "name: x\ncases:\n  - id: a\n    input: hi\n    expect: {fault: error}\n",
    )
    assert problems_of(path) == [
        f"{path}:5: cases[0].expect.fault: unknown field 'fault' (not a field of Expectation)"
    ]


def test_unknown_fields_name_what_is_allowed_there(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "s.yaml",
        "name: x\ncases:\n  - id: a\n    input: hi\n    labels: {intent: [a]}\n"
        "    tool_results: {f: {result: 1, delay: 2}}\n"
        "    expect:\n      tool_calls:\n        - name: f\n"
        "          arguments: {a: {value: 1, tolerence: 2}, b: {x: {one_of: [1], zz: 1}}}\n",
    )
    assert problems_of(path) == [
        f"{path}:5: cases[0].labels.intent: unknown field 'intent' (did you mean 'intents'?)",
        f"{path}:6: cases[0].tool_results.f.delay: unknown field 'delay' (did you mean 'delay_s'?)",
        f"{path}:10: cases[0].expect.tool_calls[0].arguments.a.tolerence: unknown field "
        "'tolerence' (did you mean 'tolerance'?)",
        f"{path}:10: cases[0].expect.tool_calls[0].arguments.b.x.zz: unknown field 'zz' "
        "(not a field of ArgMatcher)",
    ]


def test_a_newer_format_version_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "name: x\nversion: 99\ncases: []\n")
    assert problems_of(path) == [
        f"{path}:2: version: this suite is format version 99; this agentgauge reads up to "
        "version 1 (upgrade agentgauge)"
    ]


def test_empty_list_keys_mean_empty_lists(tmp_path: Path) -> None:
    path = write(tmp_path, "s.yaml", "name: x\ntools:\ncases:\ncase_files:\n")
    suite = load_suite(path)
    assert suite.cases == []
    assert suite.tools == []
