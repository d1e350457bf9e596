"""The user simulator in the commands that set runs side by side, through the real CLI: a
matrix whose members' model users are seeded differently says so in its comparison (and one
whose users agree does not); ``agentgauge gate --baseline`` fails against a baseline played by
another user simulator; a gate on the user-error rate fails a run whose users broke too often."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from user_helpers import CLARIFY_CASE, ORDER_TOOL, ORDER_USER

from agentgauge.cli import cli

#: a stateless model user: the order number when asked, else the stop phrase
USER_MODEL = """
from agentgauge.providers import ModelResponse
from agentgauge.schema import Message

async def play(request):
    agent = request.messages[-1].content or ""
    text = "It is A7." if "order number" in agent else "Thanks ###STOP###"
    return ModelResponse(message=Message(role="assistant", content=text))
"""

#: the agent: asks, looks the order up with the number it was given, reports
AGENT = """
import re
from agentgauge.providers import ModelResponse
from agentgauge.schema import Message, ToolCall

async def agent(request):
    last = request.messages[-1]
    if last.role == "tool":
        return ModelResponse(message=Message(role="assistant", content="It has shipped."))
    found = re.search(r"A\\d+", last.content or "")
    if found is None:
        return ModelResponse(message=Message(role="assistant", content="Your order number?"))
    call = ToolCall(name="get_order", arguments={"order_id": found.group(0)})
    return ModelResponse(message=Message(role="assistant", tool_calls=[call]))
"""

MODEL_USER = {k: v for k, v in ORDER_USER.items() if k != "rules"}


def _suite(tmp_path: Path, cases: list[dict[str, Any]], **extra: Any) -> Path:
    (tmp_path / "user.py").write_text(USER_MODEL)
    (tmp_path / "agent.py").write_text(AGENT)
    path = tmp_path / "suite.yaml"
    data = {"name": "users-baselines", "tools": [ORDER_TOOL], "cases": cases, **extra}
    path.write_text(json.dumps(data))  # JSON is YAML
    return path


def _cli(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in res.output, res.output
    return res.exit_code, res.output


def _run(suite: Path, out: Path, *extra: str, matrix: bool = False) -> None:
    agent = [] if matrix else ["--agent", f"python:{suite.parent / 'agent.py'}:agent"]
    code, output = _cli(
        "run", str(suite), "-o", str(out), "--allow-suite-code", "--no-progress", "--no-cache",
        "--no-history", "--user-model", f"python:{suite.parent / 'user.py'}:play", *agent, *extra,
    )  # fmt: skip
    assert code in (0, 1), output


def _matrix(seed: int | None) -> dict[str, Any]:
    second: dict[str, Any] = {"agent": "python:agent.py:agent", "label": "second"}
    if seed is not None:
        second["seed"] = seed
    return {"agents": [{"agent": "python:agent.py:agent", "label": "first"}, second]}


def test_a_matrix_whose_members_users_differ_says_so(tmp_path: Path) -> None:
    case = {**CLARIFY_CASE, "user": MODEL_USER}
    for name, seed in (("same", None), ("differ", 5)):
        folder = tmp_path / name
        folder.mkdir()
        suite = _suite(folder, [case], matrix=_matrix(seed))
        _run(suite, folder / "out", matrix=True)
        comparison = json.loads((folder / "out" / "comparison.json").read_text())
        warned = [w for w in comparison["warnings"] if w.startswith("USER SIMULATORS DIFFER")]
        md = (folder / "out" / "comparison.md").read_text()
        if seed is None:
            assert warned == []
            assert "USER SIMULATORS DIFFER" not in md
        else:
            [w] = warned
            assert "seed 0 (base) vs " in w
            assert "seed 5 (new)" in w
            assert "USER SIMULATORS DIFFER" in md


def test_gate_with_a_baseline_played_by_another_user_fails(tmp_path: Path) -> None:
    suite = _suite(tmp_path, [{**CLARIFY_CASE, "user": MODEL_USER}])
    _run(suite, tmp_path / "base")
    _run(suite, tmp_path / "same")
    _run(suite, tmp_path / "other", "--seed", "9")
    code, output = _cli("gate", str(tmp_path / "same"), "--baseline", str(tmp_path / "base"))
    assert code == 0, output
    assert "same user simulator" not in output
    code, output = _cli("gate", str(tmp_path / "other"), "--baseline", str(tmp_path / "base"))
    assert code == 1, output
    assert "FAIL same user simulator" in output
    assert "seed 0 (base) vs model users" in output


def test_a_gate_on_the_user_error_rate(tmp_path: Path) -> None:
    broken = {
        **CLARIFY_CASE,
        "id": "broken",
        "user": {**ORDER_USER, "facts": {"order_id": {"value": "A7", "asked_by": ["ref"]}}},
    }
    scripted = {**CLARIFY_CASE, "user": ORDER_USER}
    suite = _suite(tmp_path, [scripted, broken])
    out = tmp_path / "run"
    code, output = _cli(
        "run", str(suite), "-o", str(out), "--agent", f"python:{tmp_path / 'agent.py'}:agent",
        "--allow-suite-code", "--no-progress", "--no-cache", "--no-history",
    )  # fmt: skip
    assert code == 0, output  # no gate yet: the agent passed the one case it was graded on
    strict, lax = tmp_path / "strict.yaml", tmp_path / "lax.yaml"
    strict.write_text("max_user_error_rate: 0.25\n")
    lax.write_text("max_user_error_rate: 0.5\n")
    code, output = _cli("gate", str(out), "--gates", str(strict))
    assert code == 1, output
    assert "FAIL user error rate: 50.0%" in output
    code, output = _cli("gate", str(out), "--gates", str(lax))
    assert code == 0, output
