"""The YAML the docs show: every block is read with agentgauge's own YAML reader, and a block
that is a suite, a part of one (``gates:``, ``tools:``) or a case (``expect:``) is loaded as a
suite file, so a field the schema does not have, a wrong value or a flow mapping that reads
otherwise than it looks (``say: Great, thanks!``) is found."""

from __future__ import annotations

import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

from docs_markdown import Doc
from pydantic import BaseModel


def yaml_problems(doc: Doc) -> Iterator[tuple[int, str | None]]:
    """Each YAML block read with agentgauge's own YAML reader, and one with a top-level
    ``cases:`` (and no ``...`` left for the reader) loaded as a suite (a ``name`` given when the
    block leaves it out): (line, its problem or None)."""
    from agentgauge.errors import UserError
    from agentgauge.files import read_yaml_text

    for lang, start, lines in doc.blocks:
        if lang not in ("yaml", "yml"):
            continue
        text = "\n".join(lines)
        try:
            data = read_yaml_text(text, "block").data
        except UserError as err:
            yield start, "; ".join(err.problems)
            continue
        suite = _as_suite(textwrap.dedent(text), data)
        yield start, None if suite is None else _suite_problem(suite)


def _keys(model: type[BaseModel]) -> frozenset[str]:
    named = {field.alias or name for name, field in model.model_fields.items()}
    return frozenset(named - {"case_files", "tool_files", "tools_from"})  # files beside it


_A_CASE = "cases:\n  - {id: doc-case, input: hi, expect: {behavior: no_tool}}\n"


def _as_suite(text: str, data: object) -> str | None:
    """A YAML block as a suite file: a suite (``name`` added when left out), a part of one
    (``gates:``, ``tools:``: one plain case added) or a case (``expect:``: put in a suite);
    None for anything else, for a block with ``...`` left to the reader, or one that names
    files beside it."""
    if not isinstance(data, dict) or not data or "..." in text:
        return None
    from agentgauge.schema import Case, Suite

    keys = set(data)
    name = "" if "name" in keys else "name: doc\n"
    if keys <= _keys(Suite):
        return name + text + ("" if "cases" in keys else "\n" + _A_CASE)
    if keys <= _keys(Case):
        case = textwrap.indent(text, "    ")[4:]
        case += "" if "id" in keys else "\n    id: doc-case"
        case += "" if "input" in keys else "\n    input: hi"
        return f"{name}cases:\n  - {case}\n"
    return None


def _suite_problem(text: str) -> str | None:
    from agentgauge.errors import UserError
    from agentgauge.suites import load_suite

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "suite.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            load_suite(path)
        except UserError as err:
            return "; ".join(problem.replace(str(path), "suite") for problem in err.problems)
    return None
