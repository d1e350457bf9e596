"""The built-in world ``bfcl``: one BFCL multi-turn entry's back-ends (``bfcl-eval``'s classes,
loaded with the entry's initial configuration), answering the agent's calls as BFCL's
inference loop does (the result is the string BFCL would send the model).

A suite names it ``world: {builtin: bfcl}``; each case's ``world.state`` is
``{involved_classes: [...], initial_config: {...}, long_context: false}`` (what
``agentgauge import bfcl`` writes for a multi-turn entry). The state graded and shown is every
instance's public attributes (what BFCL compares), made JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ..schema import ToolCall
from ._api import State, WorldError, WorldReply
from ._bfcl_exec import BACKENDS, BackendSet, fc_call_string
from ._diff import state_writes

__all__ = [
    "EXEC_PREFIX",
    "NOT_A_LIST",
    "BfclWorld",
    "bfcl_call_string",
    "bfcl_world",
    "entry_backends",
]

#: a recorded prompt-mode call carries BFCL's exact execution string in its id
EXEC_PREFIX: Final = "bfcl-exec:"
#: the ``name`` of the one message of a recorded multi-turn result that is not a list of turns
NOT_A_LIST: Final = "bfcl:not-a-list"
_MAX_DEPTH: Final = 60


def bfcl_call_string(call: ToolCall) -> str:
    """What BFCL executes for ``call``: the recorded execution string of a prompt-mode call,
    else the function-calling form ``name(k=repr(v),...)``."""
    if call.id is not None and call.id.startswith(EXEC_PREFIX):
        return call.id[len(EXEC_PREFIX) :]
    return fc_call_string(call.name, call.arguments)


def entry_backends(state: Mapping[str, Any]) -> BackendSet:
    """Fresh back-ends for a world state ``{involved_classes, initial_config, long_context}``."""
    involved = state.get("involved_classes", [])
    config = state.get("initial_config", {})
    if not isinstance(involved, list) or not all(isinstance(c, str) for c in involved):
        raise WorldError("bfcl world: involved_classes: expected a list of BFCL class names")
    unknown = [c for c in involved if c not in BACKENDS]
    if unknown:
        known = ", ".join(BACKENDS)
        raise WorldError(f"bfcl world: unknown back-end(s) {unknown} (known: {known})")
    if not isinstance(config, dict):
        raise WorldError("bfcl world: initial_config: expected an object")
    extra = sorted(set(state) - {"involved_classes", "initial_config", "long_context"})
    if extra:
        raise WorldError(f"bfcl world: unknown state field(s) {extra}")
    return BackendSet(involved, config, long_context=bool(state.get("long_context", False)))


def _plain(value: Any, stack: tuple[int, ...] = ()) -> Any:
    """``value`` as JSON: objects as their public attributes, a reference back to an enclosing
    object (a directory's ``parent``) left out."""
    if value is None or type(value) in (str, int, bool):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    if len(stack) > _MAX_DEPTH:
        return "<too deep>"
    inner = (*stack, id(value))
    if isinstance(value, dict):
        return {str(k): _plain(v, inner) for k, v in value.items() if id(v) not in inner}
    if isinstance(value, list | tuple):
        return [_plain(v, inner) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((_plain(v, inner) for v in value), key=repr)
    attrs = getattr(value, "__dict__", None)
    if isinstance(attrs, dict):
        return {
            k: _plain(v, inner)
            for k, v in attrs.items()
            if not k.startswith("_") and not callable(v) and id(v) not in inner
        }
    return str(value)


class BfclWorld:
    """A BFCL entry's back-ends as a :class:`~agentgauge.worlds.World`."""

    def __init__(self, state: State) -> None:
        self.backends = entry_backends(state)
        self.tool_names = frozenset(self.backends.methods)

    def snapshot(self) -> State:
        return {
            name: _plain({k: v for k, v in vars(inst).items() if not k.startswith("_")})
            for name, inst in self.backends.instances.items()
        }

    def apply(self, call: ToolCall) -> WorldReply:
        before = self.snapshot()
        result = self.backends.run(bfcl_call_string(call))
        return WorldReply(result=result, writes=tuple(state_writes(before, self.snapshot())))


def bfcl_world(state: State) -> BfclWorld:
    """The ``bfcl`` built-in world's factory."""
    return BfclWorld(state)
