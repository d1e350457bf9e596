"""Lint findings: each check, with the file:line it points at."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.io import category_mix, check_suite, lint_suite, read_suite
from agentgauge.schema import Case, Suite, ToolSpec

WEATHER = """\
name: lint
tools:
  - name: get_weather
    parameters:
      type: object
      properties:
        city: {type: string}
        unit: {type: string, enum: [celsius, fahrenheit]}
        days: {type: integer}
        where:
          type: object
          properties: {lat: {type: number}, lon: {type: number}}
      required: [city]
"""


def findings(tmp_path: Path, cases: str, tools: str = WEATHER) -> list[tuple[int | None, str, str]]:
    path = tmp_path / "suite.yaml"
    path.write_text(tools + "cases:\n" + cases, encoding="utf-8")
    skip = {"category-mix", "unused-tool"}
    return [(f.line, f.code, f.field) for f in lint_suite(read_suite(path)) if f.code not in skip]


def call(args: str, name: str = "get_weather", extra: str = "") -> str:
    return (
        "  - id: c\n    input: hi\n    expect:\n      tool_calls:\n"
        f"        - name: {name}\n{extra}          arguments:\n{args}"
    )


def test_argument_checks_against_the_schema(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        call(
            "            city: Paris\n"  # line 21
            "            unit: kelvin\n"
            "            days: {one_of: [3, three]}\n"
            "            country: FR\n"
            "            where: {lat: north, alt: 3}\n"
        ),
    )
    base = "cases[0].expect.tool_calls[0].arguments"
    assert got == [
        (22, "not-in-enum", f"{base}.unit"),
        (23, "wrong-type", f"{base}.days.one_of[1]"),
        (24, "unknown-argument", f"{base}.country"),
        (25, "wrong-type", f"{base}.where.lat"),
        (25, "unknown-argument", f"{base}.where.alt"),
    ]


def test_missing_required_and_optional_required(tmp_path: Path) -> None:
    got = findings(tmp_path, call("            unit: celsius\n"))
    assert got == [(20, "missing-argument", "cases[0].expect.tool_calls[0].arguments")]
    got = findings(tmp_path, call("            city: {any: true, optional: true}\n"))
    assert got == [(21, "optional-required", "cases[0].expect.tool_calls[0].arguments.city")]


def test_matcher_kinds_that_do_not_fit_the_type(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        call("            city: {value: 3, tolerance: 1}\n            days: {regex: '[0-9]+'}\n"),
    )
    # a tolerance on a string, the integer 3 for a string, a regex on an integer
    assert [(line, code) for line, code, _ in got] == [
        (21, "wrong-type"),
        (21, "wrong-type"),
        (22, "wrong-type"),
    ]


def test_unknown_tools_everywhere(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        "  - id: a\n    input: hi\n    tools: [get_weather, nope]\n"
        "    tool_results: {ghost: {result: 1}}\n"
        "    expect:\n      forbidden_tools: [delete_all]\n      tool_calls:\n"
        "        - name: get_wether\n",
    )
    assert got == [
        (17, "unknown-tool", "cases[0].tools[1]"),
        (18, "unknown-tool", "cases[0].tool_results.ghost"),
        (20, "unknown-tool", "cases[0].expect.forbidden_tools[0]"),
        (22, "unknown-tool", "cases[0].expect.tool_calls[0].name"),
    ]


def test_tool_not_offered_and_forbidden_expected(tmp_path: Path) -> None:
    tools = WEATHER + "  - name: other\n"
    got = findings(
        tmp_path,
        "  - id: a\n    input: hi\n    tools: [other]\n    expect:\n"
        "      forbidden_tools: [get_weather]\n      tool_calls:\n"
        "        - name: get_weather\n          arguments: {city: x}\n",
        tools,
    )
    assert got == [
        (20, "forbidden-expected", "cases[0].expect.forbidden_tools[0]"),
        (22, "tool-not-offered", "cases[0].expect.tool_calls[0].name"),
    ]


def test_never_fails_and_weak_expectations(tmp_path: Path) -> None:
    got = findings(
        tmp_path,
        "  - id: empty\n    input: hi\n"
        "  - id: weak\n    input: hi\n    tools: [get_weather]\n    expect:\n      tool_calls:\n"
        "        - name: get_weather\n          extra_arguments: allow\n"
        "          arguments: {city: {any: true}}\n"
        "  - id: budget\n    input: hi\n    latency_budget_s: 2\n",
    )
    assert got == [(15, "never-fails", "cases[0]"), (20, "weak-expectation", "cases[1].expect")]


def test_duplicates_are_errors(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: d\ntools:\n  - name: t\n  - name: t\ncases:\n"
        "  - id: a\n    input: hi\n    expect: {behavior: answer}\n"
        "  - id: a\n    input: hi\n    expect: {behavior: answer}\n",
        encoding="utf-8",
    )
    errors = [f for f in lint_suite(read_suite(path)) if f.severity == "error"]
    assert [(f.code, f.line) for f in errors] == [("duplicate-tool", 4), ("duplicate-id", 9)]
    assert errors[1].message == f"case id 'a' is used twice (first at {path}:6)"
    assert errors[1].format() == (
        f"{path}:9: cases[1].id: error: case id 'a' is used twice (first at {path}:6) "
        "[duplicate-id]"
    )


def test_jsonl_findings_point_at_the_record(tmp_path: Path) -> None:
    (tmp_path / "suite.yaml").write_text(WEATHER + "case_files: [c.jsonl]\n", encoding="utf-8")
    (tmp_path / "c.jsonl").write_text(
        '{"id": "a", "input": "x", "expect": {"behavior": "answer"}}\n'
        '{"id": "b", "input": "x", "expect": {"tool_calls": [{"name": "get_weather", '
        '"arguments": {"city": 3}}]}}\n',
        encoding="utf-8",
    )
    (finding,) = [f for f in lint_suite(read_suite(tmp_path)) if f.code == "wrong-type"]
    assert finding.file == str(tmp_path / "c.jsonl")
    assert finding.line == 2
    assert finding.field == "expect.tool_calls[0].arguments.city"
    assert finding.case_id == "b"


def test_unused_tools_and_category_mix(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        WEATHER + "  - name: spare\ncases:\n  - id: a\n    input: hi\n    expect:\n"
        "      tool_calls:\n        - name: get_weather\n          arguments: {city: x}\n",
        encoding="utf-8",
    )
    got = [(f.code, f.line, f.message) for f in lint_suite(read_suite(path))]
    assert ("unused-tool", 14, "no case expects (or forbids) a call to 'spare'") in got
    mix_findings = [m for code, _, m in got if code == "category-mix"]
    assert len(mix_findings) == 2
    assert mix_findings[0].startswith("no edge cases")
    assert mix_findings[1].startswith("no adversarial cases")


def test_category_mix_counts() -> None:
    cases = [
        Case(id=str(i), input="x", category=cat)
        for i, cat in enumerate(["happy_path"] * 6 + ["ambiguous"] * 3 + ["adversarial", "mine"])
    ]
    mix = category_mix(Suite(name="s", cases=cases))
    assert mix.total == 11
    assert [(c.name, c.count, c.stratum) for c in mix.categories] == [
        ("happy_path", 6, "common"),
        ("ambiguous", 3, "edge"),
        ("adversarial", 1, "adversarial"),
        ("mine", 1, "other"),
    ]
    assert [(s.name, s.count) for s in mix.strata] == [
        ("common", 6),
        ("edge", 3),
        ("adversarial", 1),
        ("other", 1),
    ]
    assert mix.categories[0].share == pytest.approx(6 / 11)


def test_lint_without_files_has_no_lines() -> None:
    suite = Suite(
        name="s",
        tools=[ToolSpec(name="t")],
        cases=[Case(id="a", input="x"), Case(id="a", input="y")],
    )
    found = {f.code: f for f in lint_suite(suite)}
    assert found["duplicate-id"].line is None
    assert found["duplicate-id"].field == "cases[1].id"
    assert found["duplicate-id"].format().startswith("<suite>: cases[1].id: error:")


def test_check_suite_collects_problems(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("name: s\ncases: 3\n", encoding="utf-8")
    check = check_suite(path)
    assert check.loaded is None
    assert check.failed()
    assert check.problems == [f"{path}:2: cases: expected a list of cases, got an integer"]


def test_many_unused_tools_are_summarised_and_custom_categories_noted() -> None:
    tools = [ToolSpec(name=f"t{i}") for i in range(12)]
    suite = Suite(
        name="s",
        tools=tools,
        cases=[Case(id="a", input="x", category="simple", expect={"behavior": "no_tool"})],
    )
    found = [f for f in lint_suite(suite) if f.code in ("unused-tool", "category-mix")]
    assert [f.message for f in found] == [
        "12 of 12 tools are never expected (or forbidden) by any case, e.g. t0, t1, t2, t3, t4",
        "no case uses a standard category (simple 1), so the usual 60/25/15 mix of "
        "common / edge / adversarial cases cannot be checked",
    ]


def test_enum_of_scalars_on_an_array_constrains_its_items() -> None:
    tool = ToolSpec(
        name="f",
        parameters={
            "type": "object",
            "properties": {"metrics": {"type": "array", "enum": ["a", "b"]}},
        },
    )
    case = Case(
        id="c",
        input="x",
        expect={"tool_calls": [{"name": "f", "arguments": {"metrics": ["a", "z"]}}]},
    )
    found = [
        f
        for f in lint_suite(Suite(name="s", tools=[tool], cases=[case]))
        if f.code == "not-in-enum"
    ]
    assert [f.field for f in found] == ["cases[0].expect.tool_calls[0].arguments.metrics[1]"]


def test_bad_regex_is_an_error_and_refs_need_defined_tools(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        WEATHER
        + "cases:\n"
        + call(
            "            city: {regex: '([a-z'}\n"
            "            where: {lat: {ref: {tool: geocode, path: lat}}, lon: {any: true}}\n"
        ),
        encoding="utf-8",
    )
    found = [(f.severity, f.code, f.line, f.field) for f in lint_suite(read_suite(path))]
    base = "cases[0].expect.tool_calls[0].arguments"
    assert ("error", "bad-regex", 21, f"{base}.city") in found
    assert ("warning", "unknown-tool", 22, f"{base}.where.lat.ref") in found


def test_dates_that_do_not_parse(tmp_path: Path) -> None:
    got = findings(tmp_path, call("            city: {value: next friday, date: true}\n"))
    assert got == [(21, "bad-date", "cases[0].expect.tool_calls[0].arguments.city")]


def test_enum_check_respects_ignore_case(tmp_path: Path) -> None:
    assert findings(
        tmp_path, call("            city: x\n            unit: {value: Celsius}\n")
    ) == [(22, "not-in-enum", "cases[0].expect.tool_calls[0].arguments.unit")]
    loose = call("            city: x\n            unit: {value: Celsius, ignore_case: true}\n")
    assert findings(tmp_path, loose) == []


def test_expected_calls_no_agent_can_make_are_errors(tmp_path: Path) -> None:
    """An expected call to an undefined tool, or to a tool the case does not offer, is an
    error; an undefined forbidden tool or simulated result stays a warning (issue 17)."""
    path = tmp_path / "suite.yaml"
    path.write_text(
        WEATHER + "  - name: other\ncases:\n"
        "  - id: a\n    input: hi\n    tool_results: {ghost: {result: 1}}\n    expect:\n"
        "      forbidden_tools: [delete_all]\n"
        "      tool_calls: [{name: get_wether, arguments: {city: x}}]\n"
        "  - id: b\n    input: hi\n    tools: [other]\n"
        "    expect: {tool_calls: [{name: get_weather, arguments: {city: x}}]}\n"
        "  - id: c\n    input: hi\n    tools: [get_weather]\n"
        "    expect: {tool_calls: [{name: get_weather, arguments: {city: x}}]}\n",
        encoding="utf-8",
    )
    got = [
        (f.severity, f.code, f.case_id)
        for f in lint_suite(read_suite(path))
        if f.code in ("unknown-tool", "tool-not-offered")
    ]
    assert got == [
        ("warning", "unknown-tool", "a"),  # tool_results.ghost
        ("warning", "unknown-tool", "a"),  # forbidden delete_all
        ("error", "unknown-tool", "a"),
        ("error", "tool-not-offered", "b"),
    ]
    assert check_suite(path).failed()


def test_call_errors_come_with_the_loading_problems(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    cases = (
        "cases:\n"
        "  - id: a\n    input: hi\n    expect: {tool_calls: [{name: get_wether}]}\n"
        "  - id: bad\n    input: hi\n    max_steps: many\n"
        "  - id: b\n    input: hi\n    tools: [get_weather]\n"
        "    turns: [{user: more, expect: {tool_calls: [{name: nope}]}}]\n"
    )
    path.write_text(WEATHER + cases, encoding="utf-8")
    check = check_suite(path)
    assert check.loaded is None
    assert [p.split(": ", 1)[1] for p in check.problems] == [
        "cases[1].max_steps: Input should be a valid integer (got 'many')"
    ]
    assert [(f.line, f.severity, f.code, f.field) for f in check.findings] == [
        (17, "error", "unknown-tool", "cases[0].expect.tool_calls[0].name"),
        (24, "error", "unknown-tool", "cases[2].turns[0].expect.tool_calls[0].name"),
    ]
    assert "did you mean 'get_weather'" in check.findings[0].message


def test_no_call_errors_when_the_tools_themselves_have_problems(tmp_path: Path) -> None:
    # with a broken tool definition the names it would define are unknown: say nothing
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: x\ntools:\n  - name: get_weather\n    paramters: {}\ncases:\n"
        "  - id: a\n    input: hi\n    expect: {tool_calls: [{name: get_weather}]}\n",
        encoding="utf-8",
    )
    check = check_suite(path)
    assert check.problems
    assert check.findings == []
