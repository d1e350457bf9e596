"""Golden question/answer sets: JSONL with ``query``, ``context``, ``ground_truth``, ``response``.

Each record becomes a case whose behaviour is ``answer`` (answer directly, grounded in the
context), or the record's ``behavior`` (``refuse`` for a row the assistant should decline):
``input`` = query, ``context`` = the passages (a string or a list of them),
``expect.reference`` = ground truth. A recorded ``response`` is kept in ``metadata.response``;
``agentgauge import`` writes those as a responses file so they can be scored without a model.
When some record has passages, the suite gets the ``numeric_grounding`` scorer (no model: a
number, price or date in a reply that no passage states fails the case), the one check of
grounding that runs without a judge.

Columns are found by name. ``columns`` (``--map field=column``) says where a field is when its
column has another name; a dotted column (``inputs.question``) reaches into nested objects.
Without a mapping, the usual names of other tools are tried too:

=============  =====================================================================
field          columns tried, in order
=============  =====================================================================
query          query, question, user_input, input
context        context, contexts, retrieved_contexts, retrieval_context
ground_truth   ground_truth, ground_truths, reference, expected_output, expected_answer
response       response, answer, actual_output
id             id, _id, uuid, case_id
category       category
difficulty     difficulty
tags           tags
behavior       behavior, expected_behavior
=============  =====================================================================
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final, cast, get_args

from ..errors import UserError
from ..formats import read_tools_file
from ..schema import Behavior, Case, Expectation, JsonValue, ScorerRef, Suite, ToolSpec
from ._common import (
    ImportOptions,
    Record,
    iter_json_records,
    limited,
    source_metadata,
    unique_id,
)

__all__ = ["GOLDEN_FIELDS", "import_golden"]

#: field -> column names tried when the field is not mapped
GOLDEN_FIELDS: Final[dict[str, tuple[str, ...]]] = {
    "query": ("query", "question", "user_input", "input"),
    "context": ("context", "contexts", "retrieved_contexts", "retrieval_context"),
    "ground_truth": (
        "ground_truth",
        "ground_truths",
        "reference",
        "expected_output",
        "expected_answer",
    ),
    "response": ("response", "answer", "actual_output"),
    "id": ("id", "_id", "uuid", "case_id"),
    "category": ("category",),
    "difficulty": ("difficulty",),
    "tags": ("tags",),
    "behavior": ("behavior", "expected_behavior"),
}

_MISSING: Final = object()
_BEHAVIORS: Final[tuple[str, ...]] = get_args(Behavior)


def _lookup(row: dict[str, Any], column: str) -> Any:
    value: Any = row.get(column, _MISSING)
    if value is not _MISSING or "." not in column:
        return value
    value = row
    for part in column.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _field(row: dict[str, Any], name: str, columns: dict[str, str]) -> tuple[str, Any]:
    """The column used for ``name`` and its value (``_MISSING`` if absent)."""
    if name in columns:
        return columns[name], _lookup(row, columns[name])
    for column in GOLDEN_FIELDS[name]:
        if column in row:
            return column, row[column]
    return GOLDEN_FIELDS[name][0], _MISSING


def _text(value: Any, where: str, column: str) -> str | None:
    if value is _MISSING or value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise UserError(f"{where}: {column}: expected text, got {type(value).__name__}")


def _passages(value: Any, where: str, column: str) -> list[str]:
    if value is _MISSING or value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v for v in value if v.strip()]
    raise UserError(f"{where}: {column}: expected a string or a list of strings")


def _behavior(value: Any, where: str, column: str) -> Behavior:
    text = _text(value, where, column)
    if text is None or not text.strip():
        return "answer"
    if text.strip() not in _BEHAVIORS:
        raise UserError(f"{where}: {column}: expected one of {', '.join(_BEHAVIORS)}, got {text!r}")
    return cast("Behavior", text.strip())


def _case(
    record: Record, options: ImportOptions, columns: dict[str, str], n: int, taken: set[str]
) -> Case:
    row = record.data
    where = record.where
    if not isinstance(row, dict):
        raise UserError(f"{where}: expected a JSON object")
    column, value = _field(row, "query", columns)
    query = _text(value, where, column)
    if not query or not query.strip():
        present = ", ".join(sorted(row)) or "none"
        raise UserError(
            f"{where}: no query in column '{column}' (columns: {present}); "
            "map it with --map query=COLUMN"
        )
    meta: dict[str, JsonValue] = {}
    column, value = _field(row, "ground_truth", columns)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        meta["references"] = value
        value = value[0]
    reference = _text(value, where, column)
    column, value = _field(row, "context", columns)
    context = _passages(value, where, column)
    column, value = _field(row, "response", columns)
    response = _text(value, where, column)
    column, value = _field(row, "id", columns)
    source_id = _text(value, where, column)
    column, value = _field(row, "category", columns)
    category = options.category or _text(value, where, column) or "happy_path"
    column, value = _field(row, "difficulty", columns)
    difficulty = _text(value, where, column)
    column, value = _field(row, "tags", columns)
    tags = _passages(value, where, column)
    column, value = _field(row, "behavior", columns)
    behavior = _behavior(value, where, column)
    meta = {**source_metadata("golden", record, source_id), **meta}
    if response is not None:
        meta["response"] = response
    return Case(
        id=unique_id(source_id or f"golden-{n:04d}", taken),
        category=category,
        difficulty=difficulty,
        tags=tags,
        input=query,
        context=context,
        expect=Expectation(behavior=behavior, reference=reference),
        metadata=meta,
    )


def import_golden(sources: list[Path], options: ImportOptions) -> Suite:
    """Import golden Q&A JSONL files (a JSON array of the same records is read too)."""
    columns = dict(options.columns)
    unknown = sorted(set(columns) - set(GOLDEN_FIELDS))
    if unknown:
        raise UserError(
            f"golden: --map {unknown[0]}=...: unknown field (fields: {', '.join(GOLDEN_FIELDS)})"
        )
    tools: list[ToolSpec] = read_tools_file(options.tools) if options.tools else []
    cases: list[Case] = []
    taken: set[str] = set()
    for path in sources:
        for record in limited(iter_json_records(path), options.limit):
            cases.append(_case(record, options, columns, len(cases) + 1, taken))
    # passages to ground in: an invented number fails without a judge (and the mutation
    # audit's unsupported-number transcript has a check to fail)
    grounded = [ScorerRef(scorer="numeric_grounding")] if any(c.context for c in cases) else []
    return Suite(
        name=options.name or sources[0].stem.replace("_", "-"),
        description="Imported golden set: " + ", ".join(p.name for p in sources),
        tools=tools,
        cases=cases,
        scorers=grounded,
    )
