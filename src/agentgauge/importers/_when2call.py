"""When2Call (NVIDIA): should the model call a tool, ask for missing information, or decline?

Each JSONL row has ``question``, ``tools`` (JSON strings in BFCL's dialect), ``correct_answer``
(``tool_call`` / ``request_for_info`` / ``cannot_answer``, and ``direct`` in the format's
description), ``answers`` (one ready response per behaviour) and ``target_tool``.

Mapping (docs/importers.md explains why):

=================  ==============  ==============  ==========================================
correct_answer     category        behavior        expectation
=================  ==============  ==============  ==========================================
tool_call          tool_call       tool_call       call the tool of ``answers.tool_call`` with
                                                   its required arguments, any values (the
                                                   reference values with ``strict_arguments``)
request_for_info   clarify         clarify         ask for the held-out parameter
cannot_answer      not_supported   refuse          say it cannot be done (the tool is absent)
direct             no_tool         answer          answer without a tool
=================  ==============  ==============  ==========================================

``expect.reference`` holds ``answers[correct_answer]``; the other answers, the row's ``uuid``,
BFCL ``source``/``source_id`` and ``held_out_param`` stay in ``metadata``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Final

from ..errors import UserError
from ..formats import tool_from_data
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
    exact_arguments,
    iter_json_records,
    limited,
    pool_tools,
    source_metadata,
    unique_id,
)

__all__ = ["import_when2call"]

#: correct_answer -> (category, behavior)
_MAPPING: Final[dict[str, tuple[str, Behavior]]] = {
    "tool_call": ("tool_call", "tool_call"),
    "request_for_info": ("clarify", "clarify"),
    "cannot_answer": ("not_supported", "refuse"),
    "direct": ("no_tool", "answer"),
}


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _parse_json_text(value: Any, where: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except json.JSONDecodeError as err:
        raise UserError(f"{where}: not valid JSON: {err.msg}") from None


def _tools(row: dict[str, Any], where: str) -> list[ToolSpec]:
    raw = row.get("tools", [])
    if not isinstance(raw, list):
        raise UserError(f"{where}: tools: expected a list")
    return [
        tool_from_data(_parse_json_text(t, f"{where}: tools[{i}]"), where=f"{where}: tools[{i}]")
        for i, t in enumerate(raw)
    ]


def _reference_call(answers: dict[str, Any], where: str) -> tuple[str, dict[str, JsonValue]]:
    call = _parse_json_text(answers.get("tool_call"), f"{where}: answers.tool_call")
    if not isinstance(call, dict) or not isinstance(call.get("name"), str):
        raise UserError(f"{where}: answers.tool_call: expected {{name, arguments}}")
    arguments = call.get("arguments") or {}
    if not isinstance(arguments, dict):
        raise UserError(f"{where}: answers.tool_call.arguments: expected an object")
    return call["name"], arguments


def _case(record: Record, options: ImportOptions, taken: set[str]) -> Case:
    row = record.data
    where = record.where
    if not isinstance(row, dict):
        raise UserError(f"{where}: expected a JSON object")
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise UserError(f"{where}: question: expected a non-empty string")
    correct = row.get("correct_answer")
    if correct not in _MAPPING:
        raise UserError(
            f"{where}: correct_answer: expected one of {', '.join(_MAPPING)}, got {correct!r}"
        )
    answers = row.get("answers")
    if not isinstance(answers, dict):
        raise UserError(f"{where}: answers: expected an object")
    category, behavior = _MAPPING[correct]
    tools = _tools(row, where)
    reference = answers.get(correct)
    expect_kwargs: dict[str, Any] = {
        "behavior": behavior,
        "reference": reference if isinstance(reference, str) else None,
    }
    if behavior == "tool_call":
        name, arguments = _reference_call(answers, where)
        tool = next((t for t in tools if t.name == name), None)
        if tool is None:
            raise UserError(f"{where}: answers.tool_call: tool '{name}' is not among the tools")
        if options.strict_arguments:
            call = CallExpectation(name=name, arguments=exact_arguments(arguments))
        else:
            # the decision is what is scored: the right tool, its required arguments present
            # (any value), other arguments free
            required = {r: ArgMatcher(any=True) for r in tool.required()}
            call = CallExpectation(name=name, arguments=required, extra_arguments="allow")
        expect_kwargs["tool_calls"] = [call]
    source_id = row.get("source_id")
    uuid = row.get("uuid")
    wanted = f"{source_id}.{correct}" if source_id else str(uuid or f"when2call-{record.line}")
    meta = source_metadata("when2call", record, source_id)
    for key in ("uuid", "held_out_param", "orig_question"):
        if row.get(key) is not None:
            meta[key] = row[key]
    if row.get("source") is not None:
        meta["dataset"] = row["source"]
    meta["correct_answer"] = correct
    meta["answers"] = answers
    return Case(
        id=unique_id(wanted, taken),
        category=options.category or category,
        tags=[_slug(str(row["source"]))] if row.get("source") else [],
        input=question,
        tools=list(tools),
        expect=Expectation(**expect_kwargs),
        metadata=meta,
    )


def import_when2call(sources: list[Path], options: ImportOptions) -> Suite:
    """Import When2Call JSONL files (e.g. ``when2call_test_llm_judge.jsonl``)."""
    cases: list[Case] = []
    taken: set[str] = set()
    for path in sources:
        for record in limited(iter_json_records(path), options.limit):
            cases.append(_case(record, options, taken))
    tools = pool_tools(cases)
    return Suite(
        name=options.name or "when2call",
        description="Imported from When2Call: "
        + ", ".join(p.name for p in sources)
        + " (tool_call / request_for_info / cannot_answer)",
        tools=tools,
        cases=cases,
    )
