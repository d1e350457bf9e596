"""Tool names that come from a trace or a logged conversation follow the rule a tools file's
names follow (docs/tool-formats.md#tool-names): ``capture`` refuses a conversation naming a tool
no provider accepts, in one line naming the file, the line, the trace and the field, and writes
nothing; ``score --responses`` of the same trace is not refused (refusing would lose the whole
scoring run): the call is scored, so a name that is not the expected one fails that case."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.exchange._capture import capture_cases, responses_from_traces

FIXTURES = Path(__file__).parent / "fixtures" / "otel"
EVIL = "book\nFORGED\r\x1b[31m\x1b]8;;http://x/\x07\u202e"


def _renamed(value: Any, old: str, new: str) -> Any:
    """``value`` with the tool name ``old`` made ``new`` everywhere, JSON-in-string included."""
    if isinstance(value, dict):
        return {k: _renamed(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    if isinstance(value, str):
        if value == old:
            return new
        if value[:1] in "[{":
            try:
                return json.dumps(_renamed(json.loads(value), old, new))
            except ValueError:
                return value
    return value


def _trace(tmp_path: Path, name: str) -> Path:
    doc = json.loads((FIXTURES / "failed_booking.json").read_text(encoding="utf-8"))
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_renamed(doc, "book_flight", name)), encoding="utf-8")
    return path


def _conversation(tmp_path: Path, name: str, *, in_tools: bool = True) -> Path:
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": "{}"}}
    tool = {"type": "function", "function": {"name": name if in_tools else "ok_tool",
            "parameters": {"type": "object", "properties": {}}}}  # fmt: skip
    conv = {"messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "r"},
        {"role": "assistant", "content": "done"},
    ], "tools": [tool]}  # fmt: skip
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(conv), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", [EVIL, "get weather", "../etc/passwd", "x" * 129])
def test_capture_refuses_a_trace_naming_a_tool_no_provider_accepts(
    tmp_path: Path, name: str
) -> None:
    path = _trace(tmp_path, name)
    with pytest.raises(UserError) as info:
        capture_cases([path])
    message = str(info.value)
    assert message.startswith(f"{path}:1: trace 5b8efff798038103d269b633813fc60c: ")
    assert ".name: " in message
    assert "\n" not in message
    assert "\r" not in message
    assert "\x1b" not in message
    assert "\u202e" not in message


def test_capture_names_the_field_of_a_logged_conversation(tmp_path: Path) -> None:
    with pytest.raises(UserError) as info:
        capture_cases([_conversation(tmp_path, EVIL)])
    assert ": tools[0].name: 'book\\nFORGED\\r\\x1b[31m" in str(info.value)
    with pytest.raises(UserError) as info:  # the call alone names it
        capture_cases([_conversation(tmp_path, "get weather", in_tools=False)])
    assert str(info.value).startswith(f"{tmp_path / 'conv.json'}:1: trace ")
    assert ": messages[1].tool_calls[0].name: 'get weather' holds a space;" in str(info.value)


@pytest.mark.parametrize("name", ["book_flight", "travel.book_flight", "travel/book-flight:v2"])
def test_capture_keeps_names_a_provider_accepts(tmp_path: Path, name: str) -> None:
    (captured,) = capture_cases([_trace(tmp_path, name)])
    assert [c["name"] for c in captured.data["expect"]["tool_calls"]] == [name]


def test_capture_cli_exits_2_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "cases.jsonl"
    args = ["capture", str(_trace(tmp_path, EVIL)), "-o", str(out)]
    result = CliRunner().invoke(cli, args, color=True)
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "\x1b" not in result.output
    assert "\x07" not in result.output
    assert ": trace 5b8efff798038103d269b633813fc60c: " in result.output
    assert "holds '\\n'; a tool name is 1-128 of" in result.output
    assert not out.exists()


def test_scoring_a_trace_keeps_the_run_and_fails_on_the_name(tmp_path: Path) -> None:
    (response,) = responses_from_traces(_trace(tmp_path, EVIL))
    assert [c.name for c in response.calls] == [EVIL]  # not refused: scored as the call it is
