"""``--generator SPEC``: a model rewrites the generated texts in its own words and proposes more
user goals per tool.

Each request is one model call through the provider registry (the spec is the user's own, from
the command line), answered from the response cache when the same model was asked the same thing
before: a second run makes no call and writes the same file. A rewrite that drops a value the
case needs (an id, a date, an address), or adds one it does not have (a number, a day: a made-up
fact the user was to give only when asked), is not used; a proposed goal whose arguments do not fit
the tool's schema, or whose request does not say every value, is not used either.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any, Final

import orjson

from ..providers import CachedAsker
from ..schema import JsonValue, ToolSpec
from ._families import Builder, Candidate, Goal
from ._values import Slot, kind_of, value_texts

__all__ = ["ModelWriter"]

REWRITE: Final = (
    "You rewrite test inputs for an AI agent test suite: what a user says to an assistant. "
    "Rewrite the text so it reads naturally and differently, with the same meaning. Keep every "
    "name, identifier, e-mail address, date, time and number exactly as written. Reply with the "
    "rewritten text only."
)
PROPOSE: Final = (
    "You write test cases for an AI assistant that can call tools. For the tool below, propose "
    "{n} realistic, different things a user could ask that this tool does, each with the exact "
    "arguments of the call. Every argument value must appear word for word in the request. Reply "
    'with JSON only: [{{"request": "...", "arguments": {{...}}}}].'
)
_TYPES: Final[dict[str, type | tuple[type, ...]]] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
}


class ModelWriter(CachedAsker):
    """Rewrites texts (``__call__(text, keep)``) and proposes goals (``propose(builder, rng)``)
    with one model, every reply cached."""

    key_prefix = "generate:"

    def __call__(self, text: str, keep: Sequence[str]) -> str | None:
        new = self.ask(REWRITE, text)
        if not new or len(new) > 4 * len(text) + 200 or any(k not in new for k in keep):
            return None
        if _added(text, new):
            return None  # a number or a day the case does not have would change what it tests
        return new

    def propose(self, b: Builder, rng: random.Random) -> list[Candidate]:
        """Proposed goals as ``direct`` cases (those that fit the tool and the world)."""
        out: list[Candidate] = []
        for tool in b.suite.tools:
            prompt = orjson.dumps(tool.model_dump(mode="json", exclude_defaults=True)).decode()
            reply = self.ask(PROPOSE.format(n=b.config.proposals), prompt)
            for i, (request, args) in enumerate(_parsed(reply)[: b.config.proposals]):
                goal = _goal(tool, request, args)
                if goal is None or not _accepted(b, goal):
                    b.notes.append(f"proposed goal {i + 1} for {tool.name} not used: it does "
                                   "not fit the tool's schema or world, or does not say every "
                                   "value")  # fmt: skip
                    continue
                case = b.case("direct", goal, request, b.expect(goal), goal.call())
                case.id = case.record["id"] = f"proposed-{case.id}-{i + 1}"
                case.record["metadata"]["generate"]["proposed"] = True
                out.append(case)
        return out


#: what a rewrite must not add: a number (a date, a time, an amount, an id's digits), a day
_VALUE_LIKE: Final = re.compile(
    r"\d+|\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|"
    r"tonight|yesterday|january|february|march|april|june|july|august|september|october|"
    r"november|december)\b",
    re.IGNORECASE,
)


def _added(text: str, new: str) -> bool:
    """``new`` holds a value-like word that ``text`` does not: a missing fact the model made
    up (a day the user was to give only when asked), another number."""
    had = {m.casefold() for m in _VALUE_LIKE.findall(text)}
    return any(m.casefold() not in had for m in _VALUE_LIKE.findall(new))


def _parsed(reply: str) -> list[tuple[str, dict[str, Any]]]:
    text = reply.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return []
    items = data if isinstance(data, list) else [data]
    out = []
    for item in items:
        if isinstance(item, dict) and isinstance(item.get("request"), str):
            args = item.get("arguments")
            if isinstance(args, dict):
                out.append((item["request"].strip(), args))
    return out


def _goal(tool: ToolSpec, request: str, args: dict[str, Any]) -> Goal | None:
    """The goal of a proposal: every required argument, of its schema's type, said in the
    request."""
    props = tool.properties()
    slots = []
    for name in tool.required():
        if name not in args:
            return None
        schema = props.get(name)
        schema = schema if isinstance(schema, dict) else {}
        value: JsonValue = args[name]
        want: type | tuple[type, ...] = _TYPES.get(str(schema.get("type", "string")), object)
        if not isinstance(value, want) or (isinstance(value, bool) and want is not bool):
            return None
        enum = schema.get("enum")
        if isinstance(enum, list) and value not in enum:
            return None
        if not all(t.casefold() in request.casefold() for t in value_texts(value)):
            return None
        slots.append(Slot(name=name, kind=kind_of(name, schema), value=value))
    return Goal(tool=tool, slots=tuple(slots))


def _accepted(b: Builder, goal: Goal) -> bool:
    if b.world is None or goal.tool.name not in b.world.tools:
        return True
    return b.world.outcome([goal.call()]).refused is None
