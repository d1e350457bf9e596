"""The generated suite as one YAML file: a comment header (where it came from, the seed, what
was checked, how many cases were dropped and why), the source's tools, defaults and world, and
the cases. The same source and seed give the same bytes."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from ..errors import UserError
from ..schema import Suite
from ._text import USER_DEFAULTS

__all__ = ["code_files", "copy_code", "head_record", "render", "suite_path"]


def head_record(
    suite: Suite, name: str, description: str, answered: frozenset[str]
) -> dict[str, Any]:
    """The suite's head as written: its tools (simulations and marks kept; a tool neither a
    simulation nor the world (``answered``) answers gets a stub result), defaults and world (its
    state inline)."""
    world = suite.world
    tools = []
    for tool in suite.tools:
        t = tool.model_dump(mode="json", exclude_defaults=True)
        if tool.privileged is not None:
            t["privileged"] = tool.privileged
        if tool.simulation is None and tool.name not in answered:
            t["simulation"] = {"result": {"status": "ok"}}
        tools.append(t)
    out: dict[str, Any] = {"name": name, "description": description, "tools": tools}
    # no agent or judge of the source: the run names its own (the suite has no scorers); no
    # default user: each conversation's scripted user is whole in its case
    defaults = suite.defaults.model_dump(
        mode="json", exclude_defaults=True, by_alias=True, exclude={"agent", "judge", "user"}
    )
    out["defaults"] = {**defaults, "user": USER_DEFAULTS}
    if world is not None:
        out["world"] = world.model_dump(
            mode="json", exclude_defaults=True, by_alias=True, exclude={"state_file"}
        )
    return out


def render(header: Sequence[str], head: Mapping[str, Any], cases: Sequence[Any]) -> str:
    body = yaml.safe_dump(
        {**head, "cases": list(cases)},
        sort_keys=False,
        allow_unicode=False,
        width=100,
        default_flow_style=False,
    )
    return "\n".join(f"# {h}" if h else "#" for h in header) + "\n\n" + body


def code_files(suite: Suite) -> list[str]:
    """The suite-code files the suite names (its fakes, its Python world), relative."""
    refs = [t.simulation.function for t in suite.tools
            if t.simulation is not None and t.simulation.function]  # fmt: skip
    for case in suite.cases:
        for given in case.tool_results.values():
            refs += [s.function for s in (given if isinstance(given, list) else [given])
                     if s.function]  # fmt: skip
    if suite.world is not None and suite.world.class_ is not None:
        refs.append(suite.world.class_)
    files = []
    for ref in refs:
        name = ref.rpartition(":")[0]
        files.append(name if name.endswith(".py") else name.replace(".", "/") + ".py")
    return sorted(set(files))


def suite_path(out: Path) -> Path:
    """``out`` itself (a ``.yaml`` file), or ``OUT/suite.yaml`` for a folder."""
    path = out if out.suffix in (".yaml", ".yml") else out / "suite.yaml"
    if path.is_dir():
        raise UserError(f"{path} is a folder; give a .yaml file or a folder to write suite.yaml in")
    return path


def copy_code(files: Sequence[str], source_dir: Path | None, dest_dir: Path) -> list[Path]:
    """Copy the suite's code files next to the written suite (suite code lives in its folder)."""
    copied = []
    for rel in files:
        if source_dir is None:
            continue
        src, dst = source_dir / rel, dest_dir / rel
        if src.is_file() and src.resolve() != dst.resolve():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            copied.append(dst)
    return copied
