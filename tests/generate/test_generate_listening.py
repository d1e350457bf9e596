"""A generated suite passes a right agent that never saw its expectations: a small rule-based
agent that reads only the conversation and the tools offered (what the user said the values
are, which goal they want now, a retry after a failed call, nothing a tool result says). The
oracle agent of the satisfiability check is built from the expectations; this one is not, so
the suite is shown to grade behaviour, not agreement with itself. Its careless twin, the same
agent that acts on its first reading and never updates it, fails every conversation."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from generate_helpers import QUICKSTART, REPO

from agentgauge.generate import GenerateConfig, generate_suite, write_generated
from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Message, ToolCall, ToolSpec
from agentgauge.suites import load_suite

_STATED = re.compile(
    r"\b(?:the|my) ([a-z][a-z ]{0,30}?) is (\"[^\"]*\"|.+?)(?=, | and the |\.\s|\.$|$)",
    re.IGNORECASE,
)
_CHANGED = re.compile(r"make the (.+?) instead", re.IGNORECASE)
_SAID_AS = {"recipient": "to"}
USERS = REPO / "examples" / "users"


def _words(name: str) -> set[str]:
    return {w[:5] for w in re.split(r"[_\W]+", name.lower()) if len(w) > 2}


def _tool_for(text: str, tools: Sequence[ToolSpec]) -> ToolSpec | None:
    said = _words(text)
    scored = [(len(_words(t.name) & said), t.name, t) for t in tools]
    best = max(scored, key=lambda s: (s[0], s[1]), default=None)
    return best[2] if best is not None and best[0] > 0 else None


def _param(label: str, tool: ToolSpec) -> str | None:
    label = _SAID_AS.get(label.lower(), label.lower())
    for name in tool.properties():
        if name.lower() == label.replace(" ", "_"):
            return name
    return None


def _split(phrase: str, tool: ToolSpec) -> tuple[str, str]:
    """``order id C9`` -> (``order id``, ``C9``): the longest label that names a parameter."""
    words = phrase.split(" ")
    for k in range(len(words) - 1, 0, -1):
        if _param(" ".join(words[:k]), tool) is not None:
            return " ".join(words[:k]), " ".join(words[k:])
    return phrase, ""


def _typed(value: str, schema: Any) -> Any:
    value = value.strip().strip('"')
    kind = schema.get("type") if isinstance(schema, dict) else None
    if kind == "integer" and re.fullmatch(r"-?\d+", value):
        return int(value)
    if kind == "number" and re.fullmatch(r"-?\d+(\.\d+)?", value):
        return float(value) if "." in value else int(value)
    return value


class Listening:
    """Reads the goal and its values from what the user said (``update``: the last word on a
    value wins; ``False``: its first reading stands, the careless twin)."""

    name = "test:listening"

    def __init__(self, *, update: bool = True) -> None:
        self.update = update

    def _goal(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> tuple[
        ToolSpec | None, dict[str, Any]
    ]:  # fmt: skip
        users = [m.content or "" for m in messages if m.role == "user"]
        start = max((i for i, t in enumerate(users) if "Instead," in t), default=0)
        text = users[start].split("Instead,", 1)[-1] if self.update else users[0]
        tool = _tool_for(text, tools)
        if tool is None:
            return None, {}
        args: dict[str, Any] = {}
        for said in users[start:] if self.update else users[:1]:
            pairs = _STATED.findall(said) + [_split(m, tool) for m in _CHANGED.findall(said)]
            for label, value in pairs:
                param = _param(label, tool)
                if param is not None and (self.update or param not in args):
                    args[param] = _typed(value, tool.properties()[param])
        return tool, args

    async def generate(self, request: ModelRequest) -> ModelResponse:
        messages, tools = request.messages, [t for t in request.tools if isinstance(t, ToolSpec)]
        last = messages[-1]
        made = [c for m in messages if m.role == "assistant" for c in m.tool_calls]
        if last.role == "tool":
            failed = (last.content or "").lstrip().startswith('{"error"')
            failures = sum(
                1 for m in messages if m.role == "tool" and '"error"' in (m.content or "")
            )
            if failed and failures == 1:
                return _calls([made[-1]])
            return _say("I could not do it." if failed else "Done.")
        tool, args = self._goal(messages, tools)
        if tool is None:
            return _say("How can I help?")
        missing = [p for p in tool.required() if p not in args]
        if missing:
            label = {v: k for k, v in _SAID_AS.items()}.get(missing[0], missing[0])
            return _say(f"What is your {label.replace('_', ' ')}?")
        call = ToolCall(name=tool.name, arguments=args)
        if any(c.name == call.name and c.arguments == call.arguments for c in made):
            return _say("You're welcome.")
        return _calls([call])


def _say(text: str) -> ModelResponse:
    return ModelResponse(message=Message(role="assistant", content=text), usage_reported=False)


def _calls(calls: list[ToolCall]) -> ModelResponse:
    msg = Message(role="assistant", content=None, tool_calls=calls)
    return ModelResponse(message=msg, usage_reported=False)


@pytest.mark.parametrize(("source", "seed"), [(QUICKSTART, 7), (QUICKSTART, 11), (USERS, 5)])
def test_an_agent_that_never_saw_the_expectations_passes_and_its_careless_twin_fails(
    source: Path, seed: int, tmp_path: Path
) -> None:
    out = write_generated(generate_suite(source, GenerateConfig(seed=seed)),
                          tmp_path / "g.yaml")[0]  # fmt: skip
    suite = load_suite(out)
    results = {}
    for name, agent in (("right", Listening()), ("careless", Listening(update=False))):
        config = RunConfig(cache=False, progress=False, suite_path=str(out))
        run_suite(suite, config, tmp_path / name, provider=agent)
        results[name] = {r.case_id: r for r in iter_results(tmp_path / name)}
    right = results["right"]
    assert len(right) == len(suite.cases) > 10
    assert {r.status for r in right.values()} == {"passed"}, [
        (k, r.explanation) for k, r in right.items() if r.status != "passed"
    ]
    talks = [c.id for c in suite.cases if c.user is not None]
    careless = results["careless"]
    assert {careless[c].status for c in talks} == {"failed"}, [
        (c, careless[c].status) for c in talks if careless[c].status != "failed"
    ]
    singles = [c.id for c in suite.cases if c.user is None]
    assert {careless[c].status for c in singles} == {"passed"}  # it fails only on not listening
