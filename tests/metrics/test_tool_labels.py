"""Confusion-matrix labels of tool selection."""

from __future__ import annotations

from agentgauge.metrics._verdicts import tool_selection_verdict
from agentgauge.schema import CaseResult, ToolCall


def test_repeated_expected_tool_lands_on_the_diagonal() -> None:
    r = CaseResult(
        case_id="p",
        status="passed",
        expected_tools=["calc", "calc"],
        calls=[ToolCall(name="calc"), ToolCall(name="calc")],
    )
    assert tool_selection_verdict(r) == (True, "calc", "calc")
