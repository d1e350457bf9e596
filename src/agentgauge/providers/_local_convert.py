"""Pure parts of the embedded local agent: the output schema, the prompt and the reply parser.

A small model has no native tool calling, so every reply is one JSON object constrained by a
grammar built from the offered tools::

    {"tool": "get_weather", "arguments": {...that tool's parameter schema...}}
    {"tool": "none", "reply": "text: an answer, a clarifying question or a refusal"}

``tool_schema`` builds that JSON Schema (``anyOf``: one branch per tool, plus the reply branch),
``chat_messages`` renders the conversation (tool calls and results included) for the model's
chat template, ``parse_reply`` turns the generated JSON back into a neutral assistant message.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..schema import Message, ToolCall, ToolSpec
from ._common import RAW_ARGUMENTS_KEY

__all__ = [
    "NO_TOOL",
    "allowed_tools",
    "chat_messages",
    "parse_reply",
    "system_prompt",
    "tool_schema",
]

#: the ``tool`` value of the no-tool branch
NO_TOOL = "none"
#: upper bound on the length of a text reply (keeps a rambling small model bounded)
REPLY_MAX_CHARS = 600

_FORMAT = """To call a function, answer {"tool": "<function name>", "arguments": {<arguments>}}
To answer in text (a reply, a question for the user, or a refusal), answer \
{"tool": "none", "reply": "<text>"}"""

#: tools shown with an example call (one example for the first tool only biases a small model
#: towards that tool; one per tool costs ~25 prompt tokens each)
MAX_EXAMPLES = 12

#: appended to the latest tool result shown to the model
AFTER_RESULT = "Now answer the user's request using this result."

_PLACEHOLDERS: dict[str, Any] = {
    "string": "...",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": [],
    "object": {},
}


def _arguments_schema(tool: ToolSpec) -> dict[str, Any]:
    params = dict(tool.parameters) if isinstance(tool.parameters, dict) else {}
    params.setdefault("type", "object")
    if params.get("type") == "object":
        params.setdefault("properties", {})
    return params


def tool_schema(tools: list[ToolSpec], *, generic_arguments: bool = False) -> dict[str, Any]:
    """The JSON Schema every reply must match: one branch per tool plus the text branch.

    ``generic_arguments`` replaces each tool's parameter schema by ``{"type": "object"}`` — the
    fallback when a schema uses features the grammar compiler does not support.
    """
    branches: list[dict[str, Any]] = []
    for tool in tools:
        args = {"type": "object"} if generic_arguments else _arguments_schema(tool)
        branches.append(
            {
                "type": "object",
                "properties": {"tool": {"const": tool.name}, "arguments": args},
                "required": ["tool", "arguments"],
            }
        )
    branches.append(
        {
            "type": "object",
            "properties": {
                "tool": {"const": NO_TOOL},
                "reply": {"type": "string", "maxLength": REPLY_MAX_CHARS},
            },
            "required": ["tool", "reply"],
        }
    )
    return {"anyOf": branches}


def allowed_tools(
    messages: list[Message], tools: list[ToolSpec], *, chain: bool = False
) -> list[ToolSpec]:
    """The tools the next reply may call.

    A 135M model shown a tool result calls a tool again — the same one, or any other — until the
    step limit. The embedded agent's policy is therefore: after tool results, answer in text
    (one tool step per user turn). With ``chain`` it may instead go on to a tool it has not
    just called (for multi-step tasks; rarely useful with a model this small).
    """
    if not messages or messages[-1].role != "tool":
        return tools
    if not chain:
        return []
    just_called: set[str] = set()
    for m in reversed(messages):
        if m.role == "assistant":
            just_called = {c.name for c in m.tool_calls}
            break
    return [t for t in tools if t.name not in just_called]


def _type_label(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema:
        return "|".join(orjson.dumps(v).decode() for v in schema["enum"])
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        return "|".join(str(k) for k in kind)
    if kind == "array":
        return f"list[{_type_label(schema.get('items'))}]"
    return str(kind)


def _signature(tool: ToolSpec) -> str:
    required = set(tool.required())
    args = []
    for name, schema in tool.properties().items():
        mark = "" if name in required else "?"
        args.append(f"{name}{mark}: {_type_label(schema)}")
    line = f"{tool.name}({', '.join(args)})"
    if tool.description:
        line += f" - {' '.join(tool.description.split())}"
    return line


def _example(tool: ToolSpec) -> str:
    """A one-line example call of ``tool`` with placeholder values for its required arguments."""
    props = tool.properties()
    args: dict[str, Any] = {}
    for name in tool.required():
        schema = props.get(name)
        kind = schema.get("type") if isinstance(schema, dict) else None
        if isinstance(schema, dict) and schema.get("enum"):
            args[name] = schema["enum"][0]
        else:
            args[name] = _PLACEHOLDERS.get(kind if isinstance(kind, str) else "string", "...")
    request = " ".join(tool.description.split()) or f"use {tool.name}"
    call = orjson.dumps({"tool": tool.name, "arguments": args}).decode()
    return f'Example: "{request}" -> {call}'


def system_prompt(tools: list[ToolSpec], original: str | None = None) -> str:
    """The system prompt: the case's own system text, the functions, the format, two examples.

    Few-shot examples matter for a 135M model: without them it mostly answers in text.
    """
    parts = []
    if original:
        parts.append(original.strip())
    if tools:
        parts.append(
            "You are a function-calling assistant. Available functions:\n"
            + "\n".join(_signature(t) for t in tools)
        )
        parts.append(
            _FORMAT
            + "\n"
            + "\n".join(_example(t) for t in tools[:MAX_EXAMPLES])
            + '\nExample: "Hello!" -> {"tool": "none", "reply": "Hello! How can I help?"}'
            + "\nAnswer with one JSON object."
        )
    else:
        parts.append('Answer with one JSON object: {"tool": "none", "reply": "<text>"}')
    return "\n\n".join(parts)


def _call_json(call: ToolCall) -> str:
    return orjson.dumps({"tool": call.name, "arguments": call.arguments}).decode()


def chat_messages(messages: list[Message], tools: list[ToolSpec]) -> list[dict[str, str]]:
    """The conversation as plain system/user/assistant turns the chat template accepts.

    Assistant tool calls are shown as the JSON the model would have written; tool results
    become user turns (``Result of get_weather: {...}``).
    """
    original = "\n\n".join(m.content or "" for m in messages if m.role == "system") or None
    out: list[dict[str, str]] = [{"role": "system", "content": system_prompt(tools, original)}]
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "assistant":
            if m.tool_calls:
                text = "\n".join(_call_json(c) for c in m.tool_calls)
            else:
                text = orjson.dumps({"tool": NO_TOOL, "reply": m.content or ""}).decode()
            out.append({"role": "assistant", "content": text})
        elif m.role == "tool":
            label = f"Result of {m.name}" if m.name else "Tool result"
            out.append({"role": "user", "content": f"{label}: {m.content or ''}"})
        else:
            out.append({"role": "user", "content": m.content or ""})
    # the template expects alternating turns: merge consecutive user turns (parallel results)
    merged: list[dict[str, str]] = []
    for turn in out:
        if merged and turn["role"] == "user" and merged[-1]["role"] == "user":
            merged[-1] = {"role": "user", "content": merged[-1]["content"] + "\n" + turn["content"]}
        else:
            merged.append(turn)
    if messages and messages[-1].role == "tool":
        # without this nudge a small model calls the same tool again and again
        merged[-1] = {"role": "user", "content": merged[-1]["content"] + "\n" + AFTER_RESULT}
    return merged


def parse_reply(text: str, tools: list[ToolSpec]) -> Message:
    """The model's JSON reply as an assistant message (text, or one tool call).

    Output that is not valid JSON (a reply cut off by ``max_tokens``) is returned as text; a
    call to an unknown tool is kept as a call so the scorer reports it.
    """
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return Message(role="assistant", content=text.strip())
    if not isinstance(value, dict):
        return Message(role="assistant", content=text.strip())
    name = value.get("tool")
    if name == NO_TOOL or name is None:
        reply = value.get("reply")
        return Message(role="assistant", content=str(reply) if reply is not None else text)
    arguments = value.get("arguments")
    if not isinstance(arguments, dict):
        arguments = {RAW_ARGUMENTS_KEY: orjson.dumps(arguments).decode()}
    return Message(role="assistant", tool_calls=[ToolCall(name=str(name), arguments=arguments)])
