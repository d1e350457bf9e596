"""A ``python:`` agent that writes down the tools it is offered in each turn (one JSON line
``[turn, [names]]`` to the file ``AGENTGAUGE_TOOLS_LOG`` names) and replies in text."""

from __future__ import annotations

import json
import os

from agentgauge.schema import Message, ToolSpec


def agent(messages: list[Message], tools: list[ToolSpec]) -> str:
    turn = sum(m.role == "user" for m in messages) - 1
    with open(os.environ["AGENTGAUGE_TOOLS_LOG"], "a", encoding="utf-8") as fh:
        fh.write(json.dumps([turn, sorted(t.name for t in tools)]) + "\n")
    return "I will not call anything."
