"""The tool-selection (test_dataset.json) importer, on a fixture written for these tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io.importers import ImportOptions, import_suite
from agentgauge.schema import ArgMatcher, Case, Message, Suite, ToolCall
from agentgauge.scoring import score_case

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
        "D001": ("error_handling", "clarify"),
        "E001": ("not_supported", "refuse"),
    }
    assert [t.name for t in suite.tools] == ["get_weather", "translate_text", "book_hotel"]


def test_expected_call_and_text_reference() -> None:
    suite = _import()
    by_id = {c.id: c for c in suite.cases}
    (call,) = by_id["A002"].expect.tool_calls
    assert call.name == "translate_text"
    assert call.arguments == {
        "text": ArgMatcher(value="good morning", ignore_case=True, ignore_space=True),
        "target_language": ArgMatcher(value="ja", ignore_case=True, ignore_space=True),
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
        {
            # "text" says only that the reply is text; the id letter says which kind
            "id": "D003",
            "user_query": "Convert 100 meters into seconds.",
            "ground_truth": {"text": "Meters are not a unit of time.", "no_function_call": True},
            "expected_response_type": "text",
        },
    ]
    src = tmp_path / "test_dataset.json"
    src.write_text(json.dumps(records), encoding="utf-8")
    suite = _import(src)
    assert [(c.id, c.category) for c in suite.cases] == [
        ("X1", "tool_call"),
        ("C007", "clarify"),
        ("E002", "not_supported"),
        ("case-1", "no_tool"),
        ("D003", "error_handling"),
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


# ---------------------------------------------------------------- verdicts on imported cases


def _verdict(suite: Suite, case: Case, text: str | None, *calls: ToolCall) -> str:
    turn = [Message(role="assistant", content=text, tool_calls=list(calls))]
    return score_case(case, [turn], {t.name: t for t in suite.tools}).status


_REMINDER_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "set_reminder",
            "description": "Set a reminder.",
            "parameters": {
                "type": "object",
                "properties": {"text": {"type": "string"}, "date": {"type": "string"}},
                "required": ["text", "date"],
            },
        },
    }
]


def _reminder_suite(tmp_path: Path, records: list[dict[str, object]]) -> Suite:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(_REMINDER_TOOLS), encoding="utf-8")
    src = tmp_path / "test_dataset.json"
    src.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return import_suite("tool-selection", [src], ImportOptions(tools=tools))


def test_error_record_fails_a_call_and_an_empty_acknowledgement(tmp_path: Path) -> None:
    # the framework's unified format: ground_truth carries expected_response_type, no flag
    suite = _reminder_suite(
        tmp_path,
        [
            {
                "id": "D002",
                "type": "error",
                "user_query": "Set a reminder for the dentist on April 31st.",
                "ground_truth": {
                    "function_call": None,
                    "text": "April has only 30 days. Which date should the reminder be for?",
                    "expected_response_type": "text",
                },
            }
        ],
    )
    (case,) = suite.cases
    assert (case.category, case.expect.behavior) == ("error_handling", "clarify")
    assert case.expect.reference == (
        "April has only 30 days. Which date should the reminder be for?"
    )
    bad_call = ToolCall(name="set_reminder", arguments={"text": "dentist", "date": "2026-04-31"})
    # both passed while the record was imported as `recover` (no tool error, nothing scored)
    assert _verdict(suite, case, None, bad_call) == "failed"
    assert _verdict(suite, case, "Done!", bad_call) == "failed"
    assert _verdict(suite, case, "Done! Your reminder is set.") == "failed"
    good = "April only has 30 days, so April 31st doesn't exist. Which day did you mean?"
    assert _verdict(suite, case, good) == "passed"


def test_fixture_error_record_verdicts() -> None:
    suite = _import()
    case = next(c for c in suite.cases if c.id == "D001")
    wrong = ToolCall(
        name="book_hotel", arguments={"city": "Rome", "check_in": "2026-02-30", "nights": 2}
    )
    assert _verdict(suite, case, "Booked!", wrong) == "failed"
    assert _verdict(suite, case, "Done!") == "failed"
    assert (
        _verdict(suite, case, "February has no 30th day. Which check-in date do you want?")
        == "passed"
    )


def test_every_text_record_fails_on_any_call() -> None:
    # the framework fails any function call on a record whose ground truth is text
    suite = _import()
    call = ToolCall(name="get_weather", arguments={"location": "Lisbon"})
    for case in suite.cases:
        if case.expect.behavior != "tool_call":
            assert _verdict(suite, case, "Here you go.", call) == "failed", case.id
    by_id = {c.id: c for c in suite.cases}
    assert _verdict(suite, by_id["B001"], "Six.") == "passed"
    assert _verdict(suite, by_id["C001"], "Which city, and for how many nights?") == "passed"
    assert _verdict(suite, by_id["C001"], "Done!") == "failed"
    assert _verdict(suite, by_id["E001"], "Sorry, I can't control your lights.") == "passed"
    assert _verdict(suite, by_id["E001"], "Done!") == "failed"


def test_error_record_with_a_function_call_ground_truth_is_a_call_case(tmp_path: Path) -> None:
    suite = _reminder_suite(
        tmp_path,
        [
            {
                "id": "D9",
                "type": "error",
                "user_query": "Remind me about the dentist on the 30th of April, not the 31st.",
                "ground_truth": {
                    "function_call": {
                        "name": "set_reminder",
                        "arguments": {"text": "dentist", "date": "2026-04-30"},
                    },
                    "expected_response_type": "function_call",
                },
            }
        ],
    )
    (case,) = suite.cases
    assert (case.category, case.expect.behavior) == ("error_handling", "tool_call")
    wrong = ToolCall(name="set_reminder", arguments={"text": "dentist", "date": "2026-04-31"})
    right = ToolCall(name="set_reminder", arguments={"text": "dentist", "date": "2026-04-30"})
    assert _verdict(suite, case, None, wrong) == "failed"
    assert _verdict(suite, case, "I can't.") == "failed"
    assert _verdict(suite, case, None, right) == "passed"


def _call_suite(tmp_path: Path, arguments: dict[str, object]) -> Suite:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {
                    "type": "object",
                    "properties": {
                        "location": {"type": "string"},
                        "days": {"type": "integer"},
                        "zip": {"type": "string"},
                        "metric": {"type": "boolean"},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["location"],
                },
            },
        }
    ]
    (tmp_path / "tools.json").write_text(json.dumps(tools), encoding="utf-8")
    record = {
        "id": "A1",
        "type": "tool_selection",
        "user_query": "Weather?",
        "ground_truth": {"function_call": {"name": "get_weather", "arguments": arguments}},
    }
    src = tmp_path / "test_dataset.json"
    src.write_text(json.dumps([record]), encoding="utf-8")
    return import_suite("tool-selection", [src], ImportOptions(tools=tmp_path / "tools.json"))


@pytest.mark.parametrize(
    ("expected", "actual", "status"),
    [
        # the framework's first check: case and surrounding space do not matter
        ({"location": "New York"}, {"location": "new york "}, "passed"),
        ({"location": "New York"}, {"location": "  NEW YORK"}, "passed"),
        ({"location": "New York"}, {"location": "Boston"}, "failed"),
        ({"location": "New York"}, {"location": "NewYork"}, "failed"),
        # numbers compare as numbers, whichever side is the string
        ({"location": "x", "days": 2}, {"location": "x", "days": "2"}, "passed"),
        ({"location": "x", "days": 2}, {"location": "x", "days": 2.0}, "passed"),
        ({"location": "x", "days": 2}, {"location": "x", "days": "3"}, "failed"),
        ({"location": "x", "zip": "2"}, {"location": "x", "zip": 2}, "passed"),
        ({"location": "x", "zip": "2"}, {"location": "x", "zip": "2.0"}, "passed"),
        ({"location": "x", "zip": "2"}, {"location": "x", "zip": 3}, "failed"),
        # booleans compare by their text: True is "true", not 1
        ({"location": "x", "metric": True}, {"location": "x", "metric": "True"}, "passed"),
        ({"location": "x", "metric": True}, {"location": "x", "metric": 1}, "failed"),
        ({"location": "x", "metric": "false"}, {"location": "x", "metric": False}, "passed"),
        ({"location": "x", "metric": "false"}, {"location": "x", "metric": True}, "failed"),
        # lists: the case of the strings inside does not matter, the items do
        ({"location": "x", "tags": ["Rain"]}, {"location": "x", "tags": ["rain"]}, "passed"),
        ({"location": "x", "tags": ["Rain"]}, {"location": "x", "tags": ["snow"]}, "failed"),
        # the same argument names: none missing, none extra
        ({"location": "x", "days": 2}, {"location": "x"}, "failed"),
        ({"location": "x"}, {"location": "x", "days": 2}, "failed"),
    ],
)
def test_arguments_compare_as_the_framework_compares(
    tmp_path: Path, expected: dict[str, object], actual: dict[str, object], status: str
) -> None:
    suite = _call_suite(tmp_path, expected)
    (case,) = suite.cases
    assert _verdict(suite, case, None, ToolCall(name="get_weather", arguments=actual)) == status


def test_argument_failure_explains_itself(tmp_path: Path) -> None:
    suite = _call_suite(tmp_path, {"location": "New York"})
    (case,) = suite.cases
    turn = [
        Message(
            role="assistant",
            tool_calls=[ToolCall(name="get_weather", arguments={"location": "Boston"})],
        )
    ]
    verdict = score_case(case, [turn], {t.name: t for t in suite.tools})
    assert "expected 'New York' (ignoring case, ignoring spaces), got 'Boston'" in (
        verdict.explanation
    )
