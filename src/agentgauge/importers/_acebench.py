"""ACEBench (English data): ``data_<category>.json`` files with ``possible_answer/`` beside them.

Each file is JSON Lines of ``{id, question, function, time}``; the answer file of the same name
in ``possible_answer/`` holds ``{id, ground_truth}`` rows, paired by ``id``. ``question`` is the
conversation as text, one ``user:`` / ``system:`` prefixed line per turn (a turn may run over
several lines); a ``system:`` line ``[Api(key=value, ...)]`` is a call the assistant made, and the
``system:`` text right after it is that call's result.

Mapping (docs/importers.md explains why):

=====================  ==============  ============  ========================================
file category          category        behavior      expectation
=====================  ==============  ============  ========================================
normal_* (single       tool_call       tool_call     one call per ground-truth entry, every
turn, similar API,                                   argument exactly as given, no extra
multi-turn)                                          arguments, any order
special_incomplete     clarify         clarify       ask for the missing parameters (no call)
special_error_param    error_handling  clarify       point out the wrong value and ask for a
                                                     correct one (no call)
special_irrelevant     not_supported   refuse        say the functions cannot do it (no call)
=====================  ==============  ============  ========================================

A multi-turn row becomes a case whose ``input`` is the whole conversation so far (user turns,
the assistant's earlier calls with their results, its earlier replies) and whose expectation is
the next call, as ACEBench scores each row. ``time`` (e.g. "Today is 2025-07-21, Monday.")
becomes the case's system prompt. ``agent_*`` categories need ACEBench's executable sandbox and
a simulated user; they are rejected.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any, Final

from ..errors import UserError
from ..formats import bfcl_schema_to_json_schema
from ..schema import (
    ArgMatcher,
    Behavior,
    CallExpectation,
    Case,
    Expectation,
    JsonValue,
    Message,
    Suite,
    ToolCall,
    ToolSpec,
)
from ._common import (
    ImportOptions,
    Record,
    iter_json_records,
    pool_tools,
    question_id,
    read_answers,
    source_metadata,
    unpaired_answers,
)

__all__ = ["import_acebench"]

_FILE_RE: Final = re.compile(r"^data_(?P<category>[a-z0-9_]+)\.json$")
_TURN_RE: Final = re.compile(r"^(user|system):[ \t]?")
_STRAY_TAG: Final = "<assistant>"
#: special category -> (category, behavior)
_SPECIAL: Final[dict[str, tuple[str, Behavior]]] = {
    "special_incomplete": ("clarify", "clarify"),
    "special_error_param": ("error_handling", "clarify"),
    "special_irrelevant": ("not_supported", "refuse"),
}
_LITERAL_NAMES: Final[dict[str, JsonValue]] = {
    "true": True,
    "false": False,
    "null": None,
    "True": True,
    "False": False,
    "None": None,
}


def _category_of(path: Path) -> str:
    m = _FILE_RE.match(path.name)
    if m is None:
        raise UserError(f"{path}: not an ACEBench data file (expected data_<category>.json)")
    return m.group("category")


def _check_category(path: Path, category: str) -> None:
    if category.startswith("agent"):
        raise UserError(
            f"{path}: ACEBench category '{category}' cannot be imported: agent cases need "
            "ACEBench's executable sandbox (phone, travel back-ends) and a simulated user"
        )
    if not category.startswith("normal") and category not in _SPECIAL:
        known = ", ".join(["normal_*", *_SPECIAL])
        raise UserError(f"{path}: unknown ACEBench category '{category}' (known: {known})")


def _data_files(sources: list[Path]) -> list[Path]:
    files: list[Path] = []
    for src in sources:
        if src.is_dir():
            found = sorted(
                p for p in src.glob("data_*.json") if not _category_of(p).startswith("agent")
            )
            if not found:
                raise UserError(f"{src}: no ACEBench data files (data_<category>.json) found")
            files.extend(p for p in found if p not in files)
            continue
        if not src.exists():
            raise UserError(f"{src}: no such file or folder")
        if src.parent.name == "possible_answer":
            src = src.parent.parent / src.name  # an answer file: import its questions
        _check_category(src, _category_of(src))
        if src not in files:
            files.append(src)
    return files


def _literal(node: ast.expr, where: str) -> JsonValue:
    """A JSON value from a Python literal expression (JSON's true/false/null accepted too)."""
    if isinstance(node, ast.Constant) and not isinstance(node.value, bytes | complex):
        return node.value
    if isinstance(node, ast.Name) and node.id in _LITERAL_NAMES:
        return _LITERAL_NAMES[node.id]
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(e, where) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, JsonValue] = {}
        for k, v in zip(node.keys, node.values, strict=True):
            if not isinstance(k, ast.Constant) or not isinstance(k.value, str):
                raise UserError(f"{where}: a dict key in a call is not a string")
            out[k.value] = _literal(v, where)
        return out
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, ast.USub | ast.UAdd)
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, int | float)
    ):
        value = node.operand.value
        return -value if isinstance(node.op, ast.USub) else value
    raise UserError(f"{where}: a call argument is not a literal value: {ast.unparse(node)[:60]}")


def _parse_calls(text: str, where: str) -> list[ToolCall] | None:
    """The calls of a ``[Api(key=value), ...]`` line, or ``None`` if the text is not one."""
    stripped = text.strip()
    if not (stripped.startswith("[") and stripped.endswith("]")):
        return None
    try:
        tree = ast.parse(stripped, mode="eval")
    except SyntaxError:
        return None
    if not isinstance(tree.body, ast.List) or not tree.body.elts:
        return None
    calls: list[ToolCall] = []
    for node in tree.body.elts:
        if not isinstance(node, ast.Call):
            return None
        name = ast.unparse(node.func)
        if node.args:
            raise UserError(f"{where}: call {name} has positional arguments (expected key=value)")
        arguments: dict[str, JsonValue] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise UserError(f"{where}: call {name} uses **arguments")
            arguments[kw.arg] = _literal(kw.value, where)
        calls.append(ToolCall(name=name, arguments=arguments))
    return calls


def _turns(question: str, where: str) -> list[tuple[str, str]]:
    """``(role, text)`` per turn; a line without a role prefix continues the turn before it."""
    turns: list[tuple[str, str]] = []
    for line in question.split("\n"):
        m = _TURN_RE.match(line)
        if m is not None:
            turns.append((m.group(1), line[m.end() :]))
        elif turns:
            role, text = turns[-1]
            turns[-1] = (role, f"{text}\n{line}")
        elif line.strip():
            raise UserError(f"{where}: question: expected lines starting 'user:' or 'system:'")
    return [(role, text.strip()) for role, text in turns]


def _input(question: Any, where: str) -> str | list[Message]:
    if not isinstance(question, str) or not question.strip():
        raise UserError(f"{where}: question: expected a non-empty string")
    turns = _turns(question, where)
    if len(turns) == 1 and turns[0][0] == "user":
        return turns[0][1]
    messages: list[Message] = []
    pending: list[ToolCall] = []  # calls of the previous turn, still waiting for their result
    count = 0
    for role, text in turns:
        if role == "user":
            if pending:
                raise UserError(
                    f"{where}: a call of {pending[0].name} has no result before 'user:'"
                )
            messages.append(Message(role="user", content=text))
            continue
        calls = _parse_calls(text, where)
        if calls is not None:
            if pending:
                raise UserError(f"{where}: a call of {pending[0].name} has no result")
            for call in calls:
                count += 1
                call.id = f"call_{count}"
            messages.append(Message(role="assistant", tool_calls=calls))
            pending = calls
        elif pending:
            if len(pending) > 1:
                raise UserError(
                    f"{where}: one result text follows {len(pending)} calls; "
                    "cannot tell which call it belongs to"
                )
            messages.append(
                Message(role="tool", content=text, tool_call_id=pending[0].id, name=pending[0].name)
            )
            pending = []
        else:
            # 7 similar-API rows open a reply with a stray "<assistant>" tag of the generator
            content = text.removeprefix(_STRAY_TAG).lstrip()
            messages.append(Message(role="assistant", content=content))
    if pending:
        raise UserError(f"{where}: the last call ({pending[0].name}) has no result")
    return messages


def _tool(fn: Any, where: str) -> ToolSpec:
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise UserError(f"{where}: expected a function {{name, description, parameters}}")
    params = fn.get("parameters") or {"type": "object", "properties": {}}
    if not isinstance(params, dict):
        raise UserError(f"{where}: parameters: expected an object")
    try:
        return ToolSpec(
            name=fn["name"],
            description=str(fn.get("description") or ""),
            parameters=bfcl_schema_to_json_schema(params),
        )
    except ValueError as err:
        raise UserError(f"{where}: {str(err).splitlines()[0]}") from None


def _names(values: Any, where: str) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str | int | float) for v in values):
        raise UserError(f"{where}: expected a list of names or values")
    return [str(v).strip() for v in values]


def _matcher(value: JsonValue) -> ArgMatcher:
    """The expected value; text (also inside lists and objects) ignoring case and spacing.

    ACEBench's checker lower-cases strings and drops spaces and ``, . / - _ * ^`` before it
    compares them, and then accepts a value that contains the expected one; every value this
    matcher accepts ACEBench accepts too (the reverse does not hold: see docs/importers.md).
    """
    if isinstance(value, str | list | dict):
        return ArgMatcher(value=value, ignore_case=True, ignore_space=True)
    return ArgMatcher(value=value)


def _expect(category: str, truth: Any, where: str, tools: dict[str, ToolSpec]) -> Expectation:
    if category in _SPECIAL:
        behavior = _SPECIAL[category][1]
        if category == "special_irrelevant":
            reference = truth if isinstance(truth, str) else None
            return Expectation(behavior=behavior, reference=reference)
        if not isinstance(truth, dict) or not truth:
            raise UserError(f"{where}: ground_truth: expected an object")
        parts = []
        for key, values in truth.items():
            listed = ", ".join(_names(values, f"{where}: ground_truth.{key}"))
            if category == "special_incomplete":
                parts.append(f"Missing necessary parameters ({listed}) for the api ({key})")
            else:
                parts.append(f"There is incorrect value ({listed}) for the parameters ({key})")
        return Expectation(behavior=behavior, reference="; ".join(parts))
    if not isinstance(truth, dict) or not truth:
        raise UserError(f"{where}: ground_truth: expected {{function name: arguments}}")
    calls = []
    for name, args in truth.items():
        if not isinstance(args, dict):
            raise UserError(f"{where}: ground_truth.{name}: expected an object of arguments")
        if name not in tools:
            raise UserError(f"{where}: ground_truth: '{name}' is not among the functions")
        matchers = {k: _matcher(v) for k, v in args.items()}
        calls.append(CallExpectation(name=name, arguments=matchers))
    return Expectation(tool_calls=calls, order="any_order")


def _answers(path: Path) -> dict[str, tuple[Record, Any]]:
    if not path.exists():
        raise UserError(
            f"no answer file {path} (ACEBench keeps the ground truth in possible_answer/)"
        )
    return read_answers(path)


def _case(rec: Record, category: str, truth: Any, options: ImportOptions) -> Case:
    data = rec.data
    where = rec.where
    functions = data.get("function")
    if not isinstance(functions, list):
        raise UserError(f"{where}: function: expected a list of function docs")
    tools = [_tool(fn, f"{where}: function[{i}]") for i, fn in enumerate(functions)]
    source_id = str(data["id"])
    input_ = _input(data.get("question"), where)
    expect = _expect(category, truth, where, {t.name: t for t in tools})
    meta = source_metadata("acebench", rec, source_id)
    meta["acebench_category"] = category
    meta["acebench_ground_truth"] = truth
    tags = ["acebench", category]
    if isinstance(input_, list):
        tags.append("multi_turn")
    m = re.fullmatch(r"(.+)_(\d+)", source_id)
    if "multi_turn" in category and m is not None:
        meta["acebench_conversation"] = m.group(1)
        meta["acebench_step"] = int(m.group(2))
    time = data.get("time")
    mapped = _SPECIAL[category][0] if category in _SPECIAL else "tool_call"
    return Case(
        id=source_id,
        category=options.category or mapped,
        tags=tags,
        input=input_,
        system=time.strip() if isinstance(time, str) and time.strip() else None,
        tools=list(tools),
        expect=expect,
        metadata=meta,
    )


def _import_file(path: Path, options: ImportOptions, problems: list[str]) -> list[Case]:
    category = _category_of(path)
    answer_path = path.parent / "possible_answer" / path.name
    answers = _answers(answer_path)
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for rec in iter_json_records(path):
        if options.limit is not None and len(cases) >= options.limit:
            answers.clear()
            break
        qid = question_id(rec, seen, problems)
        if qid is None:
            continue
        found = answers.pop(qid, None)
        if found is None:
            problems.append(f"{rec.where}: question '{qid}' has no answer in {answer_path}")
            continue
        try:
            cases.append(_case(rec, category, found[1], options))
        except ValueError as err:  # a pydantic check of the assembled case
            raise UserError(f"{rec.where}: {str(err).splitlines()[0]}") from None
    unpaired_answers(answers, path, problems)
    return cases


def import_acebench(sources: list[Path], options: ImportOptions) -> Suite:
    """Import ACEBench ``data_<category>.json`` files (with their answers) as one suite."""
    files = _data_files(sources)
    problems: list[str] = []
    cases: list[Case] = []
    counts: list[str] = []
    taken: set[str] = set()
    for path in files:
        imported = _import_file(path, options, problems)
        for case in imported:
            if case.id in taken:
                problems.append(f"{path}: case id '{case.id}' is also in an earlier file")
            taken.add(case.id)
        counts.append(f"{path.name}: {len(imported)}")
        cases.extend(imported)
    if problems:
        raise UserError(
            f"{len(problems)} problem(s) pairing ACEBench questions with answers", problems=problems
        )
    tools = pool_tools(cases)
    return Suite(
        name=options.name or "acebench",
        description="Imported from ACEBench (MIT): " + "; ".join(counts),
        tools=tools,
        cases=cases,
    )
