"""Hostile traces and transcripts: every rejection is a one-line UserError, never a traceback."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import UserError
from agentgauge.exchange._capture import capture_cases, responses_from_traces
from agentgauge.io import (
    TRANSCRIPT_FORMATS,
    TranscriptError,
    messages_from_data,
    messages_to_format,
)
from agentgauge.schema import Message, ToolCall

FIXTURES = Path(__file__).parent / "fixtures" / "otel"
_WEIRD: list[Any] = [
    *(None, 1, -1, 1.5, True, "", "x", [], {}, [1], {"a": 1}, "{", "[1]"),
    '[{"role": "user"}]',
    '[{"role":"user","parts":[{"type":"tool_call"}]}]',
]


def _mutate(x: Any, rnd: random.Random) -> None:
    if isinstance(x, dict) and x:
        key = rnd.choice(list(x))
        if rnd.random() < 0.1:
            del x[key]
        elif rnd.random() < 0.3 or not isinstance(x[key], dict | list):
            x[key] = copy.deepcopy(rnd.choice(_WEIRD))
        else:
            _mutate(x[key], rnd)
    elif isinstance(x, list) and x:
        i = rnd.randrange(len(x))
        if rnd.random() < 0.3 or not isinstance(x[i], dict | list):
            x[i] = copy.deepcopy(rnd.choice(_WEIRD))
        else:
            _mutate(x[i], rnd)


def _mutate_attribute_json(doc: Any, rnd: random.Random) -> None:
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attr in span["attributes"]:
            text = attr["value"].get("stringValue")
            if isinstance(text, str) and text[:1] in "[{" and rnd.random() < 0.3:
                data = json.loads(text)
                for _ in range(3):
                    _mutate(data, rnd)
                attr["value"]["stringValue"] = json.dumps(data)


def _refusal(read: Callable[[Any], object], arg: Any) -> str | None:
    """None when ``read(arg)`` reads it, else the one refusal it raised."""
    try:
        read(arg)
    except (UserError, TranscriptError) as err:
        return str(err)
    return None


def test_mutated_traces_are_read_or_refused_in_one_line(tmp_path: Path) -> None:
    docs = [json.loads((FIXTURES / "failed_booking.json").read_text())]
    docs += [
        json.loads(x) for x in (FIXTURES / "weather_openllmetry.jsonl").read_text().split("\n") if x
    ]
    for seed in range(150):
        rnd = random.Random(seed)
        doc = copy.deepcopy(rnd.choice(docs))
        if seed % 2:
            _mutate_attribute_json(doc, rnd)
        else:
            for _ in range(rnd.randint(1, 4)):
                _mutate(doc, rnd)
        path = tmp_path / f"t{seed}.json"
        path.write_text(json.dumps(doc))
        for problem in (_refusal(capture_cases, [path]), _refusal(responses_from_traces, path)):
            assert problem is None or "\n" not in problem, seed
            assert problem is None or problem.startswith(str(path)), (seed, problem)


def test_mutated_transcripts_convert_or_raise_transcript_errors() -> None:
    conversation = [
        Message(role="system", content="s"),
        Message(role="user", content="u"),
        Message(role="assistant", tool_calls=[ToolCall(id="1", name="f", arguments={"a": 1})]),
        Message(role="tool", tool_call_id="1", name="f", content="r"),
        Message(role="assistant", content="done"),
    ]
    for seed in range(600):
        rnd = random.Random(seed)
        fmt = TRANSCRIPT_FORMATS[seed % len(TRANSCRIPT_FORMATS)]
        data = json.loads(json.dumps(messages_to_format(conversation, fmt)))  # type: ignore[arg-type]
        for _ in range(rnd.randint(1, 3)):
            _mutate(data, rnd)
        problem = _refusal(messages_from_data, data)
        assert problem is None or "\n" not in problem, seed


def test_json_nested_past_the_recursion_limit_in_an_attribute_is_no_crash(tmp_path: Path) -> None:
    doc = json.loads((FIXTURES / "failed_booking.json").read_text())
    for span in doc["resourceSpans"][0]["scopeSpans"][0]["spans"]:
        for attr in span["attributes"]:
            if attr["key"] == "gen_ai.input.messages":
                attr["value"]["stringValue"] = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(UserError) as info:  # no model call's input can be read: no user turn
        capture_cases([path])
    assert str(info.value) == (
        f"{path}:1: trace 5b8efff798038103d269b633813fc60c: the conversation has no user message"
    )


def test_a_document_nested_too_deep_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"resourceSpans": ' + "[" * 5000 + "]" * 5000 + "}")
    with pytest.raises(UserError) as info:
        capture_cases([path])
    assert str(info.value).startswith(f"{path}:1:")
    assert "nested deeper" in str(info.value)
