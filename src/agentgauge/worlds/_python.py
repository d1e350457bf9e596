"""A Python world: a class of the suite's folder (suite code) whose methods are the tools.

``world: {class: "shop.py:Shop"}``: each case and trial builds ``Shop(state)`` with a fresh
copy of the starting state. A public method named like a tool answers its calls (the arguments
as keyword arguments; the return value, made JSON, is the result; an exception is an error
result). The state graded is ``snapshot()`` when the class defines it, else the instance's
public attributes, made JSON (objects become their public attributes, so the state of plain
back-end classes needs no code). Each call's writes are the difference of the snapshots
around it.
"""

from __future__ import annotations

import inspect
from typing import Any

from .._suite_code import SuiteCodePolicy, import_suite_file, resolve_attr
from ..errors import UserError
from ..schema import ToolCall
from ._api import State, WorldError, WorldReply
from ._diff import state_writes
from ._paths import copy_json, to_json

__all__ = ["PythonWorld", "load_world_class", "public_methods"]

#: methods of a world class that are not tools
_NOT_TOOLS = frozenset({"snapshot"})


def load_world_class(ref: str, policy: SuiteCodePolicy) -> type[Any]:
    """The class ``ref`` (``file.py:Class``) names, if ``policy`` allows suite code
    (UserError otherwise: the location rule and the opt-in are checked before any import)."""
    target = policy.check_function(ref, "world class")
    label = f"world class '{ref}'"
    obj = resolve_attr(import_suite_file(target.file), target.attr, label)
    if not inspect.isclass(obj):
        raise UserError(f"{label} is not a class")
    return obj


def public_methods(cls: type[Any]) -> frozenset[str]:
    """The tool names a world class answers: its public methods but ``snapshot``."""
    return frozenset(
        name
        for name, member in inspect.getmembers(cls)
        if not name.startswith("_") and name not in _NOT_TOOLS and callable(member)
        and not inspect.isclass(member)
    )  # fmt: skip


class PythonWorld:
    """A world backed by an instance of a suite's world class."""

    def __init__(self, cls: type[Any], state: State) -> None:
        try:
            self._obj = cls(copy_json(state))
        except Exception as exc:
            raise WorldError(f"{cls.__name__}(state) failed: {type(exc).__name__}: {exc}") from exc
        self.tool_names = public_methods(cls)
        self._last: State | None = None

    def snapshot(self) -> State:
        return copy_json(self._current())  # type: ignore[no-any-return]

    def _current(self) -> State:
        if self._last is None:
            own = getattr(self._obj, "snapshot", None)
            raw = own() if callable(own) else self._obj
            value = to_json(raw)
            if not isinstance(value, dict):
                raise WorldError(
                    f"{type(self._obj).__name__}.snapshot() must return an object (a dict), "
                    f"got {type(value).__name__}"
                )
            self._last = value
        return self._last

    def apply(self, call: ToolCall) -> WorldReply:
        method = getattr(self._obj, call.name, None)
        if call.name not in self.tool_names or not callable(method):
            return WorldReply(error=f"the world has no tool '{call.name}'")
        before = self._current()
        try:
            value = method(**call.arguments)
            if inspect.isawaitable(value):
                close = getattr(value, "close", None)
                if callable(close):
                    close()
                raise WorldError("world methods must be plain functions, not async")
        except WorldError:
            raise
        except Exception as exc:
            self._last = None
            writes = state_writes(before, self._current())
            return WorldReply(error=f"{type(exc).__name__}: {exc}", writes=tuple(writes))
        self._last = None
        return WorldReply(
            result=to_json(value), writes=tuple(state_writes(before, self._current()))
        )
