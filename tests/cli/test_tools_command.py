"""``agentgauge tools convert``."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from agentgauge.cli import cli

OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]


def test_convert_to_anthropic_on_stdout(tmp_path: Path) -> None:
    src = tmp_path / "tools.json"
    src.write_text(json.dumps(OPENAI_TOOLS), encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "convert", str(src), "--to", "anthropic"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == [
        {
            "name": "get_weather",
            "description": "Weather for a city.",
            "input_schema": OPENAI_TOOLS[0]["function"]["parameters"],  # type: ignore[index]
        }
    ]


def test_convert_to_gemini_yaml_file(tmp_path: Path) -> None:
    src = tmp_path / "tools.json"
    src.write_text(json.dumps(OPENAI_TOOLS), encoding="utf-8")
    out = tmp_path / "gemini.yaml"
    result = CliRunner().invoke(
        cli, ["tools", "convert", str(src), "--to", "gemini", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    decl = data["function_declarations"][0]
    assert decl["parameters"]["properties"]["city"] == {"type": "STRING"}
    assert "wrote 1 tool(s) as gemini" in result.stderr


def test_unrecognised_file_exits_2(tmp_path: Path) -> None:
    src = tmp_path / "tools.json"
    src.write_text(json.dumps([{"tool": "x"}]), encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "convert", str(src), "--to", "mcp"])
    assert result.exit_code == 2
    assert "tools.json[0]: not a recognised tool definition" in result.stderr


def test_list_shows_signatures(tmp_path: Path) -> None:
    src = tmp_path / "tools.json"
    tools = [
        *OPENAI_TOOLS,
        {"name": "ping", "description": "", "input_schema": {"type": "object"}},
    ]
    src.write_text(json.dumps(tools), encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "list", str(src)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "get_weather(city: string)",
        "    Weather for a city.",
        "ping()",
    ]
    assert result.stderr.strip() == "2 tool(s)"
