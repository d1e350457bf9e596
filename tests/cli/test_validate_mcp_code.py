"""``validate`` lists a suite's MCP server command among the code the suite runs."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentgauge.cli import cli

SUITE = """name: served
description: tools from a server
tools_from:
  mcp:
    command: [python, server.py, --port, "0"]
cases:
  - id: a
    input: hi
    expect: {response_contains: [hi]}
"""
LISTED = "suite.yaml:5: tools_from.mcp.command: 'python server.py --port 0' (mcp server)"


def invoke(*args: str) -> tuple[int, str]:
    env = {"AGENTGAUGE_CONFIG": "/nonexistent/agentgauge.toml", "AGENTGAUGE_ALLOW_SUITE_CODE": ""}
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.output


def suite(tmp_path: Path, text: str = SUITE) -> Path:
    path = tmp_path / "suite.yaml"
    path.write_text(text)
    return path


def test_the_command_is_listed_and_refused_without_the_opt_in(tmp_path: Path) -> None:
    path = suite(tmp_path)
    code, output = invoke("validate", str(path))
    # refused suite code is an error of validate, as a python: agent's is
    assert code == 2, output
    assert "  code this suite runs (1):" in output
    assert f"    {LISTED} needs --allow-suite-code" in output.replace(str(tmp_path) + "/", "")
    assert "[suite-code]" in output
    code, text = invoke("validate", str(path), "--format", "json")
    assert code == 2
    [entry] = json.loads(text)["suites"][0]["code"]
    assert entry["kind"] == "mcp server"
    assert entry["spec"] == "python server.py --port 0"
    assert entry["field"] == "tools_from.mcp.command"
    assert entry["where"].endswith("suite.yaml:5")
    assert entry["allowed"] is False
    assert "--allow-suite-code" in entry["problem"]


def test_with_the_opt_in_it_may_run_and_validate_passes(tmp_path: Path) -> None:
    path = suite(tmp_path)
    code, output = invoke("validate", str(path), "--allow-suite-code")
    assert code == 0, output
    assert f"    {LISTED} allowed" in output.replace(str(tmp_path) + "/", "")
    assert "[suite-code]" not in output
    code, text = invoke("validate", str(path), "--allow-suite-code", "--format", "json")
    assert code == 0
    [entry] = json.loads(text)["suites"][0]["code"]
    assert (entry["kind"], entry["allowed"], entry["problem"]) == ("mcp server", True, None)


def test_a_url_runs_nothing_and_is_not_listed(tmp_path: Path) -> None:
    path = suite(tmp_path, SUITE.replace(
        "    command: [python, server.py, --port, \"0\"]", "    url: http://127.0.0.1:9/mcp"
    ))  # fmt: skip
    code, output = invoke("validate", str(path))
    assert code == 0, output
    assert "code this suite runs" not in output
    code, text = invoke("validate", str(path), "--format", "json")
    assert json.loads(text)["suites"][0]["code"] == []


def test_run_still_refuses_the_command_with_its_own_message(tmp_path: Path) -> None:
    path = suite(tmp_path)
    code, output = invoke("run", str(path), "--agent", "mock:", "-o", str(tmp_path / "r"))
    assert code == 2
    [line] = [x for x in output.splitlines() if x.strip()]
    # run.refuse_located does not take it over: the message is check_mcp_command's, unlocated
    assert line.startswith("tools_from.mcp.command 'python server.py --port 0': the suite starts")


def test_runs_located_refusal_of_other_code_does_not_take_the_command_in(tmp_path: Path) -> None:
    (tmp_path / "agent.py").write_text("def agent(messages):\n    return 'hi'\n")
    path = suite(
        tmp_path, SUITE.replace("cases:", "defaults: {agent: 'python:agent.py:agent'}\ncases:")
    )
    code, output = invoke("validate", str(path))
    assert code == 2
    assert output.count("needs --allow-suite-code") == 2  # validate lists both
    code, output = invoke("run", str(path), "-o", str(tmp_path / "r"))
    assert code == 2
    lines = [x for x in output.splitlines() if x.strip()]
    assert len(lines) == 1, output
    assert lines[0].endswith(
        "suite.yaml:6: defaults.agent: agent 'python:agent.py:agent': runs agent.py:agent from "
        "the suite's folder; suite code runs only if you allow it: pass --allow-suite-code (or "
        "set AGENTGAUGE_ALLOW_SUITE_CODE=1)"
    )
