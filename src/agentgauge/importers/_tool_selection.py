"""The ``test_dataset.json`` format of the tool-selection testing framework and its copies.

A JSON array of records::

    {"id": "A001", "type": "tool_selection", "user_query": "Weather in Oslo?",
     "ground_truth": {"function_call": {"name": "get_weather", "arguments": {"location": "Oslo"}}},
     "expected_response_type": "function_call"}
    {"id": "B001", "type": "text_response", "user_query": "Capital of France?",
     "ground_truth": {"text": "Paris.", "no_function_call": true}}

Tools come separately (``--tools tools.json``, OpenAI function format or any other known one).
The framework's own results file (``{"with_tools": {"test_results": [...]}}`` with
``model_function_call`` / ``model_text``) is read too; the model's answers are kept as
``metadata.response`` so they can be written as recorded responses and scored without a model.

How a record's kind is decided, first match wins: ``type``; ``expected_response_type``; a
``function_call`` ground truth; the id's letter (A tool selection, B text response,
C clarifying, D error, E not supported); otherwise a text response.

The framework's own verdict (its ``evaluator.py``): a record whose ground truth is text fails on
any function call, whatever its kind, and otherwise passes when the reply equals the text
(ignoring case and surrounding space) or its semantic judge calls them equivalent. So no text
record may call a tool here either, and each kind asks for the reply its reference text is:
an ``error`` record (an invalid date, an unknown place) is a ``clarify`` case — point out the
problem and ask for a valid value, as all 28 error references of the framework's dataset do —
not ``recover``, which scores only the handling of a failed tool call and so let any reply
pass when no tool fails. A function-call ground truth is compared as the framework's first check
compares it (:func:`_framework_matcher`): numbers as numbers, other values as lower-cased,
stripped text.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Final

import orjson

from ..errors import UserError
from ..formats import read_tools_file
from ..schema import (
    ArgMatcher,
    Behavior,
    CallExpectation,
    Case,
    Expectation,
    JsonValue,
    Suite,
    ToolSpec,
)
from ._common import (
    ImportOptions,
    Record,
    iter_json_records,
    limited,
    read_text,
    source_metadata,
    unique_id,
)

__all__ = ["import_tool_selection"]

#: kind -> (category, behavior)
_KINDS: Final[dict[str, tuple[str, Behavior]]] = {
    "tool_selection": ("tool_call", "tool_call"),
    "text_response": ("no_tool", "answer"),
    "clarifying": ("clarify", "clarify"),
    # invalid input from the user: no call, say what is wrong and ask for a valid value
    "error": ("error_handling", "clarify"),
    "not_supported": ("not_supported", "refuse"),
}
#: other spellings of the kinds met in copies of the format
_ALIASES: Final[dict[str, str]] = {
    "tool_call": "tool_selection",
    "function_call": "tool_selection",
    "tool": "tool_selection",
    "text": "text_response",
    "no_tool": "text_response",
    "direct": "text_response",
    "answer": "text_response",
    "clarification": "clarifying",
    "clarify": "clarifying",
    "clarifying_question": "clarifying",
    "error_handling": "error",
    "error_message": "error",
    "unsupported": "not_supported",
}
_ID_LETTERS: Final = {
    "A": "tool_selection",
    "B": "text_response",
    "C": "clarifying",
    "D": "error",
    "E": "not_supported",
}


def _kind_of(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    key = value.strip().lower().replace("-", "_").replace(" ", "_")
    if key in _KINDS:
        return key
    return _ALIASES.get(key)


def _decide_kind(row: dict[str, Any], where: str) -> str:
    for field in ("type", "expected_response_type"):
        if row.get(field) is not None:
            if field == "expected_response_type" and row[field] == "text":
                break  # any text kind (the framework's own value): the id letter says which
            kind = _kind_of(row[field])
            if kind is None:
                known = ", ".join(_KINDS)
                raise UserError(f"{where}: {field}: unknown value {row[field]!r} (known: {known})")
            return kind
    truth = row.get("ground_truth")
    if isinstance(truth, dict) and truth.get("function_call"):
        return "tool_selection"
    match = re.match(r"([A-Ea-e])\d", str(row.get("id", "")))
    if match:
        return _ID_LETTERS[match.group(1).upper()]
    return "text_response"


def _expected_call(truth: dict[str, Any], where: str) -> tuple[str, dict[str, JsonValue]]:
    call = truth.get("function_call")
    if not isinstance(call, dict) or not isinstance(call.get("name"), str) or not call["name"]:
        raise UserError(f"{where}: ground_truth.function_call: expected {{name, arguments}}")
    arguments = call.get("arguments") or {}
    if isinstance(arguments, str):  # some copies keep the arguments as a JSON string
        try:
            arguments = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            raise UserError(f"{where}: ground_truth.function_call.arguments: not JSON") from None
    if not isinstance(arguments, dict):
        raise UserError(f"{where}: ground_truth.function_call.arguments: expected an object")
    return call["name"], arguments


def _as_number(text: str) -> int | float | None:
    """The number a string spells (``" 2 "`` -> 2, ``"2.50"`` -> 2.5), as Python's ``float``
    reads it; ``None`` for anything else, and for NaN and infinities."""
    s = text.strip()
    try:
        f = float(s)
    except ValueError:
        return None
    if not math.isfinite(f):
        return None
    try:
        return int(s)
    except ValueError:
        return f


def _framework_matcher(value: JsonValue) -> ArgMatcher:
    """The matcher of the framework's first check for one ground-truth argument value.

    The framework compares ``float(str(x).strip())`` when both values read as numbers, else
    ``str(x).lower().strip()``: case and surrounding space do not matter, ``"2"`` equals ``2``
    and ``"true"`` equals ``True``. Containers compare by their lower-cased Python text, i.e.
    ignoring the case of the strings inside.
    """
    if isinstance(value, bool | int | float):
        # "2", " 2.0 " for 2; "true" for True
        return ArgMatcher(value=value, coerce=True)
    if isinstance(value, str):
        number = _as_number(value)
        low = value.strip().lower()
        other: JsonValue = (
            number if number is not None else (low == "true") if low in ("true", "false") else None
        )
        if other is None:
            return ArgMatcher(value=value, ignore_case=True, ignore_space=True)
        return ArgMatcher(one_of=[value, other], ignore_case=True, ignore_space=True, coerce=True)
    if value is None:
        return ArgMatcher(value=None)
    return ArgMatcher(value=value, ignore_case=True)


def _recorded(row: dict[str, Any]) -> dict[str, Any] | None:
    if "model_function_call" not in row and "model_text" not in row:
        return None
    call = row.get("model_function_call")
    calls = []
    if isinstance(call, dict) and call.get("name"):
        calls.append({"name": call["name"], "arguments": call.get("arguments") or {}})
    text = row.get("model_text")
    return {"text": text if isinstance(text, str) else None, "calls": calls}


def _case(record: Record, options: ImportOptions, tool_names: set[str], taken: set[str]) -> Case:
    row = record.data
    where = record.where
    if not isinstance(row, dict):
        raise UserError(f"{where}: expected a JSON object")
    query = row.get("user_query")
    if not isinstance(query, str) or not query.strip():
        raise UserError(f"{where}: user_query: expected a non-empty string")
    truth = row.get("ground_truth")
    if not isinstance(truth, dict):
        raise UserError(f"{where}: ground_truth: expected an object")
    kind = _decide_kind(row, where)
    category, behavior = _KINDS[kind]
    text = truth.get("text")
    expect: dict[str, Any] = {
        "behavior": behavior,
        "reference": text if isinstance(text, str) and text else None,
    }
    if truth.get("function_call"):
        if kind == "error":
            # the framework checks a function-call ground truth as a call, whatever the kind
            expect["behavior"] = "tool_call"
        elif behavior != "tool_call":
            raise UserError(
                f"{where}: ground_truth has a function_call but the record is a {kind} case"
            )
        name, arguments = _expected_call(truth, where)
        if tool_names and name not in tool_names:
            raise UserError(f"{where}: ground_truth.function_call: unknown tool '{name}'")
        matchers = {k: _framework_matcher(v) for k, v in arguments.items()}
        expect["tool_calls"] = [CallExpectation(name=name, arguments=matchers)]
    elif behavior == "tool_call":
        raise UserError(f"{where}: a {kind} record needs ground_truth.function_call")
    raw_id = row.get("id")
    wanted = str(raw_id) if raw_id not in (None, "") else f"case-{record.line}"
    meta = source_metadata("tool-selection", record, raw_id)
    for key in ("type", "expected_response_type"):
        if row.get(key) is not None:
            meta[key] = row[key]
    recorded = _recorded(row)
    if recorded is not None:
        meta["response"] = recorded
    return Case(
        id=unique_id(wanted, taken),
        category=options.category or category,
        input=query,
        expect=Expectation(**expect),
        metadata=meta,
    )


def _results_records(path: Path) -> list[Record] | None:
    """Records of the framework's results file (``{mode: {test_results: [...]}}``), if it is one."""
    text = read_text(path)
    if not text.lstrip().startswith("{"):
        return None
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None  # JSON Lines, or broken JSON: the line reader reports where
    if not isinstance(data, dict) or "user_query" in data:
        return None
    groups = [v["test_results"] for v in data.values() if isinstance(v, dict)]
    if "test_results" in data:
        groups.append(data["test_results"])
    if not groups or not all(isinstance(g, list) for g in groups):
        raise UserError(
            f"{path}:1: expected a JSON array of test records "
            "(or a results file with 'test_results' lists)"
        )
    out: list[Record] = []
    pos = 0
    for group in groups:
        for item in group:
            line = 1
            if isinstance(item, dict) and "id" in item:
                found = text.find(orjson.dumps(item["id"]).decode(), pos)
                if found >= 0:
                    pos = found
                    line = text.count("\n", 0, found) + 1
            out.append(Record(path, line, item))
    return out


def import_tool_selection(sources: list[Path], options: ImportOptions) -> Suite:
    """Import ``test_dataset.json`` files; ``options.tools`` names the tool definitions."""
    if options.tools is None:
        raise UserError(
            "tool-selection: give the tool definitions with --tools FILE "
            "(OpenAI function format, or any format 'agentgauge tools convert' reads)"
        )
    tools: list[ToolSpec] = read_tools_file(options.tools)
    tool_names = {t.name for t in tools}
    cases: list[Case] = []
    taken: set[str] = set()
    for path in sources:
        records = _results_records(path)
        source = records if records is not None else iter_json_records(path)
        for record in limited(source, options.limit):
            cases.append(_case(record, options, tool_names, taken))
    return Suite(
        name=options.name or sources[0].stem.replace("_", "-"),
        description="Imported from tool-selection test data: " + ", ".join(p.name for p in sources),
        tools=tools,
        cases=cases,
    )
