"""Exporters: compact records that read back equal, YAML safe for the 1.2 reader, other formats."""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest

from agentgauge.errors import UserError
from agentgauge.io import load_suite
from agentgauge.io.importers import ImportOptions, import_suite
from agentgauge.schema import ArgMatcher, CallExpectation, Case, Expectation, Suite, ToolSpec
from agentgauge.suites._export import (
    ResponseRecord,
    case_record,
    export_suite,
    responses_from_metadata,
    write_responses,
    write_suite,
)

WEATHER = ToolSpec(
    name="get_weather",
    description="Weather.",
    parameters={
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"],
    },
)


def _call_case(arguments: dict[str, ArgMatcher], case_id: str = "c1") -> Case:
    return Case(
        id=case_id,
        input="Weather in Oslo?",
        expect=Expectation(tool_calls=[CallExpectation(name="get_weather", arguments=arguments)]),
    )


MATCHERS = {
    "plain": ArgMatcher(value="Oslo"),
    "null": ArgMatcher(value=None),
    "exact_object": ArgMatcher(value={"value": 1, "unit": "C"}),
    "list": ArgMatcher(value=[1, 2]),
    "list_of_objects": ArgMatcher(value=[{"a": 1}]),
    "one_of": ArgMatcher(one_of=["Oslo", "OSL"], optional=True),
    "nested": ArgMatcher(fields={"lat": ArgMatcher(value=59.9, tolerance=0.1)}),
    "items": ArgMatcher(items=[ArgMatcher(regex="^a"), ArgMatcher(value=None)]),
}


@pytest.mark.parametrize("name", list(MATCHERS))
def test_matchers_round_trip_through_the_compact_record(name: str) -> None:
    case = _call_case({"x": MATCHERS[name]})
    record = json.loads(json.dumps(case_record(case)))
    assert Case.model_validate(record) == case


def test_compact_record_shape() -> None:
    case = _call_case({"city": ArgMatcher(value="Oslo")})
    assert case_record(case) == {
        "id": "c1",
        "category": "happy_path",
        "input": "Weather in Oslo?",
        "expect": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
    }


AWKWARD = ["1e5", "0o17", "10:30", "no", "on", "2026-03-20", "null", "~", "0x1F", ".5", "+1", ""]


@pytest.mark.parametrize("suffix", [".yaml", ".json", ""])
def test_suite_files_load_back_equal(tmp_path: Path, suffix: str) -> None:
    cases = [
        _call_case({"city": ArgMatcher(value=text)}, case_id=f"c{i}")
        for i, text in enumerate(AWKWARD)
    ]
    ask = Case(id="ask", category="clarify", input="Flights to Portland")
    ask.expect = Expectation(behavior="clarify")
    cases.append(ask)
    cases.append(Case(id="none", input="hi", tools=[], metadata={"source_line": 3}))
    suite = Suite(
        name="awkward",
        description="strings YAML 1.1 and 1.2 read differently",
        tools=[WEATHER],
        cases=cases,
    )
    out = tmp_path / f"out{suffix}"
    written = write_suite(suite, out)
    assert all(p.exists() for p in written)
    loaded = load_suite(out)
    assert loaded.cases == suite.cases
    assert loaded.tools == suite.tools
    assert loaded.name == suite.name
    head = (out / "suite.yaml" if suffix == "" else out).read_text(encoding="utf-8")
    assert head.startswith("version: 1") or head.lstrip("{\n ").startswith('"version": 1')


def test_directory_output_is_suite_yaml_tools_json_and_cases_jsonl(tmp_path: Path) -> None:
    suite = Suite(name="s", tools=[WEATHER], cases=[_call_case({"city": ArgMatcher(value="Oslo")})])
    written = write_suite(suite, tmp_path / "dir")
    assert [p.name for p in written] == ["suite.yaml", "tools.json", "cases.jsonl"]
    assert json.loads((tmp_path / "dir" / "tools.json").read_text()) == [
        WEATHER.model_dump(mode="json", exclude_none=True)
    ]
    line = (tmp_path / "dir" / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert orjson.loads(line[0])["id"] == "c1"
    head = (tmp_path / "dir" / "suite.yaml").read_text()
    assert "tool_files:\n- tools.json\ncase_files:\n- cases.jsonl" in head


def test_output_that_is_a_file_not_a_directory(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("x")
    with pytest.raises(UserError, match="exists and is not a directory"):
        write_suite(Suite(name="s"), tmp_path / "taken")


def test_tool_selection_export_round_trips_through_its_importer(tmp_path: Path) -> None:
    cases = [
        _call_case({"city": ArgMatcher(value="Oslo"), "days": ArgMatcher(one_of=[3, 4])}, "A1"),
        Case(
            id="B1",
            category="no_tool",
            input="2+2?",
            expect=Expectation(behavior="answer", reference="4"),
        ),
        Case(
            id="C1",
            category="clarify",
            input="Book it",
            expect=Expectation(behavior="clarify", reference="Which city?"),
        ),
        _call_case({"city": ArgMatcher(any=True)}, "X1"),
        Case(id="X2", input="hi", expect=Expectation(behavior="any_tool")),
    ]
    suite = Suite(name="ts", tools=[WEATHER], cases=cases)
    out = tmp_path / "test_dataset.json"
    notes = export_suite(suite, out, "tool-selection")
    assert notes[:2] == [
        "X1: not exported: an argument has no single expected value",
        "X2: not exported: behavior 'any_tool' has no equivalent",
    ]
    records = json.loads(out.read_text(encoding="utf-8"))
    assert records[0] == {
        "id": "A1",
        "type": "tool_selection",
        "user_query": "Weather in Oslo?",
        "ground_truth": {
            "function_call": {"name": "get_weather", "arguments": {"city": "Oslo", "days": 3}}
        },
        "expected_response_type": "function_call",
    }
    tools_file = tmp_path / "test_dataset.tools.json"
    back = import_suite("tool-selection", [out], ImportOptions(tools=tools_file))
    assert [(c.id, c.category, c.expect.behavior) for c in back.cases] == [
        ("A1", "tool_call", "tool_call"),
        ("B1", "no_tool", "answer"),
        ("C1", "clarify", "clarify"),
    ]
    assert back.tools == [WEATHER]


def test_jsonl_export(tmp_path: Path) -> None:
    suite = Suite(name="s", cases=[_call_case({"city": ArgMatcher(value="Oslo")})])
    assert export_suite(suite, tmp_path / "c.jsonl", "jsonl") == []
    (line,) = (tmp_path / "c.jsonl").read_text().splitlines()
    assert Case.model_validate_json(line) == suite.cases[0]
    with pytest.raises(UserError, match="unknown export format 'xml'"):
        export_suite(suite, tmp_path / "x.xml", "xml")


def test_responses_file_is_what_the_score_reader_reads(tmp_path: Path) -> None:
    suite = Suite(
        name="s",
        cases=[
            Case(id="g1", input="q", metadata={"response": "Paris."}),
            Case(id="g2", input="q"),
            Case(
                id="t1",
                input="q",
                metadata={
                    "response": {
                        "text": None,
                        "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}],
                    }
                },
            ),
        ],
    )
    responses = responses_from_metadata(suite)
    assert [r.case_id for r in responses] == ["g1", "t1"]
    path = tmp_path / "responses.jsonl"
    assert write_responses(responses, path) == 2
    lines = [orjson.loads(x) for x in path.read_text().splitlines()]
    assert lines == [
        {"case_id": "g1", "trial": 0, "text": "Paris.", "calls": []},
        {
            "case_id": "t1",
            "trial": 0,
            "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}],
        },
    ]
    assert ResponseRecord.model_validate(lines[1]).calls[0].name == "get_weather"
    reader = pytest.importorskip("agentgauge.exchange._responses")
    read = reader.read_responses(path)
    assert [(r.case_id, r.text, [c.name for c in r.calls]) for r in read] == [
        ("g1", "Paris.", []),
        ("t1", None, ["get_weather"]),
    ]


@pytest.mark.shared_data
def test_bfcl_import_written_as_a_directory_loads_back_equal(
    shared_data: Path, tmp_path: Path
) -> None:
    files = sorted(
        p for p in (shared_data / "bfcl-v4").glob("BFCL_v4_*.json") if "multi_turn" not in p.name
    )
    suite = import_suite("bfcl", files, ImportOptions(limit=40))
    assert len(suite.cases) > 300
    write_suite(suite, tmp_path / "bfcl")
    loaded = load_suite(tmp_path / "bfcl")
    assert loaded.cases == suite.cases
    assert loaded.tools == suite.tools
