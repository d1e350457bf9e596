"""BFCL's multi-turn categories (``multi_turn_base``, ``_miss_func``, ``_miss_param``,
``_long_context``) as cases on the built-in world ``bfcl`` (BFCL's own back-ends).

Each entry becomes one case:

- ``input``: the first turn's user message; ``turns``: the later ones. A ``miss_func`` turn
  without a message gets the one BFCL's generator sends ("I have updated some more functions
  ..."), and ``add_tools``: the functions held back until then;
- ``tools``: every function of the entry's ``involved_classes`` (from ``multi_turn_func_doc/``
  beside the question file), in BFCL's order; ``excluded_function`` is kept in the metadata only,
  as BFCL ignores it too;
- ``world.state``: ``{involved_classes, initial_config, long_context}``;
- ``expect``: per turn, ``state: {same_as_reference: true, reference: <the turn's ground-truth
  calls>}`` — the default mode's outcome check (the back-ends' state equals the ground truth's
  after every turn); ``--mode bfcl`` applies BFCL's own multi-turn rules to the same run;
- ``max_steps``: 21 (BFCL stops a turn after 20 steps past the first: ``MAXIMUM_STEP_LIMIT``);
- ``metadata``: ``bfcl_category``, ``bfcl_ground_truth`` (BFCL's call strings, exactly),
  ``bfcl_missed_function``, ``bfcl_excluded_function``.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any, Final

from ..errors import UserError
from ..formats import bfcl_schema_to_json_schema
from ..schema import Case, ToolSpec
from ._common import (
    ImportOptions,
    Record,
    iter_json_records,
    read_answers,
    source_metadata,
    unpaired_answers,
)

__all__ = ["FUNC_DOC_FILES", "import_multi_turn_file"]

#: back-end class -> its function doc file in ``multi_turn_func_doc/`` (BFCL's mapping)
FUNC_DOC_FILES: Final = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
}
#: what BFCL's function-calling generator says in a turn that only adds functions
ADDED_FUNCTIONS_PROMPT: Final = (
    "I have updated some more functions you can choose from. What about now?"
)
#: model steps per turn: BFCL force-quits after MAXIMUM_STEP_LIMIT (20) + 1 steps with calls
STEP_LIMIT: Final = 21


class _Docs:
    """The function docs of each back-end, read once per import from ``multi_turn_func_doc/``."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._docs: dict[str, list[dict[str, Any]]] = {}

    def of(self, cls: str, where: str) -> list[dict[str, Any]]:
        if cls not in FUNC_DOC_FILES:
            known = ", ".join(FUNC_DOC_FILES)
            raise UserError(f"{where}: involved_classes: unknown BFCL back-end '{cls}' ({known})")
        if cls not in self._docs:
            path = self.folder / FUNC_DOC_FILES[cls]
            if not path.exists():
                raise UserError(f"{where}: no function doc {path} for {cls}")
            docs = []
            for rec in iter_json_records(path):
                if not isinstance(rec.data, dict) or not isinstance(rec.data.get("name"), str):
                    raise UserError(f"{rec.where}: expected a function doc {{name, parameters}}")
                docs.append(rec.data)
            self._docs[cls] = docs
        return self._docs[cls]


def _tool(doc: dict[str, Any], where: str) -> ToolSpec:
    params = doc.get("parameters") or {"type": "dict", "properties": {}}
    if not isinstance(params, dict):
        raise UserError(f"{where}: parameters: expected an object")
    try:
        return ToolSpec(
            name=doc["name"],
            description=str(doc.get("description") or ""),
            parameters=bfcl_schema_to_json_schema(params),
        )
    except ValueError as err:
        raise UserError(f"{where}: {str(err).splitlines()[0]}") from None


def _message(turn: Any, where: str) -> str | None:
    if not isinstance(turn, list):
        raise UserError(f"{where}: expected a turn (a list of messages)")
    if not turn:
        return None
    texts = []
    for m in turn:
        if not isinstance(m, dict) or not isinstance(m.get("content"), str):
            raise UserError(f"{where}: expected {{role, content}} messages")
        if m.get("role") != "user":
            raise UserError(f"{where}: role '{m.get('role')}': only user messages are supported")
        texts.append(m["content"])
    return "\n\n".join(texts)


def _keyword_call(source: str, params: dict[str, list[str]], where: str) -> dict[str, Any]:
    """A ground-truth call string as ``{name, arguments}`` (positional arguments named by the
    function doc's parameter order), the reference the default mode replays."""
    try:
        node = ast.parse(source, mode="eval").body
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            raise ValueError("not a call of a function name")
        name = node.func.id
        order = params.get(name)
        if order is None:
            raise ValueError(f"no function '{name}' among the entry's functions")
        if len(node.args) > len(order):
            raise ValueError("more positional arguments than parameters")
        args = {order[i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
        args.update({str(kw.arg): ast.literal_eval(kw.value) for kw in node.keywords})
    except (SyntaxError, ValueError) as err:
        raise UserError(f"{where}: ground truth call {source!r}: {err}") from None
    return {"name": name, "arguments": args}


def _truth(raw: Any, turns: int, where: str) -> list[list[str]]:
    ok = isinstance(raw, list) and all(
        isinstance(t, list) and all(isinstance(c, str) for c in t) for t in raw
    )
    if not ok:
        raise UserError(f"{where}: ground_truth: expected a list of turns of call strings")
    if len(raw) != turns:
        raise UserError(f"{where}: ground_truth has {len(raw)} turns, the question {turns}")
    return raw  # type: ignore[no-any-return]


def _missed(data: dict[str, Any], turns: int, where: str) -> dict[int, list[str]]:
    raw = data.get("missed_function", {})
    if not isinstance(raw, dict):
        raise UserError(f"{where}: missed_function: expected {{turn: [function names]}}")
    out: dict[int, list[str]] = {}
    for key, names in raw.items():
        if not str(key).isdigit() or not 0 < int(key) < turns:
            raise UserError(f"{where}: missed_function: turn '{key}' is not a later turn")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise UserError(f"{where}: missed_function.{key}: expected a list of names")
        out[int(key)] = names
    return out


def _entry(
    rec: Record, truth: list[list[str]], truth_at: str, category: str, docs: _Docs,
    tools: dict[str, ToolSpec], options: ImportOptions,
) -> Case:  # fmt: skip
    data = rec.data
    where = rec.where
    question = data.get("question")
    if not isinstance(question, list) or not question:
        raise UserError(f"{where}: question: expected a list of turns")
    truth = _truth(truth, len(question), truth_at)
    involved = data.get("involved_classes")
    if not isinstance(involved, list) or not all(isinstance(c, str) for c in involved):
        raise UserError(f"{where}: involved_classes: expected a list of class names")
    config = data.get("initial_config", {})
    if not isinstance(config, dict):
        raise UserError(f"{where}: initial_config: expected an object")
    missed = _missed(data, len(question), where)
    names: list[str] = []
    params: dict[str, list[str]] = {}
    for cls in involved:
        for i, doc in enumerate(docs.of(cls, where)):
            name = doc["name"]
            if name not in tools:
                tools[name] = _tool(doc, f"{docs.folder / FUNC_DOC_FILES[cls]}: [{i}]")
            names.append(name)
            props = (doc.get("parameters") or {}).get("properties") or {}
            params[name] = list(props)
    held = {n for ns in missed.values() for n in ns}
    unknown = sorted(held - set(names))
    if unknown:
        raise UserError(f"{where}: missed_function: {unknown} are not functions of the entry")
    texts = [_message(t, f"{where}: question[{i}]") for i, t in enumerate(question)]
    if texts[0] is None:
        raise UserError(f"{where}: question[0]: the first turn has no user message")
    expects = []
    for i, calls in enumerate(truth):
        ref = [_keyword_call(c, params, f"{truth_at}: ground_truth[{i}]") for c in calls]
        expects.append({"state": {"same_as_reference": True, "reference": ref}})
    later = []
    for i in range(1, len(question)):
        text = texts[i]
        if text is None and i not in missed:
            raise UserError(f"{where}: question[{i}]: a turn without a message adds no function")
        later.append(
            {
                "user": text or ADDED_FUNCTIONS_PROMPT,
                "expect": expects[i],
                "add_tools": missed.get(i, []),
            }
        )
    metadata = source_metadata("bfcl", rec, data["id"])
    metadata.update(
        bfcl_category=category,
        bfcl_ground_truth=truth,
        bfcl_missed_function={str(k): v for k, v in missed.items()},
        bfcl_excluded_function=list(data.get("excluded_function") or []),
    )
    raw = {
        "id": data["id"],
        "category": options.category or category,
        "difficulty": "hard",
        "tags": ["bfcl", category, "multi_turn"],
        "input": texts[0],
        "tools": names,
        "turns": later,
        "expect": expects[0],
        "max_steps": STEP_LIMIT,
        "world": {
            "state": {
                "involved_classes": involved,
                "initial_config": config,
                "long_context": "long_context" in category,
            }
        },
        "metadata": metadata,
    }
    try:
        return Case.model_validate(raw)
    except ValueError as err:
        raise UserError(f"{where}: {str(err).splitlines()[0]}") from None


def import_multi_turn_file(
    path: Path,
    category: str,
    options: ImportOptions,
    problems: list[str],
    tools: dict[str, ToolSpec],
) -> list[Case]:
    """The cases of one multi-turn question file (its answers in ``possible_answer/``, its
    function docs in ``multi_turn_func_doc/`` beside it); suite tools are added to ``tools``."""
    answer_path = path.parent / "possible_answer" / path.name
    if not answer_path.exists():
        raise UserError(f"{path}:1: no answer file {answer_path} (BFCL keeps the ground truth "
                        "in possible_answer/)")  # fmt: skip
    folder = path.parent / "multi_turn_func_doc"
    if not folder.is_dir():
        raise UserError(f"{path}:1: no function docs folder {folder} (BFCL's multi-turn "
                        "function docs, one file per back-end)")  # fmt: skip
    answers = read_answers(answer_path)
    docs = _Docs(folder)
    cases: list[Case] = []
    seen: set[str] = set()
    for rec in iter_json_records(path):
        if not isinstance(rec.data, dict) or not isinstance(rec.data.get("id"), str):
            raise UserError(f"{rec.where}: expected a question {{id, question, involved_classes}}")
        bid = rec.data["id"]
        if bid in seen:
            problems.append(f"{rec.where}: duplicate question id '{bid}'")
            continue
        seen.add(bid)
        found = answers.pop(bid, None)
        if found is None:
            problems.append(f"{rec.where}: question '{bid}' has no answer in {answer_path}")
            continue
        cases.append(_entry(rec, found[1], found[0].where, category, docs, tools, options))
        if options.limit is not None and len(cases) >= options.limit:
            answers.clear()
            break
    unpaired_answers(answers, path, problems)
    return cases
