"""Case inputs pasted in a vendor's message format load as conversations; bad ones name a line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io import load_cases, load_suite
from agentgauge.schema import ToolCall

OPENAI_INPUT = [
    {"role": "user", "content": "Weather in Paris?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 18}'},
    {"role": "user", "content": "And in Rome?"},
]


def test_openai_messages_as_a_case_input_load(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    case = {"id": "c1", "input": OPENAI_INPUT, "expect": {"tool_calls": [{"name": "get_weather"}]}}
    path.write_text(json.dumps(case) + "\n")
    (loaded,) = load_cases(path)
    assert isinstance(loaded.input, list)
    assert loaded.input[1].tool_calls == [
        ToolCall(id="call_1", name="get_weather", arguments={"city": "Paris"})
    ]


def test_anthropic_body_in_a_yaml_suite_loads(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: s\n"
        "cases:\n"
        "  - id: a\n"
        "    input:\n"
        "      system: Be brief.\n"
        "      messages:\n"
        "        - {role: user, content: [{type: text, text: Hi}]}\n"
    )
    suite = load_suite(path)
    conversation = suite.cases[0].input
    assert isinstance(conversation, list)
    assert [m.role for m in conversation] == ["system", "user"]


def test_a_bad_vendor_message_is_reported_at_its_file_line(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: s\n"
        "cases:\n"
        "  - id: a\n"
        "    input:\n"
        "      - {role: user, content: Hi}\n"
        "      - role: assistant\n"
        "        tool_calls: [{id: x, type: function, function: {name: f, arguments: '{bad'}}]\n"
    )
    with pytest.raises(UserError) as info:
        load_suite(path)
    assert str(info.value) == (
        f"{path}:6: cases[0].input[1]: tool_calls[0].function: arguments are not valid JSON"
    )


def test_a_typo_in_our_own_message_form_is_still_an_unknown_field(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    case = {"id": "c", "input": [{"role": "tool", "tool_call_id": "c1", "contnet": "x"}]}
    path.write_text(json.dumps(case) + "\n")
    with pytest.raises(UserError, match=r"cases.jsonl:1: input\[0\].contnet"):
        load_cases(path)
