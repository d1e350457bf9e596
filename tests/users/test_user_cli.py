"""Simulated users through the CLI: ``--user-model`` recorded and kept on resume, a suite's
user model refused with ``file:line: field:`` without the opt-in."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner
from user_helpers import CLARIFY_CASE, ORDER_TOOL

from agentgauge.cli import cli
from agentgauge.io import iter_results
from agentgauge.rundir import read_record

AGENT = """
import re

def agent(messages, tools):
    last = messages[-1]
    if last.role == "tool":
        return "Your order has shipped."
    said = [m.content or "" for m in messages if m.role == "user"]
    found = re.search(r"\\bA\\d+\\b", said[-1])
    if found is None:
        return "What is your order number?"
    from agentgauge.schema import ToolCall
    return ToolCall(name="get_order", arguments={"order_id": found.group(0)})
"""


def _suite(tmp_path: Path, user: dict[str, object]) -> Path:
    case = {**CLARIFY_CASE, "user": user}
    doc = {"name": "cli-users", "tools": [ORDER_TOOL], "cases": [case]}
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    (tmp_path / "agent.py").write_text(AGENT)
    return path


def _run(suite: Path, *args: str) -> tuple[int, str]:
    agent = f"python:{suite.parent / 'agent.py'}:agent"
    base = ["run", str(suite), "--agent", agent, "--allow-suite-code", "--no-progress"]
    res = CliRunner().invoke(cli, [*base, *args])
    return res.exit_code, res.output


def test_user_model_is_recorded_and_the_run_plays_it(tmp_path: Path) -> None:
    script = tmp_path / "user.jsonl"
    script.write_text('{"text": "It is A7."}\n{"text": "Thanks ###STOP###"}\n')
    suite = _suite(tmp_path, {"facts": {"order_id": {"value": "A7", "asked_by": ["order number"]}}})
    out = tmp_path / "run"
    code, output = _run(suite, "--user-model", f"mock:{script}", "--no-cache", "-o", str(out))
    assert code == 0, output
    [r] = list(iter_results(out))
    assert r.status == "passed", r.explanation
    assert r.user is not None
    assert r.user.kind == "model"
    record = read_record(out)
    assert record.options["user_model"] == f"mock:{script}"
    # the recorded user model cannot be swapped on resume
    code, output = _run(suite, "--resume", str(out), "--user-model", "mock:")
    assert code == 2
    assert "--user-model cannot be changed on resume" in output


def test_a_suite_user_model_in_python_is_refused_where_it_is_written(tmp_path: Path) -> None:
    user = {"model": "python:user.py:play", "facts": {"order_id": "A7"}}
    suite = _suite(tmp_path, user)
    res = CliRunner().invoke(
        cli, ["run", str(suite), "--agent", "mock:echo", "--no-progress", "-o", str(tmp_path / "r")]
    )
    assert res.exit_code == 2
    assert f"{suite}:" in res.output
    assert "cases[0].user.model: user model 'python:user.py:play'" in res.output
    assert "Traceback" not in res.output
