"""Worlds: the state a case's tools act on, built fresh for every case and trial.

A :class:`World` answers tool calls (:meth:`World.apply` -> :class:`WorldReply` with the writes)
and shows its state as JSON (:meth:`World.snapshot`). :class:`WorldBuilder` makes one per case
from the suite's ``world`` (declarative :class:`TableWorld`, or :class:`PythonWorld` around a
suite's class). Grading reads :class:`WorldOutcome` snapshots only. See docs/worlds.md.
The built-in world ``bfcl`` runs BFCL's multi-turn back-ends (``bfcl-eval``) and
:func:`check_bfcl_multi_turn` is BFCL's multi-turn checker on them (docs/bfcl.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._api import State, World, WorldError, WorldFactory, WorldOutcome, WorldReply
from ._build import WorldBuilder, start_state
from ._diff import diff_states, merge_patch, state_writes
from ._paths import MISSING, Segment, format_path, get_path, json_equal, parse_path, short, to_json
from ._python import PythonWorld, load_world_class, public_methods
from ._reference import reference_calls, reference_states, replay, wants_reference
from ._registry import builtin_world, builtin_world_names, register_world
from ._table import TableWorld, check_table_state

if TYPE_CHECKING:
    from ._bfcl_check import BfclMultiTurnVerdict, check_bfcl_multi_turn
    from ._bfcl_exec import BACKENDS as BFCL_BACKENDS
    from ._bfcl_exec import BFCL_INSTALL, fc_call_string, require_bfcl_eval
    from ._bfcl_world import EXEC_PREFIX as BFCL_EXEC_PREFIX
    from ._bfcl_world import NOT_A_LIST as BFCL_NOT_A_LIST
    from ._bfcl_world import BfclWorld, bfcl_call_string

#: BFCL's names, imported on first use (a plain run has no BFCL world): name -> module[:attr]
_BFCL: dict[str, str] = {
    "BfclMultiTurnVerdict": "._bfcl_check",
    "check_bfcl_multi_turn": "._bfcl_check",
    "BFCL_BACKENDS": "._bfcl_exec:BACKENDS",
    "BFCL_INSTALL": "._bfcl_exec",
    "fc_call_string": "._bfcl_exec",
    "require_bfcl_eval": "._bfcl_exec",
    "BFCL_EXEC_PREFIX": "._bfcl_world:EXEC_PREFIX",
    "BFCL_NOT_A_LIST": "._bfcl_world:NOT_A_LIST",
    "BfclWorld": "._bfcl_world",
    "bfcl_call_string": "._bfcl_world",
}

__all__ = [
    "BFCL_BACKENDS",
    "BFCL_EXEC_PREFIX",
    "BFCL_INSTALL",
    "BFCL_NOT_A_LIST",
    "MISSING",
    "BfclMultiTurnVerdict",
    "BfclWorld",
    "PythonWorld",
    "Segment",
    "State",
    "TableWorld",
    "World",
    "WorldBuilder",
    "WorldError",
    "WorldFactory",
    "WorldOutcome",
    "WorldReply",
    "bfcl_call_string",
    "builtin_world",
    "builtin_world_names",
    "check_bfcl_multi_turn",
    "check_table_state",
    "diff_states",
    "fc_call_string",
    "format_path",
    "get_path",
    "json_equal",
    "load_world_class",
    "merge_patch",
    "parse_path",
    "public_methods",
    "reference_calls",
    "reference_states",
    "register_world",
    "replay",
    "require_bfcl_eval",
    "short",
    "start_state",
    "state_writes",
    "to_json",
    "wants_reference",
]

__getattr__, __dir__ = lazy_exports(__name__, _BFCL, __all__)
