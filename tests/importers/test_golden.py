"""The golden (query / context / ground_truth / response) importer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io.importers import ImportOptions, import_suite
from agentgauge.schema import Suite

DATA = Path(__file__).parent / "data"


def _import(path: Path = DATA / "golden.jsonl", **kwargs: object) -> Suite:
    return import_suite("golden", [path], ImportOptions(**kwargs))  # type: ignore[arg-type]


def test_fields_map_to_a_grounded_answer_case() -> None:
    suite = _import()
    first, second, third = suite.cases
    assert first.id == "g1"
    assert first.input == "When was the library founded?"
    assert first.context == ["The city library opened its doors in 1892."]
    assert first.expect.behavior == "answer"
    assert first.expect.reference == "In 1892."
    assert first.metadata["response"] == "It was founded in 1892."
    assert second.id == "golden-0002"
    assert second.context == ["The bridge was designed by Ana Ruiz.", "It opened in 1971."]
    assert second.category == "edge_case"
    assert "response" not in second.metadata
    assert third.context == []
    assert third.tags == ["hours"]
    assert third.metadata["source_line"] == 4  # the blank line is skipped, not miscounted


def test_column_mapping_and_nested_columns(tmp_path: Path) -> None:
    src = tmp_path / "qa.jsonl"
    row = {"inputs": {"q": "Capital of Peru?"}, "docs": ["Lima is the capital."], "gold": "Lima"}
    src.write_text(json.dumps(row) + "\n", encoding="utf-8")
    suite = _import(src, columns={"query": "inputs.q", "context": "docs", "ground_truth": "gold"})
    (case,) = suite.cases
    assert (case.input, case.context, case.expect.reference) == (
        "Capital of Peru?",
        ["Lima is the capital."],
        "Lima",
    )


def test_common_column_names_of_other_tools(tmp_path: Path) -> None:
    src = tmp_path / "ragas.jsonl"
    row = {
        "user_input": "Who wrote it?",
        "retrieved_contexts": ["Written by Kim."],
        "reference": "Kim",
        "response": "Kim wrote it.",
    }
    src.write_text(json.dumps(row) + "\n", encoding="utf-8")
    (case,) = _import(src).cases
    assert case.input == "Who wrote it?"
    assert case.context == ["Written by Kim."]
    assert case.expect.reference == "Kim"
    assert case.metadata["response"] == "Kim wrote it."


def test_missing_query_names_the_columns(tmp_path: Path) -> None:
    src = tmp_path / "qa.jsonl"
    src.write_text('{"ask": "x"}\n', encoding="utf-8")
    with pytest.raises(UserError) as err:
        _import(src)
    assert str(err.value) == (
        f"{src}:1: no query in column 'query' (columns: ask); map it with --map query=COLUMN"
    )


def test_unknown_mapped_field() -> None:
    with pytest.raises(UserError, match=r"--map answer_text=\.\.\.: unknown field"):
        _import(columns={"answer_text": "x"})


def test_context_of_the_wrong_type(tmp_path: Path) -> None:
    src = tmp_path / "qa.jsonl"
    src.write_text('{"query": "q", "context": {"a": 1}}\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"qa\.jsonl:1: context: expected a string or a list"):
        _import(src)


def test_a_behavior_column_marks_the_rows_to_decline(tmp_path: Path) -> None:
    src = tmp_path / "qa.jsonl"
    rows = [
        {"query": "Weather in Oslo?", "ground_truth": "I can't help with that.",
         "behavior": "refuse"},
        {"query": "Hours?", "ground_truth": "9-5.", "expected_behavior": "answer"},
        {"query": "Price?", "ground_truth": "$5.", "behavior": ""},
    ]  # fmt: skip
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert [c.expect.behavior for c in _import(src).cases] == ["refuse", "answer", "answer"]
    src.write_text('{"query": "q", "behavior": "decline"}\n', encoding="utf-8")
    with pytest.raises(UserError) as err:
        _import(src)
    assert str(err.value).startswith(f"{src}:1: behavior: expected one of tool_call, ")
    assert str(err.value).endswith(", got 'decline'")


def test_passages_give_the_suite_the_numeric_grounding_scorer(tmp_path: Path) -> None:
    """An imported answer's numbers are checked against its passages without a judge: the
    suite gets ``numeric_grounding`` when some row has context, and no scorer otherwise."""
    assert [s.scorer for s in _import().scorers] == ["numeric_grounding"]
    src = tmp_path / "qa.jsonl"
    src.write_text('{"query": "q", "ground_truth": "a"}\n', encoding="utf-8")
    assert _import(src).scorers == []
