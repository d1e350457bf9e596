"""ToolTalk (Microsoft): one JSON file per conversation, with the API calls each reply made.

A file holds ``{name, conversation_id, suites_used, apis_used, user, metadata, scenario,
conversation}``; ``conversation`` is a list of ``{role, text}`` turns, and an assistant turn may
carry ``apis``: ``[{request: {api_name, parameters}, response, exception}]``, the calls it made
(in order) before it replied.

Each conversation becomes one multi-turn case (docs/importers.md explains why):

- ``system``: the user data ToolTalk gives its assistant (location, timestamp, username and
  session token when logged in), in agentgauge's wording;
- ``input``: the first user turn; ``turns``: every later user turn that got a reply;
- ``expect`` (of the first reply and of each turn): the calls the recorded reply made, every
  recorded argument exactly (``SendEmail``'s ``to`` in any order), extra arguments allowed, in
  that order (other calls may come between, but no call of an action API the reply did not make:
  those are ``forbidden_tools``, ToolTalk's "bad actions"); a reply that made no call expects
  ``no_tool``; ``reference`` is the reply's text;
- ``tool_results``: per API, the recorded responses in conversation order (a recorded exception
  becomes an ``error`` fault with its text), so the simulated APIs answer as the real ones did;
- ``tools``: ToolTalk's data holds no API documentation, so each API's schema is derived from
  the calls recorded in the imported files (parameter names and JSON types; a parameter present
  in every recorded call is required); the case offers the conversation's ``apis_used``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import orjson

from ..errors import UserError
from ..schema import (
    ArgMatcher,
    CallExpectation,
    Case,
    Expectation,
    JsonValue,
    Message,
    Suite,
    ToolSim,
    ToolSpec,
    Turn,
)
from ._common import ImportOptions, Record, read_text, source_metadata, unique_id

__all__ = ["import_tooltalk"]

#: ToolTalk's plugins ("suites") and their APIs
_PLUGINS: Final[dict[str, tuple[str, ...]]] = {
    "AccountTools": (
        "ChangePassword",
        "DeleteAccount",
        "GetAccountInformation",
        "LogoutUser",
        "QueryUser",
        "RegisterUser",
        "ResetPassword",
        "SendVerificationCode",
        "UpdateAccountInformation",
        "UserLogin",
    ),
    "Alarm": ("AddAlarm", "DeleteAlarm", "FindAlarms"),
    "Calendar": ("CreateEvent", "DeleteEvent", "ModifyEvent", "QueryCalendar"),
    "Email": ("SearchInbox", "SendEmail"),
    "Messages": ("SearchMessages", "SendMessage"),
    "Reminder": ("AddReminder", "CompleteReminder", "DeleteReminder", "GetReminders"),
    "Weather": ("CurrentWeather", "ForecastWeather", "HistoricWeather"),
}
#: the APIs ToolTalk calls actions (``is_action``): a successful call of one that matches no
#: ground-truth call is a "bad action", which fails the conversation
_ACTIONS: Final = frozenset(
    {
        "ChangePassword",
        "DeleteAccount",
        "LogoutUser",
        "RegisterUser",
        "ResetPassword",
        "SendVerificationCode",
        "UpdateAccountInformation",
        "UserLogin",
        "AddAlarm",
        "DeleteAlarm",
        "CreateEvent",
        "DeleteEvent",
        "ModifyEvent",
        "SendEmail",
        "SendMessage",
        "AddReminder",
        "CompleteReminder",
        "DeleteReminder",
    }
)
#: (API, parameter) compared as a set by ToolTalk's checker
_UNORDERED: Final = frozenset({("SendEmail", "to")})
_REPLAY_NOTE: Final = (
    "tool_results replay the recorded responses in call order; ToolTalk's APIs are stateful, "
    "so a different sequence of calls gets responses that do not fit it"
)
_PLUGIN_OF: Final = {api: plugin for plugin, apis in _PLUGINS.items() for api in apis}


@dataclass
class _Call:
    name: str
    arguments: dict[str, JsonValue]
    response: JsonValue
    exception: str | None


@dataclass
class _Step:
    """User text (one or more consecutive user turns) and the reply it got, if any."""

    users: list[str]
    calls: list[_Call] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    answered: bool = False


def _files(sources: list[Path]) -> list[Path]:
    files: list[Path] = []
    for src in sources:
        if src.is_dir():
            found = sorted(src.rglob("*.json"))
            if not found:
                raise UserError(f"{src}: no ToolTalk conversation files (*.json) found")
            files.extend(p for p in found if p not in files)
        elif not src.exists():
            raise UserError(f"{src}: no such file or folder")
        elif src not in files:
            files.append(src)
    return files


def _read(path: Path) -> Record:
    text = read_text(path)
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as err:
        raise UserError(f"{path}:{err.lineno}: invalid JSON: {err.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get("conversation"), list):
        raise UserError(f"{path}:1: expected a ToolTalk conversation {{name, conversation, ...}}")
    return Record(path, 1, data)


def _call(api: Any, where: str) -> _Call:
    request = api.get("request") if isinstance(api, dict) else None
    if not isinstance(request, dict) or not isinstance(request.get("api_name"), str):
        raise UserError(f"{where}: expected {{request: {{api_name, parameters}}, response}}")
    params = request.get("parameters") or {}
    if not isinstance(params, dict):
        raise UserError(f"{where}: request.parameters: expected an object")
    exception = api.get("exception")
    return _Call(
        name=request["api_name"],
        arguments=params,
        response=api.get("response"),
        exception=str(exception) if exception is not None else None,
    )


def _steps(conversation: list[Any], where: str) -> list[_Step]:
    steps: list[_Step] = []
    for i, turn in enumerate(conversation):
        here = f"{where}: conversation[{i}]"
        if not isinstance(turn, dict) or turn.get("role") not in ("user", "assistant"):
            raise UserError(f"{here}: expected {{role: user|assistant, text}}")
        text = turn.get("text")
        if turn["role"] == "user":
            if not isinstance(text, str):
                raise UserError(f"{here}: text: expected a string")
            if steps and not steps[-1].answered:
                steps[-1].users.append(text)  # consecutive user turns before one reply
            else:
                steps.append(_Step(users=[text]))
            continue
        if not steps:
            raise UserError(f"{here}: the conversation starts with an assistant turn")
        step = steps[-1]
        step.answered = True
        apis = turn.get("apis") or []
        if not isinstance(apis, list):
            raise UserError(f"{here}: apis: expected a list")
        step.calls.extend(_call(a, f"{here}.apis[{j}]") for j, a in enumerate(apis))
        if isinstance(text, str) and text:
            step.texts.append(text)
    if not steps:
        raise UserError(f"{where}: the conversation has no user turn")
    return steps


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _schema_of(values: list[Any]) -> dict[str, JsonValue]:
    types = sorted({_json_type(v) for v in values} - {"null"})
    schema: dict[str, JsonValue] = {}
    if len(types) == 1:
        schema["type"] = types[0]
    elif types:
        schema["type"] = ["number" if t == "integer" and "number" in types else t for t in types]
    if types == ["array"]:
        items = [x for v in values for x in v]
        if items:
            schema["items"] = _schema_of(items)
    return schema


def _derive_tools(calls: Iterable[_Call], names: Iterable[str]) -> dict[str, ToolSpec]:
    seen: dict[str, list[dict[str, JsonValue]]] = {}
    for call in calls:
        seen.setdefault(call.name, []).append(call.arguments)
    for name in names:
        seen.setdefault(name, [])
    tools: dict[str, ToolSpec] = {}
    for name in sorted(seen):
        recorded = seen[name]
        params: dict[str, list[Any]] = {}
        for args in recorded:
            for key, value in args.items():
                params.setdefault(key, []).append(value)
        properties: dict[str, JsonValue] = {}
        for key, values in params.items():
            prop = _schema_of(values)
            if key == "session_token":
                prop["description"] = "Session token of the logged-in user."
            properties[key] = prop
        required = [k for k, v in params.items() if len(v) == len(recorded)]
        plugin = _PLUGIN_OF.get(name)
        description = f"ToolTalk API {name}" + (f" ({plugin} plugin)" if plugin else "") + ". "
        description += (
            f"Parameters derived from {len(recorded)} recorded call(s)."
            if recorded
            else "No recorded call: parameters unknown."
        )
        parameters: dict[str, JsonValue] = {"type": "object", "properties": properties}
        if required:
            parameters["required"] = required
        tools[name] = ToolSpec(name=name, description=description, parameters=parameters)
    return tools


def _system(user: Any, meta: Any) -> str:
    user = user if isinstance(user, dict) else {}
    meta = meta if isinstance(meta, dict) else {}
    lines = ["Facts about the user you are assisting:"]
    if meta.get("location"):
        lines.append(f"- location: {meta['location']}")
    if meta.get("timestamp"):
        lines.append(f"- current time: {meta['timestamp']}")
    if meta.get("username"):
        lines.append(f"- logged in as: {meta['username']}")
        if meta.get("session_token"):
            lines.append(f"- session_token: {meta['session_token']}")
    else:
        lines.append("- not logged in")
    return "\n".join(lines)


def _matcher(api: str, param: str, value: JsonValue) -> ArgMatcher:
    if (api, param) in _UNORDERED and isinstance(value, list):
        return ArgMatcher(value=value, unordered=True)
    return ArgMatcher(value=value)


def _expectation(step: _Step, offered: list[str]) -> Expectation:
    reference = "\n\n".join(step.texts) or None
    if not step.calls:
        return Expectation(behavior="no_tool", reference=reference)
    calls = [
        CallExpectation(
            name=c.name,
            arguments={k: _matcher(c.name, k, v) for k, v in c.arguments.items()},
            extra_arguments="allow",
        )
        for c in step.calls
    ]
    # other calls may come between the expected ones (lookups), but not an action this reply
    # did not make: ToolTalk fails such a "bad action"
    expected = {c.name for c in step.calls}
    forbidden = [a for a in offered if a in _ACTIONS and a not in expected]
    return Expectation(
        tool_calls=calls, order="in_order", forbidden_tools=forbidden, reference=reference
    )


def _sim(call: _Call) -> ToolSim:
    if call.exception is not None:
        return ToolSim(fault="error", error=call.exception)
    return ToolSim(result=call.response if call.response is not None else {})


def _case(rec: Record, steps: list[_Step], options: ImportOptions, taken: set[str]) -> Case:
    data = rec.data
    where = rec.where
    answered = [s for s in steps if s.answered]
    if not answered:
        raise UserError(f"{where}: no assistant turn: nothing to expect")
    unanswered = [u for s in steps if not s.answered for u in s.users]
    first, later = answered[0], answered[1:]
    tool_results: dict[str, list[ToolSim]] = {}
    for step in answered:
        for call in step.calls:
            tool_results.setdefault(call.name, []).append(_sim(call))
    name = str(data.get("name") or rec.file.stem)
    easy = name.endswith("-easy") or rec.file.parent.name == "easy"
    apis_used = [str(a) for a in data.get("apis_used") or []]
    called = [c.name for s in answered for c in s.calls]
    offered = list(dict.fromkeys([*apis_used, *called]))
    meta = source_metadata("tooltalk", rec, data.get("conversation_id"))
    meta["tooltalk_name"] = name
    meta["tooltalk_set"] = "easy" if easy else "tooltalk"
    for key in ("suites_used", "apis_used", "user", "metadata"):
        if data.get(key) is not None:
            meta[f"tooltalk_{key}"] = data[key]
    if unanswered:
        meta["unanswered_user_turns"] = unanswered
    meta["tool_results_note"] = _REPLAY_NOTE
    scenario = data.get("scenario")
    input_: str | list[Message] = (
        first.users[0]
        if len(first.users) == 1
        else [Message(role="user", content=u) for u in first.users]
    )
    suites = [str(s) for s in data.get("suites_used") or []]
    return Case(
        id=unique_id(name, taken),
        category=options.category or ("tool_call" if called else "no_tool"),
        difficulty="easy" if easy else "hard",
        tags=["tooltalk", "easy" if easy else "hard", *suites],
        description=scenario if isinstance(scenario, str) and scenario else None,
        input=input_,
        system=_system(data.get("user"), data.get("metadata")),
        tools=list(offered),
        expect=_expectation(first, offered),
        turns=[Turn(user="\n\n".join(s.users), expect=_expectation(s, offered)) for s in later],
        tool_results=dict(tool_results),
        metadata=meta,
    )


def import_tooltalk(sources: list[Path], options: ImportOptions) -> Suite:
    """Import ToolTalk conversation files (or folders of them) as multi-turn cases."""
    conversations: list[tuple[Record, list[_Step]]] = []
    counts: dict[str, int] = {}
    for path in _files(sources):
        if options.limit is not None and counts.get(str(path.parent), 0) >= options.limit:
            continue
        rec = _read(path)
        conversations.append((rec, _steps(rec.data["conversation"], rec.where)))
        counts[str(path.parent)] = counts.get(str(path.parent), 0) + 1
    calls = [c for _, steps in conversations for s in steps for c in s.calls]
    names = {str(a) for rec, _ in conversations for a in rec.data.get("apis_used") or []}
    tools = _derive_tools(calls, names)
    taken: set[str] = set()
    cases: list[Case] = []
    for rec, steps in conversations:
        try:
            cases.append(_case(rec, steps, options, taken))
        except ValueError as err:  # a pydantic check of the assembled case
            raise UserError(f"{rec.where}: {str(err).splitlines()[0]}") from None
    return Suite(
        name=options.name or "tooltalk",
        description="Imported from ToolTalk (MIT): "
        + ", ".join(f"{Path(d).name}: {n}" for d, n in counts.items())
        + " conversations; tool schemas derived from the recorded calls",
        tools=list(tools.values()),
        cases=cases,
    )
