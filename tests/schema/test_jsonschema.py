"""The suite JSON Schema accepts what the loader accepts (shorthand included) and no typos."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.files._yaml import read_document

jsonschema = pytest.importorskip("jsonschema")

REPO = Path(__file__).resolve().parents[2]


def printed_schema() -> dict[str, Any]:
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0, result.output
    schema: dict[str, Any] = json.loads(result.stdout)
    return schema


def validator() -> Any:
    schema = printed_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_quickstart_validates_against_the_printed_schema() -> None:
    data = read_document(REPO / "examples/quickstart/suite.yaml", "suite.yaml").data
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator().iter_errors(data)]
    assert errors == []


def suite_with_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    call = {"name": "f", "arguments": arguments}
    return {"name": "s", "cases": [{"id": "a", "input": "x", "expect": {"tool_calls": [call]}}]}


@pytest.mark.parametrize(
    "arguments",
    [
        {"city": "Paris", "n": 3, "flag": True, "none": None},
        {"tags": ["a", "b"], "pairs": [{"one_of": [1, 2]}, 3]},
        {"where": {"city": {"value": "Paris", "ignore_case": True}, "zip": "75001"}},
        {"x": {"value": 3, "tolerance": 0.5}, "d": {"value": "2026-03-20", "date": True}},
        {"empty": {}},
    ],
)
def test_shorthand_forms_are_accepted(arguments: dict[str, Any]) -> None:
    assert list(validator().iter_errors(suite_with_arguments(arguments))) == []


@pytest.mark.parametrize(
    "arguments",
    [
        {"x": {"value": 3, "tolerence": 0.5}},  # a matcher key plus a typo
        {"x": {"one_of": "abc"}},
        {"x": {"value": 3, "tolerance": -1}},
    ],
)
def test_bad_matchers_are_rejected(arguments: dict[str, Any]) -> None:
    assert list(validator().iter_errors(suite_with_arguments(arguments))) != []


def test_unknown_case_field_is_rejected() -> None:
    data = {"name": "s", "cases": [{"id": "a", "input": "x", "expectt": {}}]}
    assert list(validator().iter_errors(data)) != []


def test_output_file(tmp_path: Path) -> None:
    out = tmp_path / "suite.schema.json"
    result = CliRunner().invoke(cli, ["schema", "--output", str(out)])
    assert result.exit_code == 0
    assert json.loads(out.read_text())["title"] == "agentgauge suite"


def test_a_suite_may_name_its_schema(tmp_path: Path) -> None:
    from agentgauge.io import load_suite

    data = {"$schema": "suite.schema.json", "name": "s", "cases": [{"id": "a", "input": "x"}]}
    assert list(validator().iter_errors(data)) == []
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_suite(path).name == "s"


def test_fields_carry_descriptions_for_editors() -> None:
    schema = printed_schema()
    matcher = schema["$defs"]["ArgMatcherObject"]["properties"]
    assert matcher["tolerance"]["description"] == "absolute numeric tolerance"
    case = schema["$defs"]["Case"]["properties"]
    assert case["id"]["description"].startswith("Unique id")
    assert "happy_path" in case["category"]["description"]


def suite_with_scorers(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"name": "s", "scorers": list(entries), "cases": [{"id": "a", "input": "x"}]}


def test_scorers_entries_follow_the_scorer_catalog() -> None:
    from agentgauge.schema import SCORER_INFO

    v = validator()
    # every known scorer with every argument it takes (of the right kind) validates
    samples = {
        "bool": True,
        "int": 4,
        "number": 0.5,
        "string": "x",
        "regex": "^a+$",
        "strings": ["a"],
        "numbers": [1.0],
        "object": {},
        "objects": [{}],
        "scale": [1, 5],
    }
    for info in SCORER_INFO.values():
        args: dict[str, Any] = {}
        for a in info.all_args():
            value: Any = samples[a.kind]
            if a.kind in ("int", "number") and a.minimum is not None:
                value = a.minimum
            args[a.name] = value
        entry = {"scorer": info.name, "args": args, "judge": "mock:judge", "cases": ["a*"]}
        errors = [e.message for e in v.iter_errors(suite_with_scorers(entry))]
        assert errors == [], (info.name, errors)
    for bad in (
        {"scorer": "groundednes"},
        {"scorer": "groundedness", "args": {"min_scor": 4}},
        {"scorer": "groundedness", "args": {"min_score": 9}},
        {"scorer": "groundedness", "args": {"min_score": "four"}},
    ):
        assert list(v.iter_errors(suite_with_scorers(bad))), bad


def test_the_guardrails_example_validates_against_the_printed_schema() -> None:
    """Call types, ``mcp: true``, globs, ``not`` (in an expectation and a matcher), banned
    argument values, sequences and bounds are in the schema an editor validates with."""
    data = read_document(REPO / "examples/guardrails/suite.yaml", "suite.yaml").data
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator().iter_errors(data)]
    assert errors == []
    typo = {"name": "s", "cases": [{"id": "a", "input": "x", "expect": {"forbiden_types": []}}]}
    assert list(validator().iter_errors(typo)) != []
