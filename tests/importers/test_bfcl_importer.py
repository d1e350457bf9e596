"""BFCL importer: question + possible_answer files to cases, counts, and clear rejections."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import UserError
from agentgauge.io.importers import import_suite
from agentgauge.schema import ToolSpec

FUNC = {
    "name": "math.hypot",
    "description": "Euclidean norm.",
    "parameters": {
        "type": "dict",
        "properties": {
            "x": {"type": "integer", "description": "x"},
            "y": {"type": "float", "description": "y"},
            "point": {"type": "tuple", "items": {"type": "float"}, "description": "p"},
            "opts": {"type": "dict", "properties": {"unit": {"type": "string"}}},
            "z": {"type": "any", "description": "z"},
        },
        "required": ["x", "y"],
    },
}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def question(qid: str, text: str = "hypot of 4 and 5") -> dict[str, Any]:
    return {"id": qid, "question": [[{"role": "user", "content": text}]], "function": [FUNC]}


@pytest.fixture
def bfcl_dir(tmp_path: Path) -> Path:
    write_jsonl(
        tmp_path / "BFCL_v4_simple_python.json",
        [question("simple_python_0"), question("simple_python_1")],
    )
    # answers in another order: paired by id, not position
    write_jsonl(
        tmp_path / "possible_answer" / "BFCL_v4_simple_python.json",
        [
            {"id": "simple_python_1", "ground_truth": [{"math.hypot": {"x": [1], "y": [2.0]}}]},
            {
                "id": "simple_python_0",
                "ground_truth": [
                    {
                        "math.hypot": {
                            "x": [4],
                            "y": [5.0, ""],
                            "opts": [{"unit": ["cm", ""]}],
                        }
                    }
                ],
            },
        ],
    )
    write_jsonl(tmp_path / "BFCL_v4_irrelevance.json", [question("irrelevance_0", "hi")])
    write_jsonl(tmp_path / "BFCL_v4_live_relevance.json", [question("live_relevance_0-0-0")])
    return tmp_path


def test_import_pairs_by_id_and_maps_everything(bfcl_dir: Path) -> None:
    suite = import_suite("bfcl", [bfcl_dir])
    by_id = {c.id: c for c in suite.cases}
    assert sorted(by_id) == [
        "irrelevance_0",
        "live_relevance_0-0-0",
        "simple_python_0",
        "simple_python_1",
    ]
    case = by_id["simple_python_0"]
    assert case.category == "simple_python"
    assert case.metadata["bfcl_category"] == "simple_python"
    assert "simple_python" in case.tags
    assert case.input == "hypot of 4 and 5"
    (call,) = case.expect.tool_calls
    assert call.name == "math.hypot"
    assert call.arguments["x"].one_of == [4]
    assert not call.arguments["x"].optional
    assert call.arguments["y"].one_of == [5.0]
    assert call.arguments["y"].optional
    opts = call.arguments["opts"]
    assert opts.fields is not None
    assert opts.fields["unit"].one_of == ["cm"]
    assert opts.fields["unit"].optional
    assert case.metadata["bfcl_ground_truth"][0]["math.hypot"]["y"] == [5.0, ""]
    # tuple is recorded (JSON Schema has no tuple), dict/float/any come back from the schema
    assert case.metadata["bfcl_types"] == {"math.hypot": {"point": "tuple"}}
    tools = suite.tool_map()
    tool = tools["math.hypot"] if "math.hypot" in tools else case.tools[0]
    assert isinstance(tool, ToolSpec)
    props = tool.properties()
    assert props["y"]["type"] == "number"
    assert props["opts"]["type"] == "object"
    assert "type" not in props["z"]
    assert by_id["irrelevance_0"].expect.behavior == "no_tool"
    assert by_id["live_relevance_0-0-0"].expect.behavior == "any_tool"


def test_answer_missing_or_extra_is_reported_with_lines(tmp_path: Path) -> None:
    write_jsonl(
        tmp_path / "BFCL_v4_multiple.json", [question("multiple_0"), question("multiple_1")]
    )
    write_jsonl(
        tmp_path / "possible_answer" / "BFCL_v4_multiple.json",
        [
            {"id": "multiple_0", "ground_truth": [{"math.hypot": {"x": [1], "y": [1.0]}}]},
            {"id": "multiple_9", "ground_truth": [{"math.hypot": {"x": [1], "y": [1.0]}}]},
        ],
    )
    with pytest.raises(UserError) as err:
        import_suite("bfcl", [tmp_path / "BFCL_v4_multiple.json"])
    problems = "\n".join(err.value.problems)
    assert "BFCL_v4_multiple.json:2: question 'multiple_1' has no answer" in problems
    assert (
        "possible_answer/BFCL_v4_multiple.json:2: answer 'multiple_9' has no question" in problems
    )


def test_multi_turn_needs_its_answers(tmp_path: Path) -> None:
    # (multi-turn files import now: tests/importers/test_bfcl_multi_turn_import.py)
    path = write_jsonl(tmp_path / "BFCL_v4_multi_turn_base.json", [question("multi_turn_base_0")])
    with pytest.raises(UserError, match="no answer file"):
        import_suite("bfcl", [path])


def test_bad_json_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "BFCL_v4_live_relevance.json"
    path.write_text(json.dumps(question("live_relevance_0")) + "\n{oops\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"BFCL_v4_live_relevance.json:2: invalid JSON"):
        import_suite("bfcl", [path])


EXPECTED_COUNTS = {
    "simple_python": 400,
    "multiple": 200,
    "parallel": 200,
    "parallel_multiple": 200,
    "live_simple": 258,
    "live_multiple": 1053,
    "live_parallel": 16,
    "live_parallel_multiple": 24,
    "irrelevance": 240,
    "live_irrelevance": 884,
    "live_relevance": 16,
}


@pytest.mark.shared_data
def test_counts_match_the_bfcl_v4_source_files(shared_data: Path) -> None:
    folder = shared_data / "bfcl-v4"
    suite = import_suite("bfcl", [folder])
    counts: dict[str, int] = {}
    for case in suite.cases:
        counts[case.category] = counts.get(case.category, 0) + 1
    assert counts == EXPECTED_COUNTS
    for category, n in EXPECTED_COUNTS.items():
        lines = (folder / f"BFCL_v4_{category}.json").read_text(encoding="utf-8").splitlines()
        assert n == sum(1 for line in lines if line.strip())
    assert len({c.id for c in suite.cases}) == len(suite.cases)
