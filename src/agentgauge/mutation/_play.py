"""Turn plans into transcripts: the messages an agent following the plan would produce, with the
tool results the case's simulations give (as the runner's simulator gives them).

A plan says, per user turn, which calls the agent makes and what it replies. The calls go out
together in one assistant message (parallel calls, as one-shot agents and BFCL's checker see
them), or one after the other, each answered before the next, when an argument is taken from an
earlier result or the agent retries after an error. Playing it simulates each call from the
case's ``tool_results`` (successive items for successive calls of a tool, across turns), else
the tool's own ``simulation``, else the runner's "no simulated result" error. Rate faults
(``faults``) are not drawn and Python fakes (``function:``) are not called: such a call gets
``{"status": "ok"}``. With a world (:func:`play_in_world`), the calls the world answers change
its state as in a run (the case's own ``tool_results`` first, ``{world: true}`` handing back), and
a snapshot is taken after each turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import orjson

from ..formats import messages_to_format
from ..schema import Case, Message, StateWrite, ToolCall, ToolSim, ToolSpec
from ..scoring._transcript import History, Result, parse_result, resolve_ref
from ..scoring._values import MISSING
from ..worlds import State, World
from ._values import NoWitness, RefValue, perturb

__all__ = [
    "PlannedCall",
    "TextShape",
    "TurnPlan",
    "WorldPlay",
    "error_tools",
    "play",
    "play_in_world",
    "uses_fakes",
    "written_calls",
]

TextShape = Literal["neutral", "openai", "anthropic", "gemini"]
"""The JSON shape calls written as text take: ``{name, arguments}``, or the assistant message
of OpenAI chat (``tool_calls``), Anthropic (``tool_use`` blocks) or Gemini (``functionCall``
parts), as ``formats.messages_to_format`` writes them."""

#: what a reply that writes its calls inside a sentence says around them
_PROSE: Final = ("Sure, I will do that now: ", " Let me know if you need anything else.")


@dataclass(frozen=True, slots=True)
class PlannedCall:
    """A call the agent makes: argument values may be :class:`RefValue` placeholders."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    #: calls of the same step go out in one message (``CallExpectation.step``)
    step: int | None = None
    #: the index of the expected call this call plays (None: a call the plan adds, such as a
    #: confirming step or one more call to meet ``min_calls``)
    expected: int | None = None


@dataclass(frozen=True, slots=True)
class TurnPlan:
    """What the agent does in one turn."""

    calls: tuple[PlannedCall, ...] = ()
    text: str | None = None
    #: a call whose result is an error is made once more (a sensible retry)
    retry_errors: bool = False
    #: when a call failed, the reply says so before ``text``
    explain_errors: bool = False
    #: one call at a time, each after the previous result (the order of the calls matters)
    sequential: bool = False
    #: stop calling at the first error result and reply with the error's own text (error_echo);
    #: playing fails when no call errs
    echo_error: bool = False
    #: this many text-only assistant messages ("Let me check.") before the calls (model steps)
    preamble: int = 0
    #: one assistant message holding every call and the reply text, nothing after the results
    merged: bool = False
    #: the calls written as JSON text in one assistant message instead of made (no results)
    as_text: bool = False
    #: the shape of that JSON (``as_text``)
    text_shape: TextShape = "neutral"
    #: the JSON written inside a sentence rather than as the whole text (``as_text``)
    text_prose: bool = False


def written_calls(
    calls: Sequence[PlannedCall], shape: TextShape = "neutral", *, prose: bool = False
) -> str:
    """``calls`` written as JSON text in ``shape`` (inside a sentence with ``prose``)."""
    if shape == "neutral":
        data: Any = [{"name": c.name, "arguments": dict(c.arguments)} for c in calls]
    else:
        made = [
            ToolCall(name=c.name, arguments=dict(c.arguments), id=f"call_{k}")
            for k, c in enumerate(calls)
        ]
        body = messages_to_format([Message(role="assistant", tool_calls=made)], shape)
        # OpenAI: the message list; Anthropic and Gemini: a request body holding the message
        data = body[-1] if isinstance(body, list) else body[_BODY_KEY[shape]][-1]
    text = _dumps(data)
    return f"{_PROSE[0]}{text}{_PROSE[1]}" if prose else text


_BODY_KEY: Final = {"anthropic": "messages", "gemini": "contents"}


class PlayError(Exception):
    """The plan cannot be played (an unresolvable reference, no error to echo)."""


class _Simulator:
    def __init__(
        self, case: Case, tools: Mapping[str, ToolSpec], world: World | None = None
    ) -> None:
        self.case = case
        self.tools = tools
        self.counts: dict[str, int] = {}
        self.world = world
        #: the writes the world made, for the turn being played
        self.writes: list[StateWrite] = []

    def content(self, name: str, call: ToolCall | None = None) -> str:
        n = self.counts.get(name, 0)
        self.counts[name] = n + 1
        sim: ToolSim | None
        scripted = self.case.tool_results.get(name)
        if isinstance(scripted, list):
            sim = scripted[min(n, len(scripted) - 1)] if scripted else None
        elif scripted is not None:
            sim = scripted
        else:
            sim = None
        world = self.world
        answers = world is not None and call is not None and name in world.tool_names
        if answers and (sim is None or sim.world):
            assert world is not None
            assert call is not None
            reply = world.apply(call)
            self.writes.extend(reply.writes)
            if reply.error is not None:
                return _dumps({"error": reply.error})
            return _dumps(reply.result)
        if sim is None and scripted is None:
            tool = self.tools.get(name)
            sim = tool.simulation if tool is not None else None
        if sim is None:
            return _dumps({"error": f"no simulated result for tool '{name}'"})
        if sim.fault == "error":
            return _dumps({"error": sim.error or f"{name} failed"})
        if sim.fault == "exception":
            return _dumps(
                {"error": f"tool '{name}' raised an exception: {sim.error or 'internal error'}"}
            )
        if sim.fault == "timeout":
            return _dumps({"error": f"tool '{name}' timed out"})
        if sim.fault == "empty":
            return ""
        if sim.fault == "malformed":
            return '{"result": [{"id": 1, "value": "trunc'
        if sim.function is not None:
            return _dumps({"status": "ok"})
        return _dumps(sim.result)


def _dumps(value: Any) -> str:
    if isinstance(value, str):
        return value
    return orjson.dumps(value, default=str).decode()


def _error_text(content: str) -> str:
    value, _ = parse_result(content)
    if isinstance(value, dict) and isinstance(value.get("error"), str):
        return str(value["error"])
    return content or "error"


class _Player:
    def __init__(
        self, case: Case, tools: Mapping[str, ToolSpec], world: World | None = None
    ) -> None:
        self.sim = _Simulator(case, tools, world)
        self.tools = tools
        self.history = History()
        self.pos = 0
        self.ids = 0
        prefix = case.input if isinstance(case.input, list) else ()
        for msg in prefix:
            if msg.role == "tool":
                value, _ = parse_result(msg.content)
                self.history.results.append(Result(self.pos, msg.name or "", value))
            self.pos += 1

    def resolve(self, value: Any, schema: Any) -> Any:
        if isinstance(value, RefValue):
            got, problem = resolve_ref(value.ref, self.history, self.pos)
            if got is MISSING:
                raise PlayError(problem or "unresolvable reference")
            if not value.wrong:
                return got
            wrong = perturb(value.matcher.model_copy(update={"ref": None}), got, schema)
            if wrong is None:
                raise PlayError("no wrong value for a reference")
            return wrong[0]
        if isinstance(value, dict):
            return {k: self.resolve(v, _prop(schema, k)) for k, v in value.items()}
        if isinstance(value, list):
            items = schema.get("items") if isinstance(schema, dict) else None
            return [self.resolve(v, items) for v in value]
        return value

    def emit(self, group: Sequence[PlannedCall], out: list[Message]) -> list[str]:
        """One assistant message making ``group``'s calls, then their results (contents)."""
        calls: list[ToolCall] = []
        for planned in group:
            tool = self.tools.get(planned.name)
            schema = tool.parameters if tool is not None else None
            args = {k: self.resolve(v, _prop(schema, k)) for k, v in planned.arguments.items()}
            self.ids += 1
            calls.append(ToolCall(name=planned.name, arguments=args, id=f"m{self.ids}"))
        out.append(Message(role="assistant", tool_calls=calls))
        self.pos += 1
        contents: list[str] = []
        for call in calls:
            content = self.sim.content(call.name, call)
            out.append(Message(role="tool", content=content, tool_call_id=call.id, name=call.name))
            value, _ = parse_result(content)
            self.history.results.append(Result(self.pos, call.name, value))
            self.pos += 1
            contents.append(content)
        return contents

    def special(self, plan: TurnPlan, out: list[Message]) -> bool:
        """Play the ``merged`` and ``as_text`` forms (True: the turn is played)."""
        if not (plan.merged or plan.as_text):
            return False
        if any(map(_has_ref, plan.calls)):
            raise PlayError("calls taking a value from an earlier result cannot go in one message")
        if plan.as_text:
            text = written_calls(plan.calls, plan.text_shape, prose=plan.text_prose)
            out.append(Message(role="assistant", content=text))
            self.pos += 1
            return True
        self.emit(list(plan.calls), out)
        first = next(i for i in range(len(out) - 1, -1, -1) if out[i].role == "assistant")
        out[first] = out[first].model_copy(update={"content": plan.text})
        return True

    def turn(self, plan: TurnPlan) -> list[Message]:
        out: list[Message] = []
        for _ in range(plan.preamble):
            out.append(Message(role="assistant", content="Let me check."))
            self.pos += 1
        if self.special(plan, out):
            return out
        failures: list[str] = []
        sequential = plan.sequential or plan.retry_errors or plan.echo_error
        if plan.calls and not sequential and not any(map(_has_ref, plan.calls)):
            groups: list[list[PlannedCall]] = [list(plan.calls)]
        else:
            groups = _steps(plan.calls)
        for group in groups:
            for planned, content in zip(group, self.emit(group, out), strict=True):
                if not parse_result(content)[1]:
                    continue
                if plan.echo_error:
                    out.append(Message(role="assistant", content=_error_text(content)))
                    self.pos += 1
                    return out
                failures.append(f"{planned.name} returned an error ({_error_text(content)})")
                if plan.retry_errors:
                    self.emit([planned], out)
        if plan.echo_error:
            raise PlayError("no call of this turn returns an error")
        text = plan.text
        if failures and plan.explain_errors:
            note = "Sorry: " + "; ".join(failures) + "."
            text = f"{note} {text}" if text else note
        if text:
            out.append(Message(role="assistant", content=text))
            self.pos += 1
        return out


def _steps(calls: Sequence[PlannedCall]) -> list[list[PlannedCall]]:
    """One call per message, except that neighbouring calls of the same ``step`` go together."""
    groups: list[list[PlannedCall]] = []
    for call in calls:
        if groups and call.step is not None and groups[-1][-1].step == call.step:
            groups[-1].append(call)
        else:
            groups.append([call])
    return groups


def _has_ref(call: PlannedCall) -> bool:
    """Whether an argument is taken from an earlier result (the call must wait for it)."""

    def inner(v: Any) -> bool:
        if isinstance(v, RefValue):
            return True
        if isinstance(v, dict):
            return any(inner(x) for x in v.values())
        if isinstance(v, list):
            return any(inner(x) for x in v)
        return False

    return any(inner(v) for v in call.arguments.values())


def _prop(schema: Any, key: str) -> Any:
    if not isinstance(schema, dict):
        return None
    props = schema.get("properties")
    return props.get(key) if isinstance(props, dict) else None


def play(
    case: Case, tools: Mapping[str, ToolSpec], plans: Sequence[TurnPlan]
) -> list[list[Message]]:
    """The per-turn messages of an agent following ``plans`` (raises :class:`PlayError`)."""
    return play_in_world(case, tools, plans, None).turns


@dataclass(frozen=True, kw_only=True)
class WorldPlay:
    """A played transcript and, with a world, the state and the writes after each turn."""

    turns: list[list[Message]]
    states: list[State] = field(default_factory=list)
    writes: list[list[StateWrite]] = field(default_factory=list)


def play_in_world(
    case: Case, tools: Mapping[str, ToolSpec], plans: Sequence[TurnPlan], world: World | None
) -> WorldPlay:
    """:func:`play` with ``world`` (a fresh one) answering the calls it knows."""
    player = _Player(case, tools, world)
    turns: list[list[Message]] = []
    states: list[State] = []
    writes: list[list[StateWrite]] = []
    for plan in plans:
        try:
            turns.append(player.turn(plan))
        except NoWitness as exc:
            raise PlayError(str(exc)) from None
        if world is not None:
            states.append(world.snapshot())
            writes.append(player.sim.writes)
            player.sim.writes = []
    return WorldPlay(turns=turns, states=states, writes=writes)


def error_tools(case: Case) -> list[str]:
    """Tools whose scripted simulation (of the case, or the tool's own) returns an error."""
    out: list[str] = []
    for name, entry in case.tool_results.items():
        sims = entry if isinstance(entry, list) else [entry]
        if any(s.fault is not None for s in sims):
            out.append(name)
    return out


def uses_fakes(case: Case, tools: Mapping[str, ToolSpec]) -> bool:
    """Whether a tool of the case is a Python fake (``function:``), which playing does not
    call."""
    sims = [t.simulation for t in tools.values() if t.simulation is not None]
    for entry in case.tool_results.values():
        sims.extend(entry if isinstance(entry, list) else [entry])
    return any(s.function is not None for s in sims)
