"""Suites using the guardrail checks are written back as they read (``not`` under its own name,
call types, the ``mcp`` mark of a tool, banned argument values)."""

from __future__ import annotations

from pathlib import Path

from agentgauge.io import load_suite, write_suite
from agentgauge.schema import Suite

SUITE = {
    "name": "s",
    "tools": [
        {"name": "search", "mcp": True, "parameters": {"type": "object", "properties": {}}},
        {
            "name": "send_email",
            "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
        },
    ],
    "defaults": {"limits": {"max_calls": 3}, "pass_threshold": 0.9, "text_calls": "lenient"},
    "cases": [
        {
            "id": "c",
            "input": "q",
            "pass_threshold": 0.5,
            "expect": {
                "tool_calls": [
                    {"name": "sea*", "type": "mcp", "arguments": {"q": {"not": {"value": "x"}}}}
                ],
                "forbidden_arguments": {"send_email": {"to": {"not": {"regex": ".*@acme"}}}},
                "forbidden_sequences": [
                    {"after": "search", "then": "send_email", "unless": ["ok"]}
                ],
                "allowed_tools": ["sea*", "send_email"],
                "forbidden_types": ["function"],
                "min_model_steps": 1,
                "not": {"response_contains": ["sorry"]},
            },
        }
    ],
}


def test_a_suite_with_every_check_round_trips(tmp_path: Path) -> None:
    suite = Suite.model_validate(SUITE)
    write_suite(suite, tmp_path / "out")
    text = (tmp_path / "out" / "suite.yaml").read_text(encoding="utf-8")
    cases = (tmp_path / "out").glob("*.jsonl")
    written = text + "".join(p.read_text(encoding="utf-8") for p in cases)
    assert '"not"' in written or "not:" in written
    assert "not_" not in written
    back = load_suite(tmp_path / "out")
    assert back.cases == suite.cases
    assert back.defaults == suite.defaults
    assert [t.mcp for t in back.tools] == [True, False]


def test_the_mcp_mark_is_read_in_every_tool_format(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        '[{"type": "function", "function": {"name": "a", "parameters": {}}, "mcp": true},'
        ' {"name": "b", "input_schema": {"type": "object"}, "mcp": true},'
        ' {"name": "c", "parameters": {"type": "object"}, "mcp": true},'
        ' {"name": "d", "parameters": {"type": "object"}}]',
        encoding="utf-8",
    )
    (tmp_path / "suite.yaml").write_text(
        "name: s\ntool_files: [tools.json]\ntools:\n"
        "  - {type: function, function: {name: e, parameters: {}}, mcp: true}\n"
        "cases: [{id: c, input: q, expect: {behavior: any_tool}}]\n",
        encoding="utf-8",
    )
    suite = load_suite(tmp_path / "suite.yaml")
    assert {t.name: t.call_type() for t in suite.tools} == {
        "e": "mcp",
        "a": "mcp",
        "b": "mcp",
        "c": "mcp",
        "d": "function",
    }
