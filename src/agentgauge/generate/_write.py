"""The generated suite as one YAML file: a comment header (where it came from, the seed, what
was checked, how many cases were dropped and why), the source's tools, defaults and world, and
the cases. The same source and seed give the same bytes."""

from __future__ import annotations

import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml

from .._suite_code import SuiteCodePolicy
from ..errors import UserError
from ..schema import Suite
from ._text import USER_DEFAULTS

__all__ = ["code_files", "copy_code", "head_record", "render", "suite_path"]

FileKind = Literal["tool function", "world class"]


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
    # default user: each conversation's scripted user is whole in its case; no tool_mode: the
    # cases are built on the simulations and the world written here, so they run on them
    defaults = suite.defaults.model_dump(
        mode="json",
        exclude_defaults=True,
        by_alias=True,
        exclude={"agent", "judge", "user", "tool_mode"},
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


def _code_refs(suite: Suite) -> list[tuple[str, FileKind]]:
    refs: list[tuple[str, FileKind]] = [
        (t.simulation.function, "tool function")
        for t in suite.tools
        if t.simulation is not None and t.simulation.function
    ]
    for case in suite.cases:
        for given in case.tool_results.values():
            sims = given if isinstance(given, list) else [given]
            refs += [(s.function, "tool function") for s in sims if s.function]
    if suite.world is not None and suite.world.class_ is not None:
        refs.append((suite.world.class_, "world class"))
    return refs


def code_files(suite: Suite, root: Path | None = None) -> list[str]:
    """The suite-code files the suite names (its fakes, its Python world), relative to its
    folder. With ``root`` (the suite's folder) each must pass the location rule of suite code
    (a ``.py`` file inside the folder: no absolute path, no ``..``, no symlink out of it;
    SuiteCodeRefused otherwise), so that copying it never reads or writes outside the two
    folders. Nothing is imported."""
    files = []
    policy = SuiteCodePolicy(root=root.resolve(), allowed=False) if root is not None else None
    for ref, kind in _code_refs(suite):
        if policy is not None:
            target = policy.locate_function(ref, kind)
            files.append(target.file.relative_to(policy.root).as_posix())
            continue
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
    copied: list[Path] = []
    if source_dir is None:
        return copied
    top, out = source_dir.resolve(), dest_dir.resolve()
    for rel in files:
        src, dst = (top / rel).resolve(), (out / rel).resolve()
        if not (src.is_relative_to(top) and dst.is_relative_to(out)):
            raise UserError(f"{rel}: suite code must be a file inside the suite's folder")
        if src.is_file() and src != dst:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dst)
            copied.append(dest_dir / rel)
    return copied
