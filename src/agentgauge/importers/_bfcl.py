"""Berkeley Function Calling Leaderboard (BFCL) question + ``possible_answer`` files.

Sources may be question files (``BFCL_v4_<category>.json``, JSON Lines despite the name), their
``possible_answer/`` files, or a folder holding both; a question file's answers are looked up in
the ``possible_answer/`` folder beside it, and questions and answers are paired by ``id``.

Each question becomes one case:

- ``input``: the first (only) turn of ``question``; a lone user message becomes plain text;
- ``tools``: the question's functions, parameters mapped to JSON Schema
  (:func:`agentgauge.io.bfcl_schema_to_json_schema`); definitions shared by many cases are
  pooled into the suite's ``tools``;
- ``expect``: one call per ground-truth entry, each argument ``one_of`` its acceptable values,
  ``optional`` when ``""`` is among them; a ``dict`` argument becomes a ``fields`` matcher and a
  list of dicts an ``items`` matcher; parallel categories accept any order; irrelevance and
  live_irrelevance expect ``no_tool``, live_relevance ``any_tool``;
- ``category``: the BFCL category (also a tag and ``metadata.bfcl_category``);
- ``metadata``: provenance, the exact ground truth (``bfcl_ground_truth``) and the BFCL types
  JSON Schema loses (``bfcl_types``: ``tuple``), so the ``bfcl`` scoring mode reproduces BFCL's
  verdicts exactly.

Multi-turn question files (``multi_turn_base``, ``_miss_func``, ``_miss_param``,
``_long_context``) import as cases on BFCL's own back-ends, the built-in world ``bfcl``
(``_bfcl_multi.py``); they are imported when named, and skipped when a whole folder is given
(running them needs the ``bfcl-eval`` package). Java and JavaScript categories use other type
rules and are rejected.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

from ..errors import UserError
from ..formats import bfcl_schema_to_json_schema, bfcl_type
from ..schema import Case, Suite, ToolSpec, WorldSpec
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

__all__ = [
    "BFCL_CATEGORIES",
    "import_bfcl",
    "looks_like_bfcl",
]

#: single-turn categories this importer knows (others with the same layout import as well)
BFCL_CATEGORIES: Final = (
    "simple",
    "simple_python",
    "multiple",
    "parallel",
    "parallel_multiple",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "irrelevance",
    "live_irrelevance",
    "live_relevance",
)
_FILE_RE: Final = re.compile(r"^BFCL_v\d+_(?P<category>.+)\.json$")
_REJECTED: Final = (
    ("memory", "memory categories need BFCL's memory back-end and prerequisite conversations"),
    ("web_search", "web-search categories are agentic and need live search"),
    ("format_sensitivity", "format-sensitivity cases are generated from other categories"),
    ("javascript", "JavaScript categories use JavaScript type rules"),
    ("java", "Java categories use Java type rules"),
)


def _category_of(path: Path) -> str | None:
    m = _FILE_RE.match(path.name)
    return m.group("category") if m else None


def _rejection(category: str) -> str | None:
    for marker, why in _REJECTED:
        if marker in category:
            return why
    return None


def _answer_file(question: Path) -> Path:
    return question.parent / "possible_answer" / question.name


def _question_files(sources: list[Path]) -> list[Path]:
    files: list[Path] = []
    for src in sources:
        if src.is_dir():
            for path in sorted(src.glob("BFCL_*.json")):
                category = _category_of(path) or ""
                # multi-turn files need BFCL's back-ends (bfcl-eval) to run: name them to import
                if _rejection(category) is None and "multi_turn" not in category:
                    files.append(path)
            continue
        if not src.exists():
            raise UserError(f"{src}: no such file or folder")
        if src.parent.name == "possible_answer":
            src = src.parent.parent / src.name  # an answer file: import its questions
        category = _category_of(src) or ""
        why = _rejection(category)
        if why is not None:
            raise UserError(
                f"{src}: BFCL category '{category}' cannot be imported: {why}; "
                "import the single-turn or multi-turn categories instead"
            )
        if src not in files:
            files.append(src)
    if not files:
        raise UserError(f"{sources[0]}: no BFCL question files (BFCL_v*_<category>.json) found")
    return files


def _tool(fn: Any, where: str, hints: dict[str, dict[str, str]]) -> ToolSpec:
    if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
        raise UserError(f"{where}: expected a function {{name, description, parameters}}")
    params = fn.get("parameters") or {"type": "dict", "properties": {}}
    if not isinstance(params, dict):
        raise UserError(f"{where}: parameters: expected an object")
    schema = bfcl_schema_to_json_schema(params)
    # record the BFCL types the JSON Schema cannot give back (tuple), for the bfcl scoring mode
    original = params.get("properties")
    converted = schema.get("properties")
    if isinstance(original, dict) and isinstance(converted, dict):
        for name, prop in original.items():
            if not isinstance(prop, dict):
                continue
            t = prop.get("type")
            if isinstance(t, str) and t != bfcl_type(converted.get(name)):
                hints.setdefault(fn["name"], {})[name] = t
            items = prop.get("items")
            if isinstance(items, dict) and isinstance(items.get("type"), str):
                new_items = converted.get(name, {}).get("items")
                if items["type"] != bfcl_type(new_items):
                    hints.setdefault(fn["name"], {})[name + "[]"] = items["type"]
    try:
        return ToolSpec(
            name=fn["name"], description=str(fn.get("description") or ""), parameters=schema
        )
    except ValueError as err:
        raise UserError(f"{where}: {str(err).splitlines()[0]}") from None


def _matcher(
    values: Any, where: str, required: bool = False, stringy: bool = False
) -> dict[str, Any]:
    """An argument matcher (as data) from BFCL's acceptable-value list.

    ``stringy``: a string (or untyped) parameter, for which BFCL also accepts ``""`` itself
    when ``""`` is acceptable; the matcher then lists ``""`` too.
    """
    if not isinstance(values, list):
        raise UserError(f"{where}: expected a list of acceptable values")
    optional = "" in values
    rest = [v for v in values if v != ""]
    if optional and not rest and required:
        # a required parameter whose only acceptable value is "": BFCL accepts exactly ""
        return {"one_of": [""]}
    if len(rest) == 1 and isinstance(rest[0], dict) and rest[0]:
        fields = {k: _inner(v, f"{where}.{k}") for k, v in rest[0].items()}
        return {"fields": fields, "optional": optional}
    if (
        len(rest) == 1
        and isinstance(rest[0], list)
        and rest[0]
        and all(isinstance(x, dict) for x in rest[0])
    ):
        items = [
            {"fields": {k: _inner(v, f"{where}[{i}].{k}") for k, v in x.items()}}
            for i, x in enumerate(rest[0])
        ]
        return {"items": items, "optional": optional}
    if optional and stringy:
        return {"one_of": [*rest, ""], "optional": True}
    return {"one_of": rest, "optional": optional}


def _inner(values: Any, where: str) -> dict[str, Any]:
    """A nested field's matcher: its acceptable values are compared exactly (as BFCL does)."""
    if not isinstance(values, list):
        raise UserError(f"{where}: expected a list of acceptable values")
    return {"one_of": [v for v in values if v != ""], "optional": "" in values}


def _expect(category: str, truth: Any, where: str, tools: dict[str, ToolSpec]) -> dict[str, Any]:
    if "irrelevance" in category:
        return {"behavior": "no_tool"}
    if "relevance" in category:
        return {"behavior": "any_tool"}
    if not isinstance(truth, list) or not truth:
        raise UserError(f"{where}: ground_truth: expected a non-empty list of calls")
    calls = []
    for i, entry in enumerate(truth):
        if not isinstance(entry, dict) or len(entry) != 1:
            raise UserError(f"{where}: ground_truth[{i}]: expected {{function name: arguments}}")
        ((name, args),) = entry.items()
        if not isinstance(args, dict):
            raise UserError(f"{where}: ground_truth[{i}].{name}: expected an object of arguments")
        tool = tools.get(name)
        required = set(tool.required()) if tool is not None else set()
        props = tool.properties() if tool is not None else {}
        arguments = {}
        for k, v in args.items():
            prop = props.get(k)
            stringy = (
                isinstance(prop, dict)
                and prop.get("type", "string") == "string"
                and ""
                in prop.get("enum", [""])  # "" outside an enum stays out (lint would flag it)
            )
            arguments[k] = _matcher(
                v, f"{where}: ground_truth[{i}].{name}.{k}", k in required, stringy
            )
        calls.append({"name": name, "arguments": arguments})
    return {"tool_calls": calls, "order": "any_order"}


def _difficulty(category: str) -> str:
    base = category.removeprefix("live_")
    if base in ("simple", "simple_python", "relevance"):
        return "easy"
    if base == "parallel_multiple":
        return "hard"
    return "medium"


def _input(question: Any, where: str) -> str | list[dict[str, Any]]:
    if not isinstance(question, list) or not question or not isinstance(question[0], list):
        raise UserError(f"{where}: question: expected a list of turns (lists of messages)")
    if len(question) != 1:
        raise UserError(
            f"{where}: question has {len(question)} turns; multi-turn BFCL cases need BFCL's "
            "stateful tool back-ends and cannot be imported"
        )
    messages = []
    for i, m in enumerate(question[0]):
        if not isinstance(m, dict) or "role" not in m:
            raise UserError(f"{where}: question[0][{i}]: expected a {{role, content}} message")
        messages.append({"role": m["role"], "content": m.get("content")})
    if (
        len(messages) == 1
        and messages[0]["role"] == "user"
        and isinstance(messages[0]["content"], str)
    ):
        return str(messages[0]["content"])
    return messages


def _file_category(path: Path, records: list[Record]) -> str:
    """The BFCL category of a question file (its name, or its first record's id), if it can
    be imported."""
    category = _category_of(path)
    #: where the category came from (the file name, or the first record's id)
    category_at = f"{path}:1"
    if category is None:
        category_at = records[0].where if records else category_at
        first = (
            records[0].data.get("id", "") if records and isinstance(records[0].data, dict) else ""
        )
        category = str(first).rsplit("_", 1)[0] if first else path.stem
    why = _rejection(category)
    if why is not None:
        raise UserError(f"{category_at}: BFCL category '{category}' cannot be imported: {why}")
    return category


def _import_file(
    path: Path, options: ImportOptions, problems: list[str], multi_tools: dict[str, ToolSpec]
) -> list[Case]:
    records = list(iter_json_records(path))
    category = _file_category(path, records)
    if "multi_turn" in category:
        from ._bfcl_multi import import_multi_turn_file

        return import_multi_turn_file(path, category, options, problems, multi_tools)
    needs_answers = "relevance" not in category  # covers irrelevance too
    answers: dict[str, tuple[Record, Any]] = {}
    if needs_answers:
        answer_path = _answer_file(path)
        if not answer_path.exists():
            raise UserError(
                f"{path}:1: no answer file {answer_path} "
                "(BFCL keeps the ground truth in possible_answer/)"
            )
        answers = read_answers(answer_path)
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for rec in records:
        bid = question_id(rec, seen, problems)
        if bid is None:
            continue
        data = rec.data
        truth: Any = None
        truth_at = rec.where  # ground-truth problems point at the answer's line
        if needs_answers:
            found = answers.pop(bid, None)
            if found is None:
                problems.append(
                    f"{rec.where}: question '{bid}' has no answer in {_answer_file(path)}"
                )
                continue
            truth_at, truth = found[0].where, found[1]
        functions = data.get("function")
        if not isinstance(functions, list):
            raise UserError(f"{rec.where}: function: expected a list of function docs")
        hints: dict[str, dict[str, str]] = {}
        tools = [_tool(fn, f"{rec.where}: function[{i}]", hints) for i, fn in enumerate(functions)]
        metadata = source_metadata("bfcl", rec, bid)
        metadata["bfcl_category"] = category
        if needs_answers:
            metadata["bfcl_ground_truth"] = truth
        if hints:
            metadata["bfcl_types"] = hints
        raw = {
            "id": bid,
            "category": options.category or category,
            "difficulty": _difficulty(category),
            "tags": ["bfcl", category, "live" if category.startswith("live_") else "non_live"],
            "input": _input(data.get("question"), rec.where),
            "tools": tools,
            "expect": _expect(category, truth, truth_at, {t.name: t for t in tools}),
            "metadata": metadata,
        }
        try:
            cases.append(Case.model_validate(raw))
        except ValueError as err:
            raise UserError(f"{rec.where}: {str(err).splitlines()[0]}") from None
        if options.limit is not None and len(cases) >= options.limit:
            answers.clear()
            break
    unpaired_answers(answers, path, problems)
    return cases


def import_bfcl(sources: list[Path], options: ImportOptions) -> Suite:
    """Import BFCL single-turn question files (with their answers) as one suite."""
    files = _question_files(sources)
    problems: list[str] = []
    cases: list[Case] = []
    counts: list[str] = []
    multi_tools: dict[str, ToolSpec] = {}  # the multi-turn back-ends' functions, by name
    for path in files:
        imported = _import_file(path, options, problems, multi_tools)
        counts.append(f"{path.name}: {len(imported)}")
        cases.extend(imported)
    if problems:
        raise UserError(
            f"{len(problems)} problem(s) pairing BFCL questions with answers", problems=problems
        )
    tools = pool_tools(cases)
    clash = sorted(n for n in multi_tools if n in {t.name for t in tools})
    if clash:
        raise UserError(f"{files[0]}: multi-turn functions {clash[:5]} also named by single-turn "
                        "cases: import them into separate suites")  # fmt: skip
    tools.extend(multi_tools.values())
    categories = sorted({str(c.metadata["bfcl_category"]) for c in cases})
    name = options.name or ("bfcl-" + categories[0] if len(categories) == 1 else "bfcl")
    return Suite(
        name=name,
        description=(
            "Imported from the Berkeley Function Calling Leaderboard (Apache-2.0); "
            + "; ".join(counts)
        ),
        tools=tools,
        cases=cases,
        # BFCL's own back-ends answer the multi-turn cases (docs/bfcl.md)
        world=WorldSpec(builtin="bfcl") if multi_tools else None,
    )


_BFCL_FILE: Final = re.compile(r"^BFCL_v\d+_.+\.json$")


def looks_like_bfcl(path: Path) -> bool:
    """Whether ``path`` is BFCL data (a ``BFCL_v*_<category>.json`` file, its
    ``possible_answer`` file, or a folder of them without a suite file)."""
    if path.is_dir():
        has_suite = any((path / n).exists() for n in ("suite.yaml", "suite.yml", "suite.json"))
        return not has_suite and any(path.glob("BFCL_v*_*.json"))
    return bool(_BFCL_FILE.match(path.name)) or path.parent.name == "possible_answer"
