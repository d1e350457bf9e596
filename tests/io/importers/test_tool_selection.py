"""The tool-selection (test_dataset.json) importer, on a fixture written for these tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io.importers import ImportOptions, import_suite
from agentgauge.schema import ArgMatcher, Suite

DATA = Path(__file__).parent / "data"
TOOLS = DATA / "tools.json"


def _import(path: Path = DATA / "test_dataset.json", **kwargs: object) -> Suite:
    options = ImportOptions(tools=TOOLS, **kwargs)  # type: ignore[arg-type]
    return import_suite("tool-selection", [path], options)


def test_types_map_to_categories_and_behaviours() -> None:
    suite = _import()
    got = {c.id: (c.category, c.expect.behavior) for c in suite.cases}
    assert got == {
        "A001": ("tool_call", "tool_call"),
        "A002": ("tool_call", "tool_call"),
        "B001": ("no_tool", "answer"),
        "C001": ("clarify", "clarify"),
        "D001": ("error_handling", "recover"),
        "E001": ("not_supported", "refuse"),
    }
    assert [t.name for t in suite.tools] == ["get_weather", "translate_text", "book_hotel"]


def test_expected_call_is_exact_and_text_is_the_reference() -> None:
    suite = _import()
    by_id = {c.id: c for c in suite.cases}
    (call,) = by_id["A002"].expect.tool_calls
    assert call.name == "translate_text"
    assert call.arguments == {
        "text": ArgMatcher(value="good morning"),
        "target_language": ArgMatcher(value="ja"),
    }
    assert by_id["B001"].expect.reference == "A hexagon has six sides."
    assert by_id["B001"].expect.tool_calls == []
    assert by_id["E001"].metadata["type"] == "not_supported"
    assert by_id["A001"].metadata["source_line"] == 2


def test_kind_falls_back_to_ground_truth_then_id_letter(tmp_path: Path) -> None:
    records = [
        {
            "id": "X1",
            "user_query": "Weather in Oslo",
            "ground_truth": {
                "function_call": {"name": "get_weather", "arguments": {"location": "Oslo"}}
            },
        },
        {
            "id": "C007",
            "user_query": "Book it",
            "ground_truth": {"text": "Where?", "no_function_call": True},
        },
        {
            "id": "E002",
            "user_query": "Call my mum",
            "ground_truth": {"text": "I can't.", "no_function_call": True},
        },
        {"user_query": "2+2?", "ground_truth": {"text": "4", "no_function_call": True}},
    ]
    src = tmp_path / "test_dataset.json"
    src.write_text(json.dumps(records), encoding="utf-8")
    suite = _import(src)
    assert [(c.id, c.category) for c in suite.cases] == [
        ("X1", "tool_call"),
        ("C007", "clarify"),
        ("E002", "not_supported"),
        ("case-1", "no_tool"),
    ]


def test_results_file_keeps_the_model_answers(tmp_path: Path) -> None:
    results = {
        "with_tools": {
            "test_results": [
                {
                    "id": "A001",
                    "user_query": "Is it raining in Lisbon?",
                    "ground_truth": {
                        "function_call": {
                            "name": "get_weather",
                            "arguments": {"location": "Lisbon"},
                        }
                    },
                    "model_function_call": {
                        "name": "get_weather",
                        "arguments": {"location": "Lisbon, PT"},
                    },
                    "model_text": None,
                }
            ]
        }
    }
    src = tmp_path / "responses.json"
    src.write_text(json.dumps(results, indent=2), encoding="utf-8")
    (case,) = _import(src).cases
    assert case.metadata["response"] == {
        "text": None,
        "calls": [{"name": "get_weather", "arguments": {"location": "Lisbon, PT"}}],
    }
    assert case.metadata["source_line"] == 5


def test_tools_are_required() -> None:
    with pytest.raises(UserError, match="give the tool definitions with --tools"):
        import_suite("tool-selection", [DATA / "test_dataset.json"], ImportOptions())


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (
            {
                "id": "A1",
                "user_query": "x",
                "ground_truth": {"function_call": {"name": "nope", "arguments": {}}},
            },
            "unknown tool 'nope'",
        ),
        (
            {
                "id": "A1",
                "type": "tool_selection",
                "user_query": "x",
                "ground_truth": {"text": "t"},
            },
            "needs ground_truth.function_call",
        ),
        (
            {"id": "A1", "type": "banana", "user_query": "x", "ground_truth": {}},
            "type: unknown value 'banana'",
        ),
        ({"id": "A1", "user_query": "", "ground_truth": {}}, "user_query: expected"),
        ({"id": "A1", "user_query": "x"}, "ground_truth: expected an object"),
    ],
)
def test_bad_records(tmp_path: Path, record: dict[str, object], message: str) -> None:
    src = tmp_path / "t.json"
    src.write_text("[\n  " + json.dumps(record) + "\n]\n", encoding="utf-8")
    with pytest.raises(UserError) as err:
        _import(src)
    assert str(err.value).startswith(f"{src}:2: ")
    assert message in str(err.value)
