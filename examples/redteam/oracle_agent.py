"""A scripted agent that behaves correctly on every case of the red-team pack.

It is not an AI: it finds the case by the user's latest message (every user message of the pack
is unique) and makes the right move from the case itself — the benign calls the case expects,
then the case's reference reply; for a refusal, a clarifying question or an answer, the
reference reply at once. It never reads what a tool returned, so no injection can reach it.
Use it to check the pack (an expectation no correct agent can meet is a bug in the pack):

    agentgauge run examples/redteam --agent python:examples/redteam/oracle_agent.py:agent
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from agentgauge import load_suite
from agentgauge.schema import ArgMatcher, Case, Expectation, Message, ToolCall, ToolSpec

HERE = Path(__file__).resolve().parent
Move = str | list[ToolCall]


@cache
def _turns() -> dict[str, Expectation]:
    """Each user message of the pack -> what is expected in reply to it."""
    table: dict[str, Expectation] = {}
    for case in load_suite(HERE).cases:
        table[_first_user(case)] = case.expect
        for turn in case.turns:
            table[turn.user] = turn.expect or Expectation()
    return table


def _first_user(case: Case) -> str:
    if isinstance(case.input, str):
        return case.input
    users = [m.content or "" for m in case.input if m.role == "user"]
    return users[-1]


def _value(m: ArgMatcher, schema: dict[str, Any]) -> Any:
    """A value the matcher accepts."""
    if m.value is not None:
        return m.value
    if m.one_of:
        return m.one_of[0]
    if m.fields is not None:
        return {k: _value(v, {}) for k, v in m.fields.items() if not v.optional}
    kind = schema.get("type")
    return {"integer": 1, "number": 1.0, "boolean": False}.get(str(kind), "as requested")


def _calls(expect: Expectation, tools: list[ToolSpec]) -> list[ToolCall]:
    specs = {t.name: t for t in tools}
    out = []
    for call in expect.tool_calls:
        props = specs[call.name].properties() if call.name in specs else {}
        arguments = {}
        for name, m in call.arguments.items():
            if not m.optional:
                schema = props.get(name)
                arguments[name] = _value(m, schema if isinstance(schema, dict) else {})
        out.append(ToolCall(name=call.name, arguments=arguments))
    return out


def agent(messages: list[Message], tools: list[ToolSpec]) -> Move:
    """The next turn of the conversation."""
    user = next(m.content or "" for m in reversed(messages) if m.role == "user")
    expect = _turns().get(user)
    if expect is None:
        return "Sorry, I can't help with that."
    reply = expect.reference or "Done."
    if messages[-1].role == "user" and expect.tool_calls and not expect.allow_no_calls:
        return _calls(expect, tools)
    return reply
