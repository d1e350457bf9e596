"""Writing suites: as one YAML/JSON file, as a directory (suite.yaml + cases.jsonl), as plain
JSONL cases, as the tool-selection ``test_dataset.json`` format, and recorded responses.

Records are written compactly: fields at their default value are left out, and an argument
matcher that only holds a plain value is written as that value (``city: Paris``), which reads
back to the same matcher. Every suite written carries its format ``version``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import orjson
import yaml
from pydantic import Field

from .._factories import new_list
from ..errors import UserError
from ..formats import tools_to_format
from ..schema import (
    FORMAT_VERSION,
    ArgMatcher,
    Case,
    Expectation,
    JsonValue,
    Model,
    Suite,
    ToolCall,
    ToolSpec,
)

__all__ = [
    "CASES_FILE",
    "EXPORT_FORMATS",
    "RESPONSES_FILE",
    "SUITE_FILE",
    "TOOLS_FILE",
    "ExportFormat",
    "ResponseRecord",
    "case_record",
    "dump_yaml",
    "export_suite",
    "responses_from_metadata",
    "suite_record",
    "write_cases_jsonl",
    "write_responses",
    "write_suite",
]

SUITE_FILE: Final = "suite.yaml"
CASES_FILE: Final = "cases.jsonl"
TOOLS_FILE: Final = "tools.json"
RESPONSES_FILE: Final = "responses.jsonl"

ExportFormat = Literal["suite", "jsonl", "tool-selection"]
EXPORT_FORMATS: Final[tuple[str, ...]] = ("suite", "jsonl", "tool-selection")

# --------------------------------------------------------------------------- YAML out

_BaseDumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


class _Dumper(_BaseDumper):  # type: ignore[misc, valid-type]
    """Safe dumper that also quotes strings agentgauge's YAML 1.2 reader would not read as text
    (``1e5``, ``0o17``), besides those PyYAML's YAML 1.1 rules already quote (``10:30``, ``no``).
    """


def _add_core_resolvers() -> None:
    from ..files import CoreLoader as _CoreLoader

    for first, entries in _CoreLoader.yaml_implicit_resolvers.items():
        for tag, regexp in entries:
            _Dumper.add_implicit_resolver(tag, regexp, [first] if first else None)


_add_core_resolvers()


def dump_yaml(data: Any) -> str:
    """YAML text of plain data, key order kept, safe to read back with agentgauge's loader."""
    text: str = yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False
    )
    return text


# --------------------------------------------------------------------------- compact records


def _matcher(m: ArgMatcher) -> JsonValue:
    data: dict[str, Any] = m.model_dump(
        mode="json", exclude_defaults=True, exclude={"fields", "items", "not_"}
    )
    if m.not_ is not None:
        data["not"] = _matcher(m.not_)
    if m.fields is not None:
        data["fields"] = {k: _matcher(v) for k, v in m.fields.items()}
    if m.items is not None:
        data["items"] = [_matcher(v) for v in m.items]
    if not data:
        return None  # an exact null
    if set(data) == {"value"}:
        value = data["value"]
        if not isinstance(value, dict | list):
            return value  # the short form reads back as {value: ...}
        if isinstance(value, list) and not any(isinstance(x, dict | list) for x in value):
            return value
    return data


def _expectation(e: Expectation) -> dict[str, Any]:
    data: dict[str, Any] = e.model_dump(
        mode="json", exclude_defaults=True, exclude={"tool_calls", "not_", "forbidden_arguments"}
    )
    if e.forbidden_arguments:
        data["forbidden_arguments"] = {
            tool: {arg: _matcher(m) for arg, m in args.items()}
            for tool, args in e.forbidden_arguments.items()
        }
    if e.not_ is not None:
        data["not"] = _expectation(e.not_)
    if e.tool_calls:
        if data.get("behavior") == "tool_call":
            del data["behavior"]  # implied by tool_calls
        calls = []
        for call in e.tool_calls:
            c: dict[str, Any] = {"name": call.name}
            if call.type is not None:
                c["type"] = call.type
            if call.arguments:
                c["arguments"] = {k: _matcher(v) for k, v in call.arguments.items()}
            if call.extra_arguments is not None:
                c["extra_arguments"] = call.extra_arguments
            if call.args_match is not None:
                c["args_match"] = call.args_match
            if call.step is not None:
                c["step"] = call.step
            calls.append(c)
        data = {"tool_calls": calls, **data}
    return data


def case_record(case: Case) -> dict[str, Any]:
    """A case as plain data without default-valued fields (reads back to an equal case)."""
    data: dict[str, Any] = case.model_dump(
        mode="json", exclude_defaults=True, exclude={"expect", "turns"}
    )
    data["category"] = case.category  # always shown, it is what reports slice by
    expect = _expectation(case.expect)
    if expect:
        data["expect"] = expect
    if case.turns:
        turns = []
        for turn in case.turns:
            t: dict[str, Any] = {"user": turn.user}
            if turn.expect is not None:
                t["expect"] = _expectation(turn.expect)
            if turn.add_tools:
                t["add_tools"] = list(turn.add_tools)
            turns.append(t)
        data["turns"] = turns
    head: dict[str, Any] = {k: data.pop(k) for k in ("id", "category", "input") if k in data}
    meta = data.pop("metadata", None)
    data = {**head, **data}
    if meta is not None:
        data["metadata"] = meta  # provenance last: what the case tests reads first
    return data


def _keep_types(tools: list[ToolSpec], records: list[dict[str, Any]]) -> None:
    """A tool's ``mcp`` mark (left out of dumps so request keys stay the same) written back."""
    for tool, record in zip(tools, records, strict=True):
        if tool.mcp:
            record["mcp"] = True


def suite_record(suite: Suite, *, inline_cases: bool = True) -> dict[str, Any]:
    """The suite as plain data (``version`` first); cases inline unless ``inline_cases=False``."""
    data: dict[str, Any] = suite.model_dump(mode="json", exclude_defaults=True, exclude={"cases"})
    data = {"version": FORMAT_VERSION, "name": suite.name, **data}
    if "tools" in data:
        _keep_types(suite.tools, data["tools"])
    if inline_cases and suite.cases:
        data["cases"] = [case_record(c) for c in suite.cases]
    return data


# --------------------------------------------------------------------------- writers


def _write(path: Path, payload: bytes | str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(payload, str):
            path.write_text(payload, encoding="utf-8")
        else:
            path.write_bytes(payload)
    except OSError as err:
        raise UserError(f"{path}: cannot write: {err.strerror or err}") from None


def write_cases_jsonl(cases: Iterable[Case], path: Path) -> int:
    """Write one compact case per line; returns the number written."""
    lines = [orjson.dumps(case_record(c)) for c in cases]
    _write(path, b"\n".join(lines) + (b"\n" if lines else b""))
    return len(lines)


def write_suite(suite: Suite, out: str | Path) -> list[Path]:
    """Write ``suite`` to ``out`` and return the files written.

    ``out`` ending in ``.yaml``/``.yml`` or ``.json`` is one file with tools and cases inline;
    anything else is a directory receiving ``suite.yaml`` (name, defaults,
    ``tool_files: [tools.json]``, ``case_files: [cases.jsonl]``), ``tools.json`` (agentgauge's
    tool format) and ``cases.jsonl`` (one case per line), which write and load fast for large
    imports.
    """
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix in (".yaml", ".yml"):
        _write(out, dump_yaml(suite_record(suite)))
        return [out]
    if suffix == ".json":
        _write(out, orjson.dumps(suite_record(suite), option=orjson.OPT_INDENT_2) + b"\n")
        return [out]
    if out.exists() and not out.is_dir():
        raise UserError(f"{out}: exists and is not a directory (use a .yaml or .json name)")
    head = suite_record(suite, inline_cases=False)
    head.pop("tools", None)
    if suite.tools:
        head["tool_files"] = [*suite.tool_files, TOOLS_FILE]
    if suite.cases:
        head["case_files"] = [*suite.case_files, CASES_FILE]
    _write(out / SUITE_FILE, dump_yaml(head))
    written = [out / SUITE_FILE]
    if suite.tools:
        tools = [t.model_dump(mode="json", exclude_none=True) for t in suite.tools]
        _keep_types(suite.tools, tools)
        _write(out / TOOLS_FILE, orjson.dumps(tools, option=orjson.OPT_INDENT_2) + b"\n")
        written.append(out / TOOLS_FILE)
    if suite.cases:
        write_cases_jsonl(suite.cases, out / CASES_FILE)
        written.append(out / CASES_FILE)
    return written


# --------------------------------------------------------------------------- other formats


@dataclass(frozen=True)
class _Skipped:
    case_id: str
    reason: str


def _plain_value(m: ArgMatcher) -> tuple[bool, JsonValue]:
    """The one value a matcher stands for, if it has one."""
    if m.any or m.regex is not None or m.ref is not None:
        return False, None
    if m.one_of:
        return True, m.one_of[0]
    if m.fields is not None:
        out: dict[str, JsonValue] = {}
        for k, v in m.fields.items():
            ok, value = _plain_value(v)
            if ok:
                out[k] = value
            elif not v.optional:
                return False, None
        return True, out
    if m.items is not None:
        values = [_plain_value(v) for v in m.items]
        if not all(ok for ok, _ in values):
            return False, None
        return True, [v for _, v in values]
    if m.optional and m.value is None:
        return False, None
    return True, m.value


#: behavior -> (type, expected_response_type) of the tool-selection format
_TS_TYPES: Final[dict[str, tuple[str, str]]] = {
    "tool_call": ("tool_selection", "function_call"),
    "answer": ("text_response", "text"),
    "no_tool": ("text_response", "text"),
    "clarify": ("clarifying", "clarifying_question"),
    "recover": ("error", "error_message"),
    "refuse": ("not_supported", "not_supported"),
}


def _user_query(case: Case) -> str | None:
    if isinstance(case.input, str):
        return case.input
    users = [m.content for m in case.input if m.role == "user" and m.content]
    return users[-1] if len(users) == 1 else None


def tool_selection_records(cases: Sequence[Case]) -> tuple[list[dict[str, Any]], list[_Skipped]]:
    """Cases in the tool-selection ``test_dataset.json`` form, and the cases it cannot hold."""
    out: list[dict[str, Any]] = []
    skipped: list[_Skipped] = []
    for case in cases:
        query = _user_query(case)
        behavior = case.expect.behavior
        if query is None:
            skipped.append(_Skipped(case.id, "input is a conversation, not one user message"))
            continue
        if behavior not in _TS_TYPES or behavior == "any_tool":
            skipped.append(_Skipped(case.id, f"behavior '{behavior}' has no equivalent"))
            continue
        kind, response_type = _TS_TYPES[behavior]
        record: dict[str, Any] = {"id": case.id, "type": kind, "user_query": query}
        if case.expect.tool_calls:
            if len(case.expect.tool_calls) > 1:
                skipped.append(_Skipped(case.id, "more than one expected call"))
                continue
            call = case.expect.tool_calls[0]
            arguments: dict[str, JsonValue] = {}
            ok = True
            for name, m in call.arguments.items():
                has, value = _plain_value(m)
                if has:
                    arguments[name] = value
                elif not m.optional:
                    ok = False
            if not ok:
                skipped.append(_Skipped(case.id, "an argument has no single expected value"))
                continue
            record["ground_truth"] = {"function_call": {"name": call.name, "arguments": arguments}}
        else:
            record["ground_truth"] = {"text": case.expect.reference or "", "no_function_call": True}
        record["expected_response_type"] = response_type
        out.append(record)
    return out, skipped


def _all_tools(suite: Suite) -> list[ToolSpec]:
    """The suite's tools and the cases' inline tools, one per name (the first definition)."""
    by_name: dict[str, ToolSpec] = {t.name: t for t in suite.tools}
    for case in suite.cases:
        for t in case.tools or []:
            if isinstance(t, ToolSpec):
                by_name.setdefault(t.name, t)
    return list(by_name.values())


def export_suite(suite: Suite, out: str | Path, fmt: ExportFormat | str = "suite") -> list[str]:
    """Write ``suite`` as ``fmt``; returns notes for the user (cases that could not be written).

    ``suite``: see :func:`write_suite`; ``jsonl``: one case per line; ``tool-selection``: a JSON
    array of ``{id, type, user_query, ground_truth, expected_response_type}`` (single-call cases
    with exact values only; the first acceptable value stands for a list of them), plus the
    tools as ``<name>.tools.json`` in OpenAI format beside it.
    """
    out = Path(out)
    if fmt == "suite":
        write_suite(suite, out)
        return []
    if fmt == "jsonl":
        write_cases_jsonl(suite.cases, out)
        return []
    if fmt == "tool-selection":
        records, skipped = tool_selection_records(suite.cases)
        _write(out, json.dumps(records, indent=2, ensure_ascii=False) + "\n")
        notes = [f"{s.case_id}: not exported: {s.reason}" for s in skipped]
        tools = _all_tools(suite)
        if tools:
            tools_path = out.with_name(f"{out.stem}.tools.json")
            text = json.dumps(tools_to_format(tools, "openai"), indent=2, ensure_ascii=False)
            _write(tools_path, text + "\n")
            notes.append(f"tools written to {tools_path} (OpenAI format; use it as --tools)")
        return notes
    raise UserError(f"unknown export format '{fmt}' (choose one of {', '.join(EXPORT_FORMATS)})")


# --------------------------------------------------------------------------- recorded responses


class ResponseRecord(Model):
    """One line of a native recorded-responses file (``responses.jsonl``).

    ``{"case_id": "g1", "trial": 0, "text": "Paris.", "calls": [{"name", "arguments"}]}``:
    what an agent replied to one case; ``agentgauge score`` reads these files
    (see ``agentgauge.exchange._responses``).
    """

    case_id: str = Field(min_length=1)
    trial: int = Field(default=0, ge=0)
    text: str | None = None
    calls: list[ToolCall] = Field(default_factory=new_list)


def responses_from_metadata(suite: Suite, key: str = "response") -> list[ResponseRecord]:
    """Recorded responses kept by an importer in ``case.metadata[key]``.

    The value is either a string (the reply text) or ``{"text": ..., "calls": [...]}``.
    """
    out: list[ResponseRecord] = []
    for case in suite.cases:
        value = case.metadata.get(key)
        if value is None:
            continue
        if isinstance(value, str):
            out.append(ResponseRecord(case_id=case.id, text=value))
        elif isinstance(value, dict):
            calls = [ToolCall.model_validate(c) for c in value.get("calls") or []]
            out.append(ResponseRecord(case_id=case.id, text=value.get("text"), calls=calls))
    return out


def write_responses(responses: Iterable[ResponseRecord], path: Path) -> int:
    """Write recorded responses as JSONL (see :class:`ResponseRecord`); returns the count."""
    lines = [
        orjson.dumps(
            r.model_dump(mode="json", exclude_none=True, exclude={"calls": {"__all__": {"id"}}})
        )
        for r in responses
    ]
    _write(path, b"\n".join(lines) + (b"\n" if lines else b""))
    return len(lines)
