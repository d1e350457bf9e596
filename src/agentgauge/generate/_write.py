"""The generated suite as one YAML file: a comment header (where it came from, the seed, what
was checked, how many cases were dropped and why), the source's tools, defaults and world, and
the cases. The same source and seed give the same bytes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from ..errors import UserError
from ..schema import Suite
from ._text import USER_DEFAULTS

__all__ = ["head_record", "render", "suite_path"]


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


def suite_path(out: Path) -> Path:
    """``out`` itself (a ``.yaml`` file), or ``OUT/suite.yaml`` for a folder."""
    path = out if out.suffix in (".yaml", ".yml") else out / "suite.yaml"
    if path.is_dir():
        raise UserError(f"{path} is a folder; give a .yaml file or a folder to write suite.yaml in")
    return path
