"""``agentgauge tools list/convert --mcp`` against a real MCP server, and ``run --tool-mode``
with a suite whose tools come from one (refused without ``--allow-suite-code``)."""

from __future__ import annotations

import json
import shlex
import shutil
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

pytest.importorskip("mcp")

from agentgauge.cli import cli

SERVER = Path(__file__).resolve().parents[1] / "exchange" / "mcp" / "quick_server.py"
COMMAND = shlex.join([sys.executable, str(SERVER)])


def test_list_shows_the_servers_tools() -> None:
    result = CliRunner().invoke(cli, ["tools", "list", "--mcp", COMMAND])
    assert result.exit_code == 0, result.output
    assert "get_weather(city: string, unit: string?)" in result.stdout
    assert "search_flights(origin: string, destination: string, date: string)" in result.stdout
    assert "3 tool(s) over stdio" in result.stderr


def test_convert_writes_a_suite_tool_file(tmp_path: Path) -> None:
    out = tmp_path / "tools.yaml"
    result = CliRunner().invoke(
        cli, ["tools", "convert", "--mcp", COMMAND, "--to", "native", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    tools = yaml.safe_load(out.read_text())
    assert [t["name"] for t in tools] == ["get_weather", "search_flights", "convert_currency"]
    assert tools[0]["parameters"]["required"] == ["city"]
    # the written file is a valid tool file of a suite
    (tmp_path / "suite.yaml").write_text(
        "name: s\ntool_files: [tools.yaml]\ncases: [{id: a, input: hi}]\n"
    )
    check = CliRunner().invoke(cli, ["validate", str(tmp_path / "suite.yaml")])
    assert "3 tools" in check.output, check.output


def test_file_or_mcp_not_both(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["tools", "list"])
    assert result.exit_code == 2
    assert "give a tool FILE or --mcp SERVER" in result.output


def test_server_that_cannot_start_is_one_line() -> None:
    result = CliRunner().invoke(cli, ["tools", "list", "--mcp", "no-such-mcp-server-cmd --x"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("--mcp: could not start the MCP server")


SUITE = """
name: mcp-cli
tools_from:
  mcp: {{command: [{python}, quick_server.py]}}
cases:
  - id: weather
    input: What's the weather in Paris?
    expect:
      tool_calls: [{{name: get_weather, arguments: {{city: Paris}}}}]
"""

AGENT = """
from agentgauge.schema import ToolCall

def agent(messages, tools):
    if messages[-1].role == "tool":
        return "It is: " + messages[-1].content
    return ToolCall(name="get_weather", arguments={"city": "Paris"})
"""


def _suite(tmp_path: Path) -> Path:
    shutil.copy(SERVER, tmp_path / "quick_server.py")
    (tmp_path / "suite.yaml").write_text(SUITE.format(python=json.dumps(sys.executable)))
    (tmp_path / "agent.py").write_text(AGENT)
    return tmp_path


def test_run_refuses_the_command_without_opt_in(tmp_path: Path) -> None:
    folder = _suite(tmp_path)
    result = CliRunner().invoke(
        cli,
        [
            "run",
            str(folder),
            "--agent",
            f"python:{folder}/agent.py:agent",
            "--no-cache",
            "-o",
            str(tmp_path / "run"),
        ],
    )
    assert result.exit_code == 2
    assert "tools_from.mcp.command" in result.output
    assert "--allow-suite-code" in result.output


def test_run_tool_mode_real(tmp_path: Path) -> None:
    folder = _suite(tmp_path)
    out = tmp_path / "run"
    result = CliRunner().invoke(
        cli,
        [
            "run",
            str(folder),
            "--agent",
            f"python:{folder}/agent.py:agent",
            "--no-cache",
            "--allow-suite-code",
            "--tool-mode",
            "real",
            "-o",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    record = json.loads((out / "run.json").read_text())
    assert record["options"]["tool_mode"] == "real"
    assert record["options"]["tool_source"]["ok"] is True
    (line,) = (out / "results.jsonl").read_text().splitlines()
    assert "served live for Paris" in json.loads(line)["text"]


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp", None)  # as if not installed
    result = CliRunner().invoke(cli, ["tools", "list", "--mcp", COMMAND])
    assert result.exit_code == 2
    assert "pip install 'agentgauge[mcp]'" in result.output
