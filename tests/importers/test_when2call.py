"""The When2Call importer: behaviour mapping, tools in BFCL's dialect, and the real test file."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io import load_suite
from agentgauge.io.importers import ImportOptions, import_suite
from agentgauge.schema import ArgMatcher, Suite, ToolSpec
from agentgauge.suites._export import write_suite

DATA = Path(__file__).parent / "data"
SAMPLE = DATA / "when2call_sample.jsonl"


def _import(path: Path = SAMPLE, **kwargs: object) -> Suite:
    return import_suite("when2call", [path], ImportOptions(**kwargs))  # type: ignore[arg-type]


def test_behaviours_categories_and_references() -> None:
    suite = _import()
    by_id = {c.id: c for c in suite.cases}
    assert list(by_id) == [
        "live_simple_1-1-0.tool_call",
        "live_simple_1-1-0.request_for_info",
        "live_multiple_9-2-1.cannot_answer",
    ]
    call = by_id["live_simple_1-1-0.tool_call"]
    assert call.category == "tool_call"
    assert call.expect.behavior == "tool_call"
    (expected,) = call.expect.tool_calls
    assert expected.name == "get_weather"
    # the decision is scored: required arguments present with any value, others free
    assert expected.arguments == {"city": ArgMatcher(any=True)}
    assert expected.extra_arguments == "allow"
    assert call.expect.reference is not None
    assert "get_weather" in call.expect.reference

    clarify = by_id["live_simple_1-1-0.request_for_info"]
    assert (clarify.category, clarify.expect.behavior) == ("clarify", "clarify")
    assert clarify.expect.reference == "Which city do you mean?"
    assert clarify.metadata["held_out_param"] == "city"

    refuse = by_id["live_multiple_9-2-1.cannot_answer"]
    assert (refuse.category, refuse.expect.behavior) == ("not_supported", "refuse")
    assert refuse.tools == []  # no tool offered: not "every suite tool"
    assert refuse.metadata["uuid"] == "u-3"
    assert refuse.metadata["source_line"] == 3
    assert refuse.tags == ["bfcl-v2-live-multiple"]


def test_bfcl_types_become_json_schema_and_shared_tools_are_pooled() -> None:
    suite = _import()
    tools = {t.name: t for t in suite.tools}
    # get_weather is defined identically in two rows: one suite tool, referenced by name
    assert "get_weather" in tools
    assert suite.cases[1].tools == ["get_weather"]
    assert tools["get_weather"].parameters["type"] == "object"
    convert = tools["convert"].properties()
    assert convert["ratio"] == {"type": "number"}
    assert convert["pair"] == {"type": "array", "items": {"type": "string"}}


def test_strict_arguments_expect_the_reference_values() -> None:
    suite = _import(strict_arguments=True)
    (expected,) = suite.cases[0].expect.tool_calls
    assert expected.arguments == {
        "city": ArgMatcher(value="Oslo"),
        "unit": ArgMatcher(value="fahrenheit"),
    }
    assert expected.extra_arguments is None


def test_limit_and_category_override() -> None:
    suite = _import(limit=2, category="edge_case")
    assert len(suite.cases) == 2
    assert {c.category for c in suite.cases} == {"edge_case"}


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("[1]", ":1: expected a JSON object"),
        ('{"question": "q", "correct_answer": "maybe", "answers": {}}', ":1: correct_answer:"),
        ('{"question": "", "correct_answer": "direct", "answers": {}}', ":1: question:"),
        (
            '{"question": "q", "correct_answer": "direct", "answers": {}, "tools": ["{x"]}',
            "tools[0]",
        ),
        (
            '{"question": "q", "correct_answer": "tool_call", "tools": [],'
            ' "answers": {"tool_call": "{\\"name\\": \\"f\\", \\"arguments\\": {}}"}}',
            "tool 'f' is not among the tools",
        ),
        ("{not json", ":1: invalid JSON"),
    ],
)
def test_bad_rows_name_file_and_line(tmp_path: Path, row: str, message: str) -> None:
    src = tmp_path / "w.jsonl"
    src.write_text(row + "\n", encoding="utf-8")
    with pytest.raises(UserError) as err:
        _import(src)
    assert str(err.value).startswith(str(src))
    assert message in str(err.value)


def test_written_suite_loads_back_equal(tmp_path: Path) -> None:
    suite = _import()
    write_suite(suite, tmp_path / "out")
    loaded = load_suite(tmp_path / "out")
    assert loaded.cases == suite.cases
    assert loaded.tools == suite.tools


@pytest.mark.shared_data
def test_real_when2call_file(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "when2call" / "when2call_test_llm_judge.jsonl"
    rows = [json.loads(line) for line in src.read_text(encoding="utf-8").splitlines()]
    suite = _import(src)
    assert len(suite.cases) == len(rows) == 300
    source_counts = Counter(r["correct_answer"] for r in rows)
    behaviours = Counter(c.expect.behavior for c in suite.cases)
    assert behaviours == {
        "tool_call": source_counts["tool_call"],
        "clarify": source_counts["request_for_info"],
        "refuse": source_counts["cannot_answer"],
    }
    assert Counter(c.category for c in suite.cases) == {
        "tool_call": 100,
        "clarify": 100,
        "not_supported": 100,
    }
    assert len({c.id for c in suite.cases}) == 300
    # every tool of every row is offered, as JSON Schema
    for case, row in zip(suite.cases, rows, strict=True):
        assert len(case.tools or []) == len(row["tools"])
        for tool in suite.tools_for(case):
            assert isinstance(tool, ToolSpec)
            text = json.dumps(tool.parameters)
            for python_type in ("dict", "float", "tuple", "any"):
                assert f'"type": "{python_type}"' not in text
    out = tmp_path / "when2call"
    write_suite(suite, out)
    loaded = load_suite(out)
    assert loaded.cases == suite.cases


def test_direct_answer_rows(tmp_path: Path) -> None:
    row = {
        "uuid": "u-9",
        "question": "What is 2 + 2?",
        "correct_answer": "direct",
        "answers": {
            "direct": "4",
            "tool_call": "{}",
            "request_for_info": "?",
            "cannot_answer": "no",
        },
        "tools": [],
    }
    src = tmp_path / "w.jsonl"
    src.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (case,) = _import(src).cases
    assert (case.id, case.category, case.expect.behavior) == ("u-9", "no_tool", "answer")
    assert case.expect.reference == "4"
