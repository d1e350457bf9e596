"""What every importer shares: options, file reading with line numbers, and small builders."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import orjson

from ..errors import UserError
from ..files import read_text as _read_input
from ..files import too_deep, too_deep_message
from ..schema import ArgMatcher, Case, JsonValue, ToolSpec

__all__ = [
    "ImportOptions",
    "Record",
    "exact_arguments",
    "iter_json_records",
    "limited",
    "pool_tools",
    "read_text",
    "source_metadata",
    "unique_id",
]


@dataclass(frozen=True, kw_only=True)
class ImportOptions:
    """Options shared by every importer (each importer uses the ones that apply to it).

    - ``tools``: a tool file (any format :func:`agentgauge.io.read_tools_file` reads) offered
      with every case (``tool-selection``; optional for ``golden``);
    - ``columns``: field name -> column name in the source (``golden``: ``{"query": "question"}``);
    - ``category``: give every imported case this category;
    - ``name``: the suite's name (default: derived from the format and first source file);
    - ``limit``: import at most this many cases from each source file;
    - ``strict_arguments``: ``when2call``: expect the reference call's arguments exactly
      (default: the right tool, any arguments; When2Call scores the decision, not the values).
    """

    tools: Path | None = None
    columns: Mapping[str, str] = field(default_factory=dict)
    category: str | None = None
    name: str | None = None
    limit: int | None = None
    strict_arguments: bool = False


@dataclass(frozen=True)
class Record:
    """One record of a source file, with where it came from (for error messages)."""

    file: Path
    line: int
    data: Any

    @property
    def where(self) -> str:
        return f"{self.file}:{self.line}"


def read_text(path: Path) -> str:
    """The text of a source file: a regular UTF-8 file within the size limit (see "Limits on
    untrusted input" in docs/suite-format.md); anything else is a :class:`UserError`."""
    return _read_input(path, str(path))


def _json_lines(path: Path, text: str) -> Iterator[Record]:
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped:
            continue
        try:
            data = orjson.loads(stripped)
        except orjson.JSONDecodeError as err:
            column = err.colno + len(raw) - len(raw.lstrip())
            raise UserError(f"{path}:{number}: invalid JSON: {err.msg} (column {column})") from None
        deep = too_deep(data, stripped)
        if deep is not None:
            raise UserError(too_deep_message(str(path), number, deep))
        yield Record(path, number, data)


def _array_lines(text: str, count: int) -> list[int]:
    """Best-effort 1-based start line of each element of a top-level JSON array."""
    lines: list[int] = []
    depth = 0
    line = 1
    in_string = escaped = False
    for ch in text:
        if ch == "\n":
            line += 1
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            if depth == 1:
                lines.append(line)
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif depth == 1 and not ch.isspace() and ch != "," and (not lines or lines[-1] != line):
            lines.append(line)  # a scalar element
    return lines if len(lines) == count else [1] * count


def iter_json_records(path: Path) -> Iterator[Record]:
    """The records of a JSONL file, or the elements of a JSON array, with their line numbers.

    A file whose text starts with ``[`` is read as one JSON array; otherwise as JSON Lines.
    Blank lines are skipped; a line that is not JSON is a :class:`UserError` naming ``file:line``.
    """
    text = read_text(path)
    if text.lstrip().startswith("["):
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as err:
            raise UserError(f"{path}:{err.lineno}: invalid JSON: {err.msg}") from None
        lines = _array_lines(text, len(data))
        for i, (item, line) in enumerate(zip(data, lines, strict=True)):
            deep = too_deep([item], text)
            if deep is not None:
                raise UserError(too_deep_message(str(path), line, (i, *deep[1:])))
            yield Record(path, line, item)
        return
    yield from _json_lines(path, text)


def read_answers(path: Path) -> dict[str, tuple[Record, Any]]:
    """A ``possible_answer`` file (BFCL, ACEBench): id -> (its record, its ``ground_truth``)."""
    out: dict[str, tuple[Record, Any]] = {}
    for rec in iter_json_records(path):
        if not isinstance(rec.data, dict) or not isinstance(rec.data.get("id"), str):
            raise UserError(f"{rec.where}: expected an answer {{id, ground_truth}}")
        answer_id = rec.data["id"]
        if answer_id in out:
            raise UserError(
                f"{rec.where}: duplicate answer id '{answer_id}' "
                f"(first at line {out[answer_id][0].line})"
            )
        out[answer_id] = (rec, rec.data.get("ground_truth"))
    return out


def question_id(rec: Record, seen: dict[str, int], problems: list[str]) -> str | None:
    """The ``id`` of a single-turn question (BFCL, ACEBench: ``{id, question, function}``),
    recorded in ``seen`` (id -> line); None for an id seen before, reported in ``problems``."""
    if not isinstance(rec.data, dict) or not isinstance(rec.data.get("id"), str):
        raise UserError(f"{rec.where}: expected a question {{id, question, function}}")
    qid: str = rec.data["id"]
    if qid in seen:
        problems.append(f"{rec.where}: duplicate question id '{qid}' (first at line {seen[qid]})")
        return None
    seen[qid] = rec.line
    return qid


def unpaired_answers(
    answers: Mapping[str, tuple[Record, Any]], path: Path, problems: list[str]
) -> None:
    """Report in ``problems`` every answer left in ``answers`` (no question of ``path`` took it)."""
    for answer_id, (rec, _) in answers.items():
        problems.append(f"{rec.where}: answer '{answer_id}' has no question in {path}")


def limited(records: Iterable[Record], limit: int | None) -> Iterator[Record]:
    """The first ``limit`` records (all of them when ``limit`` is ``None``)."""
    return islice(records, limit)


def source_metadata(fmt: str, record: Record, source_id: JsonValue = None) -> dict[str, JsonValue]:
    """The provenance every importer keeps on a case (``metadata``)."""
    meta: dict[str, JsonValue] = {
        "source": fmt,
        "source_file": record.file.name,
        "source_line": record.line,
    }
    if source_id is not None:
        meta["source_id"] = source_id
    return meta


def exact_arguments(arguments: Mapping[str, JsonValue]) -> dict[str, ArgMatcher]:
    """Matchers that expect each argument to equal the given value exactly."""
    return {k: ArgMatcher(value=v) for k, v in arguments.items()}


def unique_id(wanted: str, taken: set[str]) -> str:
    """``wanted``, or ``wanted~2``, ``wanted~3``... whichever is free; records it in ``taken``."""
    candidate = wanted
    n = 1
    while candidate in taken:
        n += 1
        candidate = f"{wanted}~{n}"
    taken.add(candidate)
    return candidate


def _key(tool: ToolSpec) -> bytes:
    return orjson.dumps(tool.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)


def pool_tools(cases: Sequence[Case]) -> list[ToolSpec]:
    """Move inline tool definitions shared by name into the suite; return the suite's tools.

    A tool name defined the same way everywhere becomes one suite tool that cases reference by
    name; a name defined differently in different cases stays inline in those cases, so every
    case keeps exactly the definitions it was imported with. Cases are changed in place.
    """
    seen: dict[str, bytes | None] = {}
    first: dict[str, ToolSpec] = {}
    for case in cases:
        for t in case.tools or []:
            if isinstance(t, ToolSpec):
                k = _key(t)
                if t.name not in seen:
                    seen[t.name] = k
                    first[t.name] = t
                elif seen[t.name] != k:
                    seen[t.name] = None
    pooled = {name for name, k in seen.items() if k is not None}
    for case in cases:
        if case.tools:
            case.tools = [
                t.name if isinstance(t, ToolSpec) and t.name in pooled else t for t in case.tools
            ]
    return [first[name] for name in first if name in pooled]
