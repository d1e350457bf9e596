"""Tool-format converters: each vendor form both ways, detection, BFCL Python-style types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import UserError
from agentgauge.formats._convert import (
    TOOL_FORMATS,
    bfcl_schema_to_json_schema,
    from_anthropic,
    from_gemini,
    from_mcp,
    from_openai,
    from_openai_responses,
    json_schema_to_gemini,
    read_tools_file,
    to_anthropic,
    to_gemini,
    to_mcp,
    to_openai,
    to_openai_responses,
    tools_from_data,
    tools_to_format,
)
from agentgauge.schema import ToolSpec

BOOK = ToolSpec(
    name="book_flight",
    description="Book a one-way flight.",
    parameters={
        "type": "object",
        "properties": {
            "origin": {"type": "string", "description": "IATA code"},
            "destination": {"type": "string", "enum": ["PDX", "PWM", "SEA"]},
            "passengers": {"type": "integer", "default": 1, "minimum": 1},
            "cabin": {
                "type": "object",
                "properties": {
                    "class": {"type": "string", "enum": ["economy", "business"]},
                    "seats": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["class"],
            },
            "max_price": {"type": "number"},
            "refundable": {"type": "boolean", "default": False},
        },
        "required": ["origin", "destination"],
    },
)
NO_ARGS = ToolSpec(name="get_time", description="Current time.")

TOOLS = [BOOK, NO_ARGS]


@pytest.mark.parametrize("fmt", TOOL_FORMATS)
@pytest.mark.parametrize("tool", TOOLS, ids=lambda t: t.name)
def test_round_trip_through_every_format(fmt: str, tool: ToolSpec) -> None:
    data = tools_to_format([tool], fmt)
    # through JSON text, as a file would carry it
    back = tools_from_data(json.loads(json.dumps(data)))
    assert back == [tool]


@pytest.mark.parametrize(
    ("to", "frm"),
    [
        (to_openai, from_openai),
        (to_openai_responses, from_openai_responses),
        (to_anthropic, from_anthropic),
        (to_gemini, from_gemini),
        (to_mcp, from_mcp),
    ],
    ids=["openai", "openai-responses", "anthropic", "gemini", "mcp"],
)
def test_single_tool_functions_round_trip(to: Any, frm: Any) -> None:
    assert frm(to(BOOK)) == BOOK


def test_vendor_shapes() -> None:
    assert to_openai(NO_ARGS) == {
        "type": "function",
        "function": {
            "name": "get_time",
            "description": "Current time.",
            "parameters": {"type": "object", "properties": {}},
        },
    }
    assert to_openai(NO_ARGS, strict=True)["function"]["strict"] is True  # type: ignore[index]
    resp = to_openai_responses(NO_ARGS)
    assert resp["type"] == "function"
    assert resp["name"] == "get_time"
    assert resp["strict"] is False
    assert set(to_anthropic(NO_ARGS)) == {"name", "description", "input_schema"}
    assert set(to_mcp(NO_ARGS)) == {"name", "description", "inputSchema"}
    # a tool without parameters has no parameters in Gemini's form
    assert to_gemini(NO_ARGS) == {"name": "get_time", "description": "Current time."}


def test_gemini_uses_upper_case_openapi_subset() -> None:
    params = to_gemini(BOOK)["parameters"]
    assert params["type"] == "OBJECT"  # type: ignore[index]
    cabin = params["properties"]["cabin"]  # type: ignore[index]
    assert cabin["properties"]["seats"] == {"type": "ARRAY", "items": {"type": "STRING"}}
    as_json = to_gemini(BOOK, json_schema=True)
    assert as_json["parameters_json_schema"] == BOOK.parameters


def test_the_public_converter_writes_gemini_json_schema_on_request() -> None:
    from agentgauge.formats import tools_to_format

    plain = tools_to_format([BOOK, NO_ARGS], "gemini")
    as_json = tools_to_format([BOOK, NO_ARGS], "gemini", json_schema=True)
    assert isinstance(plain, dict)
    assert isinstance(as_json, dict)
    assert "parameters" in plain["function_declarations"][0]
    assert as_json == {
        "function_declarations": [to_gemini(t, json_schema=True) for t in (BOOK, NO_ARGS)]
    }
    assert as_json["function_declarations"][0]["parameters_json_schema"] == BOOK.parameters
    assert "parameters" not in as_json["function_declarations"][0]
    with pytest.raises(ValueError, match="gemini format only"):
        tools_to_format([BOOK], "openai", json_schema=True)


def test_gemini_nullable_and_dropped_keywords() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "note": {"type": ["string", "null"]},
            "unit": {"type": ["string", "null"], "enum": ["c", "f", None]},
            "mode": {"const": "fast"},
            "either": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        },
    }
    out = json_schema_to_gemini(schema)
    assert out == {
        "type": "OBJECT",
        "properties": {
            "note": {"type": "STRING", "nullable": True},
            "unit": {"type": "STRING", "enum": ["c", "f"], "nullable": True},
            "mode": {"enum": ["fast"]},
            "either": {"anyOf": [{"type": "INTEGER"}], "nullable": True},
        },
    }
    back = from_gemini({"name": "n", "parameters": out})
    assert back.properties()["note"] == {"type": ["string", "null"]}


def test_gemini_enums_on_non_strings_move_to_the_description() -> None:
    schema = {
        "type": "object",
        "properties": {
            "level": {"type": "integer", "enum": [1, 2, 3], "description": "Level."},
            "flag": {"type": "boolean", "enum": [True]},
        },
    }
    props = json_schema_to_gemini(schema)["properties"]
    assert props == {
        "level": {"type": "INTEGER", "description": "Level. (one of: 1, 2, 3)"},
        "flag": {"type": "BOOLEAN", "description": "one of: true"},
    }


def test_reads_legacy_and_new_gemini_forms() -> None:
    legacy = {
        "functionDeclarations": [
            {
                "name": "find",
                "description": "Find.",
                "parameters": {
                    "type": "OBJECT",
                    "properties": {"q": {"type": "STRING"}, "n": {"type": "INTEGER"}},
                    "required": ["q"],
                },
            },
            {
                "name": "find2",
                "parametersJsonSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
            },
        ]
    }
    tools = tools_from_data([legacy])
    assert [t.name for t in tools] == ["find", "find2"]
    assert tools[0].parameters == {
        "type": "object",
        "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
        "required": ["q"],
    }
    assert tools[1].properties() == {"q": {"type": "string"}}


def test_wrappers_are_detected() -> None:
    mcp_result = {
        "tools": [
            {
                "name": "delete_file",
                "description": "Delete a file.",
                "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}},
                "annotations": {"destructiveHint": True},
            }
        ],
        "nextCursor": None,
    }
    assert [t.name for t in tools_from_data(mcp_result)] == ["delete_file"]
    request = {"model": "m", "messages": [], "tools": [to_openai(BOOK)]}
    assert tools_from_data(request) == [BOOK]
    anthropic_custom = {"type": "custom", **to_anthropic(NO_ARGS)}
    assert tools_from_data(anthropic_custom) == [NO_ARGS]
    bare = {"name": "get_time", "description": "Current time."}
    assert tools_from_data(bare) == [NO_ARGS]
    legacy = {"model": "m", "functions": [{"name": "get_time", "description": "Current time."}]}
    assert tools_from_data(legacy) == [NO_ARGS]
    bedrock = {
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": "book_flight",
                        "description": BOOK.description,
                        "inputSchema": {"json": BOOK.parameters},
                    }
                }
            ]
        }
    }
    assert tools_from_data(bedrock) == [BOOK]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"title": "x"}, "tools: not a recognised tool definition (keys: title)"),
        ([{"type": "web_search"}], "tools[0]: tool type 'web_search' is not a function tool"),
        ("get_time", "tools: expected a tool definition object, got str"),
        ({"name": ""}, "tools: a tool needs a non-empty string 'name'"),
        ({"name": "f", "parameters": [1]}, "tools.parameters: parameters must be a JSON Schema"),
        ({"function_declarations": {}}, "tools.function_declarations: expected a list"),
    ],
)
def test_detection_errors_name_the_place(data: Any, message: str) -> None:
    with pytest.raises(UserError) as err:
        tools_from_data(data)
    assert str(err.value).startswith(message)


def test_unknown_format_is_a_user_error() -> None:
    with pytest.raises(UserError, match="unknown tool format 'cohere'"):
        tools_to_format([BOOK], "cohere")


BFCL_PARAMS = {
    "type": "dict",
    "properties": {
        "ratio": {"type": "float", "description": "A ratio.", "default": 0.5},
        "point": {"type": "tuple", "items": {"type": "integer"}},
        "model": {"type": "any", "description": "Anything.", "default": None},
        "opts": {
            "type": "dict",
            "properties": {"mode": {"type": "string", "enum": ["a", "b"]}},
            "required": ["mode"],
        },
        "rows": {
            "type": "array",
            "items": {"type": "dict", "properties": {"v": {"type": "float"}}},
        },
        "flag": {"type": "boolean", "optional": True},
    },
    "required": ["ratio", "point"],
}


def test_bfcl_types_map_faithfully() -> None:
    assert bfcl_schema_to_json_schema(BFCL_PARAMS) == {
        "type": "object",
        "properties": {
            "ratio": {"type": "number", "description": "A ratio.", "default": 0.5},
            "point": {"type": "array", "items": {"type": "integer"}},
            "model": {"description": "Anything.", "default": None},
            "opts": {
                "type": "object",
                "properties": {"mode": {"type": "string", "enum": ["a", "b"]}},
                "required": ["mode"],
            },
            "rows": {
                "type": "array",
                "items": {"type": "object", "properties": {"v": {"type": "number"}}},
            },
            "flag": {"type": "boolean", "optional": True},
        },
        "required": ["ratio", "point"],
    }
    # the input is not modified
    assert BFCL_PARAMS["type"] == "dict"


def test_bfcl_function_is_detected() -> None:
    (tool,) = tools_from_data({"name": "calc", "description": "c", "parameters": BFCL_PARAMS})
    assert tool.parameters["type"] == "object"
    assert tool.properties()["ratio"]["type"] == "number"


def test_read_tools_file_json_and_yaml(tmp_path: Path) -> None:
    j = tmp_path / "tools.json"
    j.write_text(json.dumps([to_anthropic(BOOK)]), encoding="utf-8")
    assert read_tools_file(j) == [BOOK]
    y = tmp_path / "tools.yaml"
    y.write_text("- name: get_time\n  description: Current time.\n", encoding="utf-8")
    assert read_tools_file(y) == [NO_ARGS]
    bad = tmp_path / "bad.json"
    bad.write_text('[\n{"name": }\n]', encoding="utf-8")
    with pytest.raises(UserError, match=r"bad\.json:2: invalid JSON"):
        read_tools_file(bad)
    with pytest.raises(UserError, match="cannot read"):
        read_tools_file(tmp_path / "missing.json")


def test_upper_case_types_in_a_bare_function_are_read_as_gemini() -> None:
    (tool,) = tools_from_data(
        {"name": "f", "parameters": {"type": "OBJECT", "properties": {"x": {"type": "NUMBER"}}}}
    )
    assert tool.parameters == {"type": "object", "properties": {"x": {"type": "number"}}}
