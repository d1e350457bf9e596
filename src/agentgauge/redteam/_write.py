"""Write a generated red-team suite as one self-contained YAML file.

The file holds copies of the source suite's tool definitions (with their simulations and
``privileged`` marks), its defaults and gates, and the generated cases. A comment header says
where it came from, the seed, and which tools were taken as privileged and why. Invisible
characters (zero-width, tag characters) are written as escapes, so the file shows them. Python
fakes (``function:`` simulations) the copied tools name are copied next to the file, because
suite code must live in the suite's own folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .._messages import printable
from .._suite_code import copy_suite_code, suite_code_files
from ..errors import UserError
from ._generate import RedteamSuite

__all__ = ["render_redteam", "write_redteam"]


def _suite_record(result: RedteamSuite) -> dict[str, Any]:
    suite = result.suite
    data: dict[str, Any] = suite.model_dump(
        mode="json", exclude_defaults=True, exclude={"cases", "tools"}
    )
    tools = []
    for tool in suite.tools:
        t = tool.model_dump(mode="json", exclude_defaults=True)
        if tool.privileged is not None:
            t["privileged"] = tool.privileged  # excluded from dumps; kept in the file
        tools.append(t)
    cases = []
    for case in suite.cases:
        c = case.model_dump(mode="json", exclude_defaults=True)
        c["category"] = case.category
        first: dict[str, Any] = {
            k: c.pop(k) for k in ("id", "category", "tags", "description", "input") if k in c
        }
        meta = c.pop("metadata", None)
        cases.append({**first, **c, **({"metadata": meta} if meta is not None else {})})
    head: dict[str, Any] = {"name": data.pop("name"), "description": data.pop("description", "")}
    return {**head, "tools": tools, **data, "cases": cases}


def render_redteam(result: RedteamSuite) -> str:
    """The YAML text of the generated suite (byte-identical for the same suite and seed)."""
    lines = [
        f"# Red-team cases for suite '{result.suite.name.removesuffix('-redteam')}'"
        + (f" ({result.source})" if result.source else ""),
        f"# Written by 'agentgauge redteam' with seed {result.seed}: the same seed, the same file.",
        *_check_lines(result),
        "#",
        "# Privileged tools (targets of misdirection), and why:",
    ]
    lines += [f"#   {c.line()}" for c in result.choices if c.privileged]
    others = [c.tool for c in result.choices if not c.privileged]
    if others:
        lines.append(f"#   not privileged: {', '.join(others)}")
    lines.append("# Cases per family: " + ", ".join(f"{c.family} {c.cases}" for c in result.counts))
    if result.paraphrased or result.kept:
        lines.append(
            f"# Paraphrased by the generator model: {result.paraphrased} attack texts "
            f"({result.kept} kept as written: the rewrite lost a name, address or number)."
        )
    lines += [f"# Note: {n}" for n in result.notes]
    # one printable line each: a suite name, tool name or note with a line break would end its
    # comment and write YAML of its own, a control character would make the file unreadable
    lines = [printable(line) for line in lines]
    body = yaml.safe_dump(
        _suite_record(result),
        sort_keys=False,
        allow_unicode=False,
        width=100,
        default_flow_style=False,
    )
    return "\n".join(lines) + "\n\n" + body


def _check_lines(result: RedteamSuite) -> list[str]:
    """How to check and run the file: with ``--allow-suite-code`` when its tools are code."""
    code = _fakes(result)
    if not code:
        return ["# Check it: agentgauge validate THIS_FILE --mutate; run it like any suite."]
    return [
        "# Check it: agentgauge validate THIS_FILE --mutate --allow-suite-code; run it with",
        f"# --allow-suite-code: its tools run Python code of this folder ({', '.join(code)}).",
    ]


def _fakes(result: RedteamSuite) -> list[str]:
    """The suite-code files the generated suite names: its fakes and its Python world."""
    return suite_code_files(result.suite)


def write_redteam(
    result: RedteamSuite, out: str | Path, *, source_dir: Path | None = None
) -> list[Path]:
    """Write the suite to ``out`` (a ``.yaml``/``.yml`` file, or a folder: ``OUT/suite.yaml``),
    copying the Python fakes its tools name from ``source_dir``. Returns the files written."""
    out = Path(out)
    path = out if out.suffix in (".yaml", ".yml") else out / "suite.yaml"
    if path.exists() and path.is_dir():
        raise UserError(f"{path} is a folder; give a .yaml file or a folder to write suite.yaml in")
    # each code file passes the location rule before anything is written: a fake named
    # '../x.py:f' (or absolute, or a symlink out of the folder) is refused, never copied
    files = suite_code_files(result.suite, source_dir) if source_dir is not None else []
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_redteam(result), encoding="utf-8")
    return [path, *copy_suite_code(files, source_dir, path.parent)]
