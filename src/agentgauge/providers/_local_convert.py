"""Pure parts of the embedded local agent: prompts, schemas, grounding and the reply parser.

A small model has no native tool calling. The embedded agent decides in two stages (the model
work is in ``_local``; everything here is pure and unit-tested):

1. **which function** — every offered function is scored by how likely the user's message is
   *given* that function (``tool_card``) versus given no function (``NULL_CARD``): the
   pointwise mutual information. The best function wins if its score is above zero;
   otherwise no function fits and the agent says so (``no_tool_reply``).
2. **its arguments** — the model writes only the chosen function's arguments, constrained by
   that function's own parameter schema (``arguments_prompt``, ``arguments_schema``).
   Optional arguments whose values do not appear in the conversation are dropped, and
   if a required one does not appear either the agent asks for it
   (``check_arguments``, ``clarifying_question``) instead of calling with a made-up value.

Text turns (after a tool result, or when no tools are offered) and the ``chain`` option use
one JSON object per reply, constrained by a grammar built from the allowed tools::

    {"tool": "get_weather", "arguments": {...that tool's parameter schema...}}
    {"tool": "none", "reply": "text: an answer, a clarifying question or a refusal"}

``tool_schema`` builds that JSON Schema (``anyOf``: one branch per tool, plus the reply branch),
``chat_messages`` renders the conversation (tool calls and results included) for the model's
chat template, ``parse_reply`` turns the generated JSON back into a neutral assistant message.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from ..schema import Message, ToolCall, ToolSpec
from ._common import RAW_ARGUMENTS_KEY

__all__ = [
    "NO_TOOL",
    "NULL_CARD",
    "allowed_tools",
    "arguments_messages",
    "arguments_prompt",
    "arguments_schema",
    "chat_messages",
    "check_arguments",
    "choice_turns",
    "clarifying_question",
    "conversation_text",
    "grounded",
    "no_tool_reply",
    "parse_reply",
    "structured_messages",
    "system_prompt",
    "tool_card",
    "tool_schema",
]

#: the ``tool`` value of the no-tool branch
NO_TOOL = "none"
#: upper bound on the length of a text reply (keeps a rambling small model bounded)
REPLY_MAX_CHARS = 600

_REPLY_FORMAT = (
    'Answer the user in text, as one JSON object with the keys "tool" (the value "none") and '
    '"reply" (your answer).'
)
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


def arguments_schema(tool: ToolSpec) -> dict[str, Any]:
    """The tool's parameter schema as an object schema (what its arguments must match)."""
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
        args = {"type": "object"} if generic_arguments else arguments_schema(tool)
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


def system_prompt(
    tools: list[ToolSpec], original: str | None = None, *, allowed: list[ToolSpec] | None = None
) -> str:
    """The one-JSON-object prompt: the case's system text, the functions, the format, examples.

    ``allowed`` (default: all of ``tools``) are the functions the reply may call: the prompt
    lists all of ``tools`` and gives an example call of each allowed one. With none allowed (a
    text turn) it asks for the text reply only and lists no functions (a shorter prompt).
    Few-shot examples matter for a 135M model: without them it mostly answers in text.
    """
    allowed = tools if allowed is None else allowed
    parts = []
    if original:
        parts.append(original.strip())
    if allowed:
        parts.append(
            "You are a function-calling assistant. Available functions:\n"
            + "\n".join(_signature(t) for t in tools)
        )
        parts.append(
            _FORMAT
            + "\n"
            + "\n".join(_example(t) for t in allowed[:MAX_EXAMPLES])
            + '\nExample: "Hello!" -> {"tool": "none", "reply": "Hello! How can I help?"}'
            + "\nAnswer with one JSON object."
        )
    else:
        parts.append(_REPLY_FORMAT)
    return "\n\n".join(parts)


def _call_json(call: ToolCall) -> str:
    return orjson.dumps({"tool": call.name, "arguments": call.arguments}).decode()


def _original_system(messages: list[Message]) -> str | None:
    return "\n\n".join(m.content or "" for m in messages if m.role == "system") or None


def _render_turns(messages: list[Message]) -> list[dict[str, str]]:
    """The non-system turns as user/assistant turns (consecutive user turns merged).

    Assistant tool calls are shown as the JSON the model would have written; tool results
    become user turns (``Result of get_weather: {...}``).
    """
    out: list[dict[str, str]] = []
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
    return merged


def chat_messages(
    messages: list[Message], tools: list[ToolSpec], allowed: list[ToolSpec] | None = None
) -> list[dict[str, str]]:
    """The conversation as plain system/user/assistant turns the chat template accepts.

    The system turn is :func:`system_prompt` (``allowed``: the tools the reply may call,
    default all); tool results become user turns, and the latest one ends with
    :data:`AFTER_RESULT`.
    """
    system = system_prompt(tools, _original_system(messages), allowed=allowed)
    merged = [{"role": "system", "content": system}, *_render_turns(messages)]
    if messages and messages[-1].role == "tool":
        # without this nudge a small model calls the same tool again and again
        merged[-1] = {"role": "user", "content": merged[-1]["content"] + "\n" + AFTER_RESULT}
    return merged


def structured_messages(messages: list[Message]) -> list[dict[str, str]]:
    """The conversation for a ``response_schema`` request (a judge's): the turns as written,
    with no tool-format system prompt; the grammar built from the schema shapes the reply.
    Consecutive turns of one role are merged (the chat template expects them alternating)."""
    out: list[dict[str, str]] = []
    for m in messages:
        role = m.role if m.role in ("system", "assistant") else "user"
        if role == "system" and out:
            role = "user"
        text = m.content or ""
        if out and out[-1]["role"] == role:
            out[-1] = {"role": role, "content": out[-1]["content"] + "\n\n" + text}
        else:
            out.append({"role": role, "content": text})
    return out


# --- stage 1: which function ------------------------------------------------------------------

#: the system prompt every function's card is compared against (the "no function" context)
NULL_CARD = "You are a helpful assistant."


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


def tool_card(tool: ToolSpec) -> str:
    """The system prompt under which the user's message is scored for ``tool``."""
    line = f"You are an assistant with one function: {tool.name}({', '.join(tool.properties())})"
    description = _one_line(tool.description)
    return f"{line} - {description}" if description else line


def choice_turns(messages: list[Message], card: str) -> tuple[list[dict[str, str]], str] | None:
    """The turns to score under ``card``: (``card`` as system prompt + the earlier turns, the
    latest user turn's text). None when the conversation does not end with a user turn."""
    turns = _render_turns(messages)
    if not turns or turns[-1]["role"] != "user" or messages[-1].role != "user":
        return None
    return [{"role": "system", "content": card}, *turns[:-1]], turns[-1]["content"]


# --- stage 2: the chosen function's arguments -------------------------------------------------


def arguments_prompt(tool: ToolSpec, original: str | None = None) -> str:
    """The argument stage's system prompt: the chosen function and each parameter.

    No worked example: on the dev sample a neutral one (a function never offered) made the
    arguments worse, and it cost ~45 prompt tokens per call.
    """
    required = set(tool.required())
    lines = []
    for name, schema in tool.properties().items():
        kind = _type_label(schema)
        need = "required" if name in required else "optional"
        description = _one_line(schema.get("description")) if isinstance(schema, dict) else ""
        lines.append(f"- {name} ({kind}, {need})" + (f": {description}" if description else ""))
    parts = [original.strip()] if original else []
    head = f"Call the function {tool.name}"
    if tool.description:
        head += f": {_one_line(tool.description)}"
    parts.append(
        head
        + ("\nArguments:\n" + "\n".join(lines) if lines else "")
        + "\nWrite the arguments as one JSON object, with values taken from the conversation."
    )
    return "\n\n".join(parts)


def arguments_messages(messages: list[Message], tool: ToolSpec) -> list[dict[str, str]]:
    """The conversation for the argument stage (:func:`arguments_prompt` as system turn)."""
    system = arguments_prompt(tool, _original_system(messages))
    return [{"role": "system", "content": system}, *_render_turns(messages)]


# --- grounding: are the arguments in the conversation? ---------------------------------------

_WORD = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?")
# fmt: off
_SMALL_NUMBERS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty",
)
# fmt: on
_NUMBER_WORDS = {w: i for i, w in enumerate(_SMALL_NUMBERS)} | {
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "hundred": 100,
    "thousand": 1000,
    "dozen": 12,
}


def conversation_text(messages: list[Message]) -> str:
    """What arguments may be taken from: system, user and tool-result text."""
    return "\n".join(m.content or "" for m in messages if m.role in ("system", "user", "tool"))


def _numbers(text: str) -> set[float]:
    found: set[float] = set()
    for match in _NUMBER.finditer(text):
        try:
            value = float(match.group().replace(",", ""))
        except ValueError:
            continue
        found |= {value, value / 100}  # "5%" may be written 0.05
    words = _words(text)
    found |= {float(v) for w, v in _NUMBER_WORDS.items() if w in words}
    return found


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _word_in(word: str, words: set[str]) -> bool:
    """``word`` is one of ``words``, or a prefix of one or has one as its prefix (plurals,
    abbreviations: "eur" / "euros") when the shorter has 3+ letters or is a number."""
    if word in words:
        return True
    for other in words:
        short, long = (word, other) if len(word) <= len(other) else (other, word)
        if long.startswith(short) and (len(short) >= 3 or short.isdigit()):
            return True
    return False


def grounded(value: Any, schema: Any, text: str) -> bool:
    """Whether ``value`` (an argument the model wrote) can be found in the conversation ``text``.

    Booleans, the schema's default and enum members are choices, not facts, and always count.
    A number must appear as a number (digits, or a small number word). A string counts when
    at least half of its words appear (see ``_word_in``). A list or object counts when it is
    not empty and every item counts.
    """
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, bool):
        return True
    if value is None:
        return False
    if "default" in schema and schema["default"] == value:
        return True
    enum = schema.get("enum")
    if isinstance(enum, list) and value in enum:
        return True
    if isinstance(value, int | float):
        return float(value) in _numbers(text)
    if isinstance(value, str):
        words = _WORD.findall(value.lower())
        have = _words(text)
        return bool(words) and 2 * sum(_word_in(w, have) for w in words) >= len(words)
    if isinstance(value, list):
        items = schema.get("items")
        return bool(value) and all(grounded(v, items, text) for v in value)
    if isinstance(value, dict):
        props = schema.get("properties")
        props = props if isinstance(props, dict) else {}
        return bool(value) and all(grounded(v, props.get(k), text) for k, v in value.items())
    return True


def check_arguments(
    tool: ToolSpec, arguments: dict[str, Any], text: str
) -> tuple[dict[str, Any], list[str]]:
    """(``arguments`` without optional ones not found in ``text``, the required ones that are
    missing or not found in ``text``).

    An optional argument equal to its default is dropped (the default applies anyway); an
    optional enum value must itself appear in ``text`` (one the user never mentioned is an
    invented choice); optional booleans are kept.
    """
    props = tool.properties()
    required = tool.required()

    def keep(name: str, value: Any) -> bool:
        if name in required:
            return True
        schema = props.get(name)
        schema = dict(schema) if isinstance(schema, dict) else {}
        if "default" in schema and schema.pop("default") == value:
            return False
        if isinstance(value, bool):
            return True
        schema.pop("enum", None)
        return grounded(value, schema, text)

    kept = {k: v for k, v in arguments.items() if keep(k, v)}
    missing = [k for k in required if k not in kept or not grounded(kept[k], props.get(k), text)]
    return kept, missing


def _label(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).replace("_", " ").replace("-", " ")
    return " ".join(spaced.split()).lower()


def clarifying_question(tool: ToolSpec, missing: list[str]) -> str:
    """The question the agent asks instead of calling ``tool`` with made-up ``missing`` values."""
    labels = [_label(m) for m in missing] or ["details"]
    listed = labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]
    return f"Could you tell me the {listed}?"


def no_tool_reply() -> str:
    """What the agent says when none of the offered functions fits the request."""
    return "Sorry, I can't help with that: none of the tools I have can do it."


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
