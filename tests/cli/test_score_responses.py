"""Recorded responses: native JSONL and BFCL result files, decoded like BFCL, with clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import UserError
from agentgauge.exchange._responses import decode_python_calls, read_responses, restore_tool_name


def write(tmp_path: Path, rows: list[Any]) -> Path:
    path = tmp_path / "responses.jsonl"
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows),
        encoding="utf-8",
    )
    return path


def test_python_call_syntax_like_bfcl() -> None:
    (call,) = decode_python_calls("[math.factorial(number=5)]")
    assert (call.name, call.arguments) == ("math.factorial", {"number": 5})
    calls = decode_python_calls("```\nf(a='x', b=[1, 2], c={'k': (1, 2)}), g(d=-3.5, e=None)\n```")
    assert [c.name for c in calls] == ["f", "g"]
    assert calls[0].arguments == {"a": "x", "b": [1, 2], "c": {"k": (1, 2)}}
    assert calls[1].arguments == {"d": -3.5, "e": None}
    # BFCL: positional arguments are dropped, names stay strings, argument-less calls become text
    (call,) = decode_python_calls("f(1, x=y, t=now())")
    assert call.arguments == {"x": "y", "t": "now()"}
    # arithmetic on literals is evaluated safely
    assert decode_python_calls("f(x=2*3+1)")[0].arguments == {"x": 7}
    assert decode_python_calls("[]") == []


@pytest.mark.parametrize(
    "text",
    [
        "I cannot help with that.",
        "f(x=lambda: 1)",
        "f(x=2**100000)",
        "[1, 2]",
    ],
)
def test_undecodable_python_is_an_error_not_code(text: str) -> None:
    with pytest.raises(ValueError):
        decode_python_calls(text)


def test_calls_inside_arguments_are_text_never_run() -> None:
    (call,) = decode_python_calls("f(x=__import__('os').system('rm -rf /tmp/x'))")
    assert call.arguments == {"x": "__import__('os').system('rm -rf /tmp/x')"}


def test_restore_dotted_names() -> None:
    assert restore_tool_name("math_factorial", ["math.factorial"]) == "math.factorial"
    assert restore_tool_name("get_x", ["get_x", "get.x"]) == "get_x"
    assert restore_tool_name("other", ["math.factorial"]) == "other"


def test_read_native_and_bfcl_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [
            {"case_id": "a", "calls": [{"name": "f", "arguments": {"x": 1}}]},
            {"case_id": "a", "trial": 1, "calls": [{"name": "f", "arguments": '{"x": 2}'}]},
            {"case_id": "b", "text": "Hello"},
            {"id": "c", "result": [{"math_hypot": '{"x": 4, "y": 5}'}], "latency": 1.2},
            {"id": "d", "result": "[math.hypot(x=4, y=5)]"},
            {"id": "e", "result": "Sorry, no."},
            {"id": "f", "result": [{"g": "{not json"}]},
            {
                "case_id": "g",
                "messages": [
                    {"role": "assistant", "tool_calls": [{"name": "f", "arguments": {}}]},
                    {"role": "tool", "content": "1", "tool_call_id": None},
                    {"role": "assistant", "content": "Done."},
                ],
            },
        ],
    )
    got = {(r.case_id, r.trial): r for r in read_responses(path)}
    assert got[("a", 1)].calls[0].arguments == {"x": 2}
    assert got[("b", 0)].text == "Hello"
    assert got[("b", 0)].calls == []
    fc = got[("c", 0)]
    assert fc.form == "bfcl-fc"
    (turn,) = fc.turns(["math.hypot"])
    assert turn[0].tool_calls[0].name == "math.hypot"
    assert got[("d", 0)].calls[0].arguments == {"x": 4, "y": 5}
    assert got[("e", 0)].calls == []
    assert got[("e", 0)].decode_error
    assert got[("f", 0)].calls == []
    assert "not valid JSON" in str(got[("f", 0)].decode_error)
    transcript = got[("g", 0)]
    assert transcript.text == "Done."
    assert [c.name for c in transcript.calls] == ["f"]
    assert len(transcript.turns([])[0]) == 3


def test_bad_lines_are_reported_with_file_and_line(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        [
            {"case_id": "a"},
            "{not json",
            {"case_id": "a"},
            {"case_id": "b", "colls": []},
            {"something": 1},
            {"case_id": "c", "calls": [{"name": "f", "arguments": [1]}]},
        ],
    )
    with pytest.raises(UserError) as err:
        read_responses(path)
    problems = err.value.problems
    assert problems[0].startswith(f"{path}:2: invalid JSON")
    assert any(p.startswith(f"{path}:3: a second response for case 'a'") for p in problems)
    assert any(p.startswith(f"{path}:4: unknown field(s) ['colls']") for p in problems)
    assert any(p.startswith(f"{path}:5: not a response") for p in problems)
    assert any(p.startswith(f"{path}:6: calls[0].arguments: expected an object") for p in problems)


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such responses file"):
        read_responses(tmp_path / "nope.jsonl")
