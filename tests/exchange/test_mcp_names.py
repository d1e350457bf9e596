"""Tool names a server lists (``tools/list``) follow the rule a tools file's names follow
(docs/tool-formats.md#tool-names): a name no provider accepts is refused in one line naming the
server, the listing and the field, before any of it reaches an agent or a file; a suite that
names the tools it takes (``tools_from.mcp.tools``) is only refused for those."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("mcp")

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.exchange import list_mcp_tools
from agentgauge.schema import McpSource

#: answers initialize and tools/list with the tools in names.json (one per name)
SERVER = """
import json, sys
NAMES = json.load(open("names.json"))
TOOLS = [{"name": n, "description": "d", "inputSchema": {"type": "object", "properties": {}}}
         for n in NAMES]
for line in sys.stdin:
    msg = json.loads(line)
    method, mid = msg.get("method"), msg.get("id")
    if mid is None:
        continue
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"],
                  "capabilities": {"tools": {}}, "serverInfo": {"name": "names", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    else:
        result = {}
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": result}) + "\\n")
    sys.stdout.flush()
"""

EVIL = "get\nFORGED\x1b[31m\x1b]8;;http://x/\x07\u202e"


def _source(tmp_path: Path, names: list[str], **extra: object) -> McpSource:
    (tmp_path / "server.py").write_text(SERVER, encoding="utf-8")
    (tmp_path / "names.json").write_text(json.dumps(names), encoding="utf-8")
    return McpSource(command=[sys.executable, "server.py"], timeout_s=30, **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", [EVIL, "get weather", "a/../b", "x" * 129])
def test_a_listed_name_no_provider_accepts_is_refused(tmp_path: Path, bad: str) -> None:
    with pytest.raises(UserError) as info:
        list_mcp_tools(_source(tmp_path, ["get_weather", bad]), tmp_path)
    message = str(info.value)
    assert message.startswith(
        f"--mcp: the MCP server '{sys.executable} server.py': tools/list: tools[1].name: "
    ), message
    assert message.endswith(" (name the tools to use in tools_from.mcp.tools)")
    assert "\n" not in message
    assert "\x1b" not in message
    assert "\u202e" not in message


def test_names_a_provider_accepts_are_listed(tmp_path: Path) -> None:
    names = ["get_weather", "math.factorial", "user-profile/update", "ns:tool"]
    tools, _ = list_mcp_tools(_source(tmp_path, names), tmp_path)
    assert [t.name for t in tools] == names


def test_only_the_tools_a_suite_takes_are_checked(tmp_path: Path) -> None:
    tools, _ = list_mcp_tools(
        _source(tmp_path, [EVIL, "get_weather"], tools=["get_weather"]), tmp_path
    )
    assert [t.name for t in tools] == ["get_weather"]


def test_tools_list_mcp_exits_2_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _source(tmp_path, [EVIL])
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["tools", "list", "--mcp", f"{sys.executable} server.py"])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "tools/list: tools[0].name: " in result.output
    assert "\x1b" not in result.output
    assert not result.output.startswith("FORGED")


def test_a_suite_run_is_refused_before_any_case(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _source(tmp_path, ["get_weather", "get weather"])
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: mcp-names\n"
        f"tools_from: {{mcp: {{command: [{json.dumps(sys.executable)}, server.py]}}}}\n"
        "cases:\n  - {id: a, input: hi}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(tmp_path / "h.sqlite"))
    args = ["run", str(suite), "--agent", "mock:echo", "--allow-suite-code", "-o",
            str(tmp_path / "out"), "--no-progress", "--no-cache"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "tools/list: tools[1].name: 'get weather' holds a space;" in result.output
    assert not (tmp_path / "out" / "results.jsonl").exists()
