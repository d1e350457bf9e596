"""Goal completion: in the summary with its interval, per slice, in the matrix comparison, and
gated (``gates.min_goal_completion``) — from real runs of a world suite."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from world_helpers import CANCEL_A1, write_shop_suite

from agentgauge.cli import cli
from agentgauge.metrics import summarize

AGENTS = textwrap.dedent(
    """
    from agentgauge.schema import ToolCall

    def _asked(messages):
        text = next(m.content for m in messages if m.role == "user")
        words = [w.rstrip(".") for w in text.split()]
        return next((w for w in words if w.startswith("A") and w[1:].isdigit()), None)

    def good(messages, tools):
        key = _asked(messages)
        if key is None or messages[-1].role == "tool":
            return "Done."
        return ToolCall(name="cancel_order", arguments={"order_id": key})

    def sloppy(messages, tools):
        # cancels the order asked for, then bob's order A3 too (the expected call is made)
        key = _asked(messages)
        done = sum(1 for m in messages if m.role == "tool")
        if key is None or done == 2 or (done == 1 and key == "A3"):
            return "Done."
        return ToolCall(name="cancel_order", arguments={"order_id": key if done == 0 else "A3"})
    """
)


def cases() -> list[dict[str, Any]]:
    a1 = {**CANCEL_A1, "category": "cancel"}
    a3 = {**CANCEL_A1, "id": "cancel-a3", "category": "cancel", "input": "Cancel A3.",
          "expect": {"tool_calls": [{"name": "cancel_order", "arguments": {"order_id": "A3"}}],
                     "order": "superset",
                     "state": {"checks": [{"path": "orders.A3.status", "equals": "cancelled"}],
                               "unchanged": ["orders.A1", "orders.A2"]}}}  # fmt: skip
    chat = {"id": "hello", "category": "chat", "input": "Hello", "expect": {"behavior": "answer"}}
    return [a1, a3, chat]


def invoke(*args: str) -> tuple[int, str]:
    out = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return out.exit_code, out.output


def test_goal_completion_in_the_summary_per_slice_and_gated(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(AGENTS)
    suite = write_shop_suite(tmp_path, cases(), gates={"min_goal_completion": 0.9})
    run = tmp_path / "run"
    code, output = invoke("run", str(suite), "--agent", f"python:{tmp_path / 'agents.py'}:sloppy",
                          "-o", str(run), "--no-history")  # fmt: skip
    assert code in (0, 1), output
    summary = summarize(run)
    goal = summary.overall.goal_completion
    # cancel-a1 leaves A3 cancelled (wrong); cancel-a3's extra call is on A3 again (right);
    # "hello" checks no state and is not counted
    assert (goal.passed, goal.n) == (1, 2)
    assert goal.low is not None
    assert goal.high is not None
    assert goal.low < 0.5 < goal.high
    assert summary.by_category["cancel"].goal_completion.n == 2
    assert summary.by_category["chat"].goal_completion.n == 0
    assert summary.rate("goal_completion") == goal
    code, output = invoke("gate", str(run))
    assert code == 1, output
    assert "goal completion" in output
    assert "50.0%" in output


def test_the_matrix_comparison_shows_each_agents_goal_completion(tmp_path: Path) -> None:
    (tmp_path / "agents.py").write_text(AGENTS)
    suite = write_shop_suite(tmp_path, cases())
    out = tmp_path / "out"
    agents = tmp_path / "agents.py"
    code, output = invoke("run", str(suite), "-o", str(out), "--no-history",
                          "--agent", f"good=python:{agents}:good",
                          "--agent", f"sloppy=python:{agents}:sloppy")  # fmt: skip
    assert code in (0, 1), output
    data = json.loads((out / "comparison.json").read_text())
    rates = {a["label"]: a["quality"]["goal_completion"] for a in data["agents"]}
    assert (rates["good"]["passed"], rates["good"]["n"]) == (2, 2)
    assert (rates["sloppy"]["passed"], rates["sloppy"]["n"]) == (1, 2)
    assert rates["good"]["low"] is not None
    md = (out / "comparison.md").read_text()
    header = next(line for line in md.splitlines() if "goal completion" in line)
    assert header.index("goal completion") < header.index("gates")
    row = next(line for line in md.splitlines() if line.startswith("| 2 | sloppy"))
    assert "50.0%" in row
