"""A scripted model for the framework adapters' offline tests: it plays the quickstart's oracle
agent (examples/quickstart/oracle_agent.py) behind agentgauge.testing's FakeOpenAIServer, over
the chat completions API or the Responses API, whichever the framework's client speaks."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from agentgauge.schema import Message, ToolCall
from agentgauge.testing import FakeOpenAIServer, FakeReply, FakeRequest

REPO = Path(__file__).resolve().parents[3]
QUICKSTART = REPO / "examples" / "quickstart"
EXAMPLES = REPO / "examples" / "frameworks"


def _oracle() -> Any:
    spec = importlib.util.spec_from_file_location(
        "quickstart_oracle", QUICKSTART / "oracle_agent.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.agent


ORACLE = _oracle()


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _chat_messages(body: dict[str, Any]) -> list[Message]:
    names: dict[str, str] = {}
    out: list[Message] = []
    for m in body.get("messages", []):
        role = m.get("role")
        if role == "assistant":
            calls = []
            for c in m.get("tool_calls") or []:
                fn = c["function"]
                names[c["id"]] = fn["name"]
                calls.append(
                    ToolCall(name=fn["name"], arguments=json.loads(fn["arguments"] or "{}"))
                )
            out.append(Message(role="assistant", content=_text(m.get("content")), tool_calls=calls))
        elif role == "tool":
            tid = m.get("tool_call_id", "")
            out.append(
                Message(
                    role="tool",
                    content=_text(m.get("content")),
                    name=names.get(tid),
                    tool_call_id=tid,
                )
            )
        elif role in ("user", "system", "developer"):
            out.append(
                Message(
                    role="system" if role == "developer" else role, content=_text(m.get("content"))
                )
            )
    return out


def _responses_messages(body: dict[str, Any]) -> list[Message]:
    items = body.get("input", [])
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    names: dict[str, str] = {}
    out: list[Message] = []
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            names[item["call_id"]] = item["name"]
            call = ToolCall(name=item["name"], arguments=json.loads(item.get("arguments") or "{}"))
            if out and out[-1].role == "assistant" and not out[-1].content:
                out[-1] = out[-1].model_copy(update={"tool_calls": [*out[-1].tool_calls, call]})
            else:
                out.append(Message(role="assistant", tool_calls=[call]))
        elif kind == "function_call_output":
            cid = item["call_id"]
            output = item.get("output")
            out.append(
                Message(role="tool", content=_text(output), name=names.get(cid), tool_call_id=cid)
            )
        elif item.get("role") in ("user", "assistant", "system", "developer"):
            role = item["role"]
            out.append(
                Message(
                    role="system" if role == "developer" else role,
                    content=_text(item.get("content")),
                )
            )
    return out


#: set ``wrong`` to make the model call get_weather for Lyon whatever city was asked (a wrong
#: agent, which the suite must fail); ``loop`` to make it call get_weather forever
SCRIPT = {"wrong": False, "loop": False}


def oracle_reply(request: FakeRequest) -> FakeReply:
    """The oracle's next move for the conversation in this request."""
    body = request.body
    messages = (
        _responses_messages(body) if request.path.endswith("/responses") else _chat_messages(body)
    )
    if SCRIPT["loop"]:  # an agent that never stops calling a tool
        return [ToolCall(name="get_weather", arguments={"city": "Paris"})]
    move = ORACLE(messages, [])
    if isinstance(move, str):
        return move
    if SCRIPT["wrong"]:
        return [
            c.model_copy(update={"arguments": {**c.arguments, "city": "Lyon"}})
            if c.name == "get_weather"
            else c
            for c in move
        ]
    return list(move)


def quickstart_server() -> FakeOpenAIServer:
    return FakeOpenAIServer(oracle_reply, model="fake-quickstart")
