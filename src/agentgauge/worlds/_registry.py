"""Built-in worlds: back-ends that ship with agentgauge (or a package of its own) rather than a
suite's folder, named in a suite by ``world: {builtin: NAME, state: ...}``.

A built-in world is a :class:`~agentgauge.worlds.WorldFactory` — anything that takes the case's
starting state and returns a :class:`~agentgauge.worlds.World` — registered under a name, either
as the object itself or as ``"package.module:attr"`` imported the first time a suite uses it
(so a back-end with heavy dependencies costs nothing until then). It is agentgauge's own code,
not suite code: no ``--allow-suite-code`` is asked.
"""

from __future__ import annotations

import importlib
from typing import Any

from .._messages import did_you_mean
from ..errors import UserError
from ._api import WorldFactory

__all__ = ["builtin_world", "builtin_world_names", "register_world"]

#: the worlds that ship with agentgauge (BFCL's multi-turn back-ends: docs/bfcl.md)
_REGISTRY: dict[str, WorldFactory | str] = {"bfcl": "agentgauge.worlds._bfcl_builtin:bfcl_world"}


def register_world(name: str, factory: WorldFactory | str) -> None:
    """Make ``factory`` (or the ``"module:attr"`` naming it) the built-in world ``name``."""
    if not name or ":" in name:
        raise ValueError(f"a built-in world's name is a plain word, got {name!r}")
    _REGISTRY[name] = factory


def builtin_world_names() -> list[str]:
    return sorted(_REGISTRY)


def builtin_world(name: str) -> WorldFactory:
    """The factory of the built-in world ``name`` (UserError: unknown, or it fails to load)."""
    entry = _REGISTRY.get(name)
    if entry is None:
        known = builtin_world_names()
        hint = did_you_mean(name, known)
        shown = ", ".join(known) if known else "none are registered"
        raise UserError(f"unknown built-in world '{name}'{hint} (known: {shown})")
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        try:
            loaded: Any = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as exc:
            raise UserError(f"built-in world '{name}' cannot be loaded: {exc}") from None
        _REGISTRY[name] = loaded
        entry = loaded
    assert not isinstance(entry, str)
    return entry
