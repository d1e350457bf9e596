"""Two scripted agents for the retail suite: the oracle, and a plausible wrong one.

Neither is an AI. ``oracle_plan.json`` (written by ``make_cases.py``) lists, for every user turn
of the suite (keyed by the user messages so far), the oracle's moves: tool calls, then a reply.
A value such as ``{return_items:return_id}`` is filled in from the latest result of that tool,
so the oracle quotes the id the back-end actually issued. Run them with

    agentgauge run examples/retail --allow-suite-code \\
        --agent python:examples/retail/oracle_agent.py:agent      # passes every case
    agentgauge run examples/retail --allow-suite-code \\
        --agent python:examples/retail/oracle_agent.py:hasty      # the wrong state

``hasty`` says exactly what the oracle says and makes every call the oracle makes, in the same
turns, so every call-level check of the suite passes. But it does what the user asks the moment
they ask, the classic failure of an over-eager support agent:

1. it makes a proposed change at once, in the turn where it asks the user to confirm (and
   submits it again when the user says yes; the back-end's refusal of the repeat is ignored);
2. it makes a change the policy refuses (a return outside the 30-day window, another customer's
   order) while telling the user it cannot;
3. when it re-addresses an order, it also "helpfully" makes that the customer's default address.

Only the state of the order system shows any of this: that is what outcome grading is for.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from agentgauge.schema import Message, ToolCall, ToolSpec

PLAN: dict[str, dict[str, Any]] = json.loads(
    Path(__file__).with_name("oracle_plan.json").read_text(encoding="utf-8")
)
_HOLE = re.compile(r"\{([a-z_]+):([A-Za-z0-9_.]+)\}")
Move = dict[str, Any]


def _latest(messages: list[Message], tool: str) -> Any:
    for m in reversed(messages):
        if m.role == "tool" and m.name == tool:
            value = json.loads(m.content or "null")
            if not (isinstance(value, dict) and "error" in value):
                return value
    return None


def _fill(value: Any, messages: list[Message]) -> Any:
    """``{tool:field}`` holes filled from the latest successful result of that tool."""
    if isinstance(value, str):
        return _HOLE.sub(lambda m: str((_latest(messages, m[1]) or {}).get(m[2], "?")), value)
    if isinstance(value, list):
        return [_fill(v, messages) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, messages) for k, v in value.items()}
    return value


def _turn(messages: list[Message]) -> tuple[dict[str, Any], int]:
    """The plan of the current user turn, and how many assistant steps it has had."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    key = "\n\n".join(messages[i].content or "" for i in users)
    step = sum(1 for m in messages[users[-1] + 1 :] if m.role == "assistant")
    return PLAN.get(key, {}), step


def _play(moves: list[Move], step: int, messages: list[Message]) -> str | list[ToolCall]:
    if not moves:
        return "Sorry, I can't help with that."
    move = moves[min(step, len(moves) - 1)]
    if "text" in move:
        return str(_fill(move["text"], messages))
    calls = [ToolCall(name=c["name"], arguments=_fill(c["arguments"], messages))
             for c in move["calls"]]  # fmt: skip
    return calls


def agent(messages: list[Message], tools: list[ToolSpec]) -> str | list[ToolCall]:
    """The oracle: the next move of the plan for the current user turn."""
    plan, step = _turn(messages)
    return _play(plan.get("moves", []), step, messages)


def _hasty_moves(plan: dict[str, Any]) -> list[Move]:
    eager = [*plan.get("pending", []), *plan.get("declined", [])]
    moves = ([{"calls": eager}] if eager else []) + list(plan.get("moves", []))
    out: list[Move] = []
    for move in moves:
        if "calls" not in move:
            out.append(move)
            continue
        calls = list(move["calls"])
        for c in move["calls"]:
            if c["name"] == "modify_order_address":
                also = {"customer_id": "{find_customer:customer_id}", **c["arguments"]}
                also.pop("order_id")
                calls.append({"name": "update_default_address", "arguments": also})
        out.append({"calls": calls})
    return out


def _done_this_turn(messages: list[Message]) -> list[tuple[str, str]]:
    """The calls of the current turn that did not fail (a failed one may be tried again);
    each call's result is the tool message that follows it, in order."""
    last_user = max(i for i, m in enumerate(messages) if m.role == "user")
    done: list[tuple[str, str]] = []
    waiting: list[ToolCall] = []
    for m in messages[last_user + 1 :]:
        if m.role == "assistant":
            waiting = list(m.tool_calls)
        elif m.role == "tool" and waiting:
            c = waiting.pop(0)
            if '"error"' not in (m.content or ""):
                done.append((c.name, json.dumps(c.arguments, sort_keys=True)))
    return done


def hasty(messages: list[Message], tools: list[ToolSpec]) -> str | list[ToolCall]:
    """The plausible wrong agent: the oracle's words and calls, plus the writes the policy
    holds back (at once), plus the default address on every re-addressed order. It does not
    repeat a call that went through in this turn: what it sent, it considers done."""
    plan, step = _turn(messages)
    reply = _play(_hasty_moves(plan), step, messages)
    if isinstance(reply, str):
        return reply
    made = _done_this_turn(messages)
    fresh = [c for c in reply if (c.name, json.dumps(c.arguments, sort_keys=True)) not in made]
    if fresh:
        return fresh
    # everything of this move was sent already: go on with the oracle's reply
    moves = _hasty_moves(plan)
    texts = [m for m in moves if "text" in m]
    return str(_fill(texts[-1]["text"], messages)) if texts else "Done."
