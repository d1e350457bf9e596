"""Tool names a tools file may hold: those some provider accepts. A name holding a line break,
a space or ``../`` is refused where the file is read (``agentgauge tools``, a suite's
``tool_files``), one ``file:line: tools[i].name: why`` line each and exit 2; every name of the
repository's examples and of the shared datasets (BFCL's dotted names) is still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.formats import read_tools_file, tool_name_problem, tools_to_format
from agentgauge.importers import load_suite_any
from agentgauge.suites import check_suite

GOOD = ["get_weather", "send-email", "math.factorial", "user-profile/update", "ns:tool", "A" * 128]
BAD = ["get\nweather", "../etc/passwd", "a/../b", "a//b", "/abs", "..", "two words",
       "get\x1b[31m", "émoji", "A" * 129, "semi;colon"]  # fmt: skip


@pytest.mark.parametrize("name", GOOD)
def test_names_some_provider_accepts_pass(name: str) -> None:
    assert tool_name_problem(name) is None


@pytest.mark.parametrize("name", BAD)
def test_names_no_provider_accepts_are_refused(name: str) -> None:
    why = tool_name_problem(name)
    assert why is not None
    assert "\n" not in why
    assert "\x1b" not in why


def _openai(name: str) -> dict[str, object]:
    return {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}


def test_the_tools_file_reader_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    tools = [_openai("ok_tool"), _openai("bad\nname"), _openai("../up")]
    path.write_text(json.dumps(tools, indent=2), encoding="utf-8")
    with pytest.raises(UserError) as err:
        read_tools_file(path)
    lines = err.value.problems
    text = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"{path}:")
    assert ": tools[1].name: 'bad\\nname' holds '\\n'" in lines[0]
    at = int(lines[0].split(":")[1])
    assert '"bad\\nname"' in text[at - 1]  # the line of that name
    assert ": tools[2].name: '../up'" in lines[1]
    # YAML, MCP's shape
    yml = tmp_path / "tools.yaml"
    yml.write_text("tools:\n  - name: fine\n    inputSchema: {}\n  - name: 'x y'\n"
                   "    inputSchema: {}\n", encoding="utf-8")  # fmt: skip
    with pytest.raises(UserError, match=r"tools\.yaml:4: tools\[1\]\.name: 'x y' holds a space"):
        read_tools_file(yml)


def test_the_cli_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([_openai("a\nb")]), encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "list", str(path)])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0, result.output
    assert "tools[0].name" in result.output
    path.write_text(json.dumps([_openai("math.factorial")]), encoding="utf-8")
    result = CliRunner().invoke(cli, ["tools", "list", str(path)])
    assert result.exit_code == 0, result.output
    assert "math.factorial()" in result.output


def test_a_suites_tool_file_is_checked_too(tmp_path: Path) -> None:
    (tmp_path / "tools.json").write_text(json.dumps([_openai("ok"), _openai("../x")]), "utf-8")
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: s\ntool_files: [tools.json]\ncases:\n  - {id: a, input: hi}\n",
                     encoding="utf-8")  # fmt: skip
    check = check_suite(suite)
    assert [p for p in check.problems if "tools[1].name: '../x'" in p], check.problems


def test_every_example_tool_file_and_suite_still_loads() -> None:
    root = Path(__file__).resolve().parents[2] / "examples"
    suites = sorted(root.glob("*/suite.yaml"))
    assert suites
    for suite in suites:
        assert check_suite(suite).problems == [], suite
    files = [p for p in root.rglob("*tools*.json") if "runs" not in p.parts]
    for path in files:
        read_tools_file(path)


def test_the_shared_datasets_names_pass(shared_data: Path) -> None:
    """BFCL's function docs (dotted, namespaced names, up to 68 characters) and ToolTalk's."""
    names: set[str] = set()
    for path in sorted((shared_data / "bfcl-v4").glob("BFCL_v4_*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                names.update(f["name"] for f in json.loads(line).get("function", []))
    for path in sorted((shared_data / "bfcl-v4" / "multi_turn_func_doc").glob("*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                names.add(json.loads(line)["name"])
    assert len(names) > 1000
    assert "math.factorial" in names
    assert [n for n in names if tool_name_problem(n)] == []


def test_what_the_bfcl_importer_writes_reads_back(shared_data: Path, tmp_path: Path) -> None:
    """The importer's tools (dotted names kept) written as a tools file in each format and read
    back by the tools-file reader."""
    suite = load_suite_any(shared_data / "bfcl-v4" / "BFCL_v4_multiple.json")
    assert any("." in t.name for t in suite.tools)
    for fmt in ("openai", "anthropic", "mcp"):
        path = tmp_path / f"{fmt}.json"
        path.write_text(json.dumps(tools_to_format(list(suite.tools), fmt)), encoding="utf-8")
        assert [t.name for t in read_tools_file(path)] == [t.name for t in suite.tools]


def test_a_suites_own_tool_with_such_a_name_is_a_lint_warning(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        'name: s\ntools:\n  - name: math.factorial\n  - name: "get\\nx"\n'
        "cases:\n  - {id: a, input: hi}\n",
        encoding="utf-8",
    )
    check = check_suite(suite)
    assert check.problems == []
    named = [f for f in check.findings if f.code == "tool-name"]
    assert [(f.severity, f.line, f.field) for f in named] == [("warning", 4, "tools[1].name")]
    assert "holds '\\n'" in named[0].message
