"""The ToolTalk importer: conversations as multi-turn cases, replayed results, derived schemas."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.io import load_suite
from agentgauge.io.importers import ImportOptions, import_suite
from agentgauge.schema import ArgMatcher, Case, Message, Suite, ToolCall, ToolSim, ToolSpec
from agentgauge.scoring import score_case
from agentgauge.suites._export import write_suite


def _api(name: str, params: dict[str, Any], response: Any, exception: str | None = None) -> Any:
    return {
        "request": {"api_name": name, "parameters": params},
        "response": response,
        "exception": exception,
    }


_TOKEN = "tok-1"
_CONVERSATION: dict[str, Any] = {
    "name": "Alarm-Reminder-AddAlarm-0",
    "conversation_id": "c-0",
    "suites_used": ["Alarm", "Reminder"],
    "apis_used": ["AddAlarm", "GetReminders", "DeleteAlarm"],
    "scenario": "The user sets an alarm, then checks reminders.",
    "user": {"username": "kim", "email": "kim@example.org", "password": "pw"},
    "metadata": {
        "location": "Oslo",
        "timestamp": "2024-01-02 07:00:00",
        "session_token": _TOKEN,
        "username": "kim",
    },
    "conversation": [
        {"index": 0, "role": "user", "text": "Wake me at 6 tomorrow."},
        {
            "index": 1,
            "role": "assistant",
            "text": "Alarm set for 06:00.",
            "apis": [
                _api("AddAlarm", {"session_token": _TOKEN, "time": "6"}, None, "Bad time."),
                _api("AddAlarm", {"session_token": _TOKEN, "time": "06:00:00"}, {"alarm_id": "a1"}),
            ],
        },
        {"index": 2, "role": "user", "text": "Thanks."},
        {"index": 3, "role": "assistant", "text": "Anything else?"},
        {"index": 4, "role": "user", "text": "What are my reminders?"},
        {
            "index": 5,
            "role": "assistant",
            "text": "You have one: buy milk.",
            "apis": [
                _api(
                    "GetReminders",
                    {"session_token": _TOKEN},
                    {"reminders": [{"task": "buy milk", "due_date": None}]},
                )
            ],
        },
        {"index": 6, "role": "user", "text": "Bye!"},
    ],
}


def _write(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def _import(*sources: Path, **kwargs: Any) -> Suite:
    return import_suite("tooltalk", list(sources), ImportOptions(**kwargs))


def test_conversation_becomes_a_multi_turn_case(tmp_path: Path) -> None:
    suite = _import(_write(tmp_path / "tooltalk" / "a.json", _CONVERSATION))
    (case,) = suite.cases
    assert case.id == "Alarm-Reminder-AddAlarm-0"
    assert (case.category, case.difficulty) == ("tool_call", "hard")
    assert case.tags == ["tooltalk", "hard", "Alarm", "Reminder"]
    assert case.description == "The user sets an alarm, then checks reminders."
    assert case.input == "Wake me at 6 tomorrow."
    assert case.system is not None
    for fact in ("Oslo", "2024-01-02 07:00:00", "kim", _TOKEN):
        assert fact in case.system
    # first reply: both calls, in order, recorded values exactly, extra arguments allowed
    first = case.expect
    assert first.behavior == "tool_call"
    assert first.order == "in_order"
    assert [c.name for c in first.tool_calls] == ["AddAlarm", "AddAlarm"]
    assert first.tool_calls[1].arguments["time"] == ArgMatcher(value="06:00:00")
    assert first.tool_calls[0].extra_arguments == "allow"
    assert first.reference == "Alarm set for 06:00."
    # later user turns; a reply without calls expects no tool; the unanswered "Bye!" is dropped
    assert [t.user for t in case.turns] == ["Thanks.", "What are my reminders?"]
    assert case.turns[0].expect is not None
    assert case.turns[0].expect.behavior == "no_tool"
    assert case.turns[0].expect.reference == "Anything else?"
    assert case.turns[1].expect is not None
    assert [c.name for c in case.turns[1].expect.tool_calls] == ["GetReminders"]
    assert case.metadata["unanswered_user_turns"] == ["Bye!"]
    assert case.metadata["source_id"] == "c-0"
    assert case.metadata["tooltalk_set"] == "tooltalk"


def test_recorded_responses_are_replayed_in_order(tmp_path: Path) -> None:
    suite = _import(_write(tmp_path / "a.json", _CONVERSATION))
    (case,) = suite.cases
    alarms = case.tool_results["AddAlarm"]
    assert alarms == [
        ToolSim(fault="error", error="Bad time."),
        ToolSim(result={"alarm_id": "a1"}),
    ]
    assert case.tool_results["GetReminders"] == [
        ToolSim(result={"reminders": [{"task": "buy milk", "due_date": None}]})
    ]


def test_schemas_are_derived_from_the_recorded_calls(tmp_path: Path) -> None:
    suite = _import(_write(tmp_path / "a.json", _CONVERSATION))
    tools = {t.name: t for t in suite.tools}
    assert set(tools) == {"AddAlarm", "GetReminders", "DeleteAlarm"}
    alarm = tools["AddAlarm"]
    assert alarm.properties()["time"] == {"type": "string"}
    assert alarm.required() == ["session_token", "time"]
    assert "Alarm plugin" in alarm.description
    assert "2 recorded call" in alarm.description
    # offered in apis_used but never called: known by name only
    assert tools["DeleteAlarm"].properties() == {}
    assert "No recorded call" in tools["DeleteAlarm"].description
    (case,) = suite.cases
    assert case.tools == ["AddAlarm", "GetReminders", "DeleteAlarm"]


def test_array_types_optional_parameters_and_easy_set(tmp_path: Path) -> None:
    convo = dict(
        _CONVERSATION,
        name="SendEmail-easy",
        apis_used=["SendEmail"],
        conversation=[
            {"role": "user", "text": "Mail Ann."},
            {"role": "user", "text": "Subject: hi."},
            {
                "role": "assistant",
                "text": "Sent.",
                "apis": [
                    _api("SendEmail", {"to": ["ann"], "subject": "hi"}, {"status": "ok"}),
                    _api("SendEmail", {"to": ["bo"], "body": "x"}, {"status": "ok"}),
                ],
            },
        ],
    )
    suite = _import(_write(tmp_path / "easy" / "SendEmail-easy.json", convo))
    (case,) = suite.cases
    assert case.difficulty == "easy"
    assert case.metadata["tooltalk_set"] == "easy"
    # two user turns before the first reply stay two user messages
    assert case.input == [
        Message(role="user", content="Mail Ann."),
        Message(role="user", content="Subject: hi."),
    ]
    (tool,) = suite.tools
    assert tool.properties()["to"] == {"type": "array", "items": {"type": "string"}}
    assert tool.required() == ["to"]


def test_folder_import_validate_and_round_trip(tmp_path: Path) -> None:
    root = tmp_path / "data"
    _write(root / "tooltalk" / "a.json", _CONVERSATION)
    _write(root / "easy" / "b.json", dict(_CONVERSATION, name="b"))
    suite = _import(root)
    assert [c.id for c in suite.cases] == ["b", "Alarm-Reminder-AddAlarm-0"]
    assert len(_import(root, limit=1).cases) == 2  # one per folder
    out = tmp_path / "out"
    write_suite(suite, out)
    assert load_suite(out).cases == suite.cases
    result = CliRunner().invoke(cli, ["validate", str(out)])
    assert result.exit_code == 0, result.output


def test_bad_files_are_user_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(UserError, match="invalid JSON"):
        _import(bad)
    with pytest.raises(UserError, match="ToolTalk conversation"):
        _import(_write(tmp_path / "list.json", {"name": "x"}))
    silent = dict(_CONVERSATION, conversation=[{"role": "user", "text": "hello?"}])
    with pytest.raises(UserError, match="no assistant turn"):
        _import(_write(tmp_path / "silent.json", silent))
    with pytest.raises(UserError, match="no such file"):
        _import(tmp_path / "missing.json")


@pytest.mark.shared_data
def test_real_tooltalk_data(shared_data: Path, tmp_path: Path) -> None:
    src = shared_data / "tooltalk"
    files = sorted(src.rglob("*.json"))
    raw = [json.loads(p.read_text(encoding="utf-8")) for p in files]
    suite = _import(src)
    assert len(suite.cases) == len(raw) == 78
    assert Counter(c.difficulty for c in suite.cases) == {"easy": 28, "hard": 50}
    # every recorded assistant reply is one expectation; every recorded call is expected and
    # its response replayed
    replies = sum(1 for d in raw for t in d["conversation"] if t["role"] == "assistant")
    calls = sum(len(t.get("apis") or []) for d in raw for t in d["conversation"])
    expectations = [e for c in suite.cases for e in [c.expect, *(t.expect for t in c.turns)]]
    assert len(expectations) == replies == 230
    assert sum(len(e.tool_calls) for e in expectations if e) == calls == 266
    replayed = sum(
        len(v) if isinstance(v, list) else 1 for c in suite.cases for v in c.tool_results.values()
    )
    assert replayed == calls
    assert Counter(e.behavior for e in expectations if e) == {"tool_call": 164, "no_tool": 66}
    assert len(suite.tools) == 28
    out = tmp_path / "tooltalk"
    write_suite(suite, out)
    result = CliRunner().invoke(cli, ["validate", str(out)])
    assert result.exit_code == 0, result.output


def _turns_of(case: Case, extra: dict[int, list[ToolCall]] | None = None) -> list[list[Message]]:
    """The recorded replies as the agent's turns (plus ``extra`` calls in some turns)."""
    turns: list[list[Message]] = []
    for i, exp in enumerate([case.expect, *(t.expect for t in case.turns)]):
        assert exp is not None
        calls = [
            ToolCall(name=c.name, arguments={k: m.value for k, m in c.arguments.items()})
            for c in exp.tool_calls
        ]
        calls += (extra or {}).get(i, [])
        turns.append([Message(role="assistant", content=exp.reference, tool_calls=calls)])
    return turns


def _tools(suite: Suite) -> dict[str, ToolSpec]:
    return {t.name: t for t in suite.tools}


def test_an_action_the_reply_did_not_make_fails_it(tmp_path: Path) -> None:
    suite = _import(_write(tmp_path / "tooltalk" / "a.json", _CONVERSATION))
    (case,) = suite.cases
    assert case.expect.forbidden_tools == ["DeleteAlarm"]
    assert score_case(case, _turns_of(case), _tools(suite)).status == "passed"
    # ToolTalk fails a successful action that matches no ground-truth call ("bad action");
    # this passed before, as in_order allows other calls between the expected ones
    delete = ToolCall(name="DeleteAlarm", arguments={"session_token": _TOKEN, "alarm_id": "a0"})
    bad = score_case(case, _turns_of(case, {0: [delete]}), _tools(suite))
    assert bad.status == "failed"
    assert "forbidden tool called: DeleteAlarm" in bad.explanation
    # a lookup (not an action) between the expected calls is fine, as in ToolTalk
    lookup = ToolCall(name="GetReminders", arguments={"session_token": _TOKEN})
    assert score_case(case, _turns_of(case, {0: [lookup]}), _tools(suite)).status == "passed"


def test_send_email_recipients_in_any_order(tmp_path: Path) -> None:
    recipients = ["ann@example.org", "bo@example.org"]
    email = {
        "session_token": _TOKEN,
        "to": recipients,
        "subject": "Hi",
        "body": "See you.",
    }
    conversation = {
        **_CONVERSATION,
        "apis_used": ["SendEmail"],
        "conversation": [
            {"index": 0, "role": "user", "text": "Email Ann and Bo: see you."},
            {
                "index": 1,
                "role": "assistant",
                "text": "Sent.",
                "apis": [_api("SendEmail", email, {"email_id": "e1"})],
            },
        ],
    }
    suite = _import(_write(tmp_path / "tooltalk" / "e.json", conversation))
    (case,) = suite.cases

    def status(to: list[str]) -> str:
        call = ToolCall(name="SendEmail", arguments={**email, "to": to})
        return score_case(
            case, [[Message(role="assistant", tool_calls=[call])]], _tools(suite)
        ).status

    assert status(recipients) == "passed"
    assert status(recipients[::-1]) == "passed"  # ToolTalk compares the recipients as a set
    assert status(recipients[:1]) == "failed"
    assert status(["ann@example.org", "cy@example.org"]) == "failed"


@pytest.mark.shared_data
def test_real_tooltalk_replay_passes_and_a_bad_action_fails(shared_data: Path) -> None:
    suite = _import(shared_data / "tooltalk")
    tools = _tools(suite)
    guarded = 0
    bad_caught = 0
    for case in suite.cases:
        assert score_case(case, _turns_of(case), tools).status == "passed", case.id
        expectations = [case.expect, *(t.expect for t in case.turns)]
        guarded += sum(1 for e in expectations if e is not None and e.forbidden_tools)
        i, exp = next(
            ((i, e) for i, e in enumerate(expectations) if e is not None and e.forbidden_tools),
            (-1, None),
        )
        if exp is None:
            continue
        action = ToolCall(name=exp.forbidden_tools[0], arguments={})
        verdict = score_case(case, _turns_of(case, {i: [action]}), tools)
        assert verdict.status == "failed", case.id
        bad_caught += 1
    assert (guarded, bad_caught) == (109, 47)
