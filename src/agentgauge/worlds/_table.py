"""The declarative world: named collections of records and CRUD operations on them, no code."""

from __future__ import annotations

import copy
from typing import Any

from ..schema import JsonValue, ToolCall, WorldOp, WorldSpec
from ._api import State, WorldError, WorldReply
from ._diff import state_writes
from ._paths import copy_json, short

__all__ = ["TableWorld", "check_table_state"]


def check_table_state(state: State) -> None:
    """Raise WorldError unless every collection maps keys to records (objects)."""
    for name, coll in state.items():
        if not isinstance(coll, dict):
            raise WorldError(
                f"state.{name}: a collection is a mapping of key -> record, got "
                f"{type(coll).__name__}"
            )
        for key, rec in coll.items():
            if not isinstance(rec, dict):
                raise WorldError(
                    f"state.{name}.{key}: a record is a mapping of fields, got {type(rec).__name__}"
                )


class TableWorld:
    """A declarative world: ``spec.operations`` acting on a copy of ``state``."""

    def __init__(self, spec: WorldSpec, state: State, *, copy_state: bool = True) -> None:
        """``copy_state`` False: ``state`` is the world's own from now on (a fresh copy the
        caller gives away, as :class:`WorldBuilder` does)."""
        check_table_state(state)
        self._spec = spec
        self._state: dict[str, dict[str, dict[str, Any]]] = (
            copy_json(state) if copy_state else state
        )
        self.tool_names = frozenset(spec.operations)

    def snapshot(self) -> State:
        return copy_json(self._state)  # type: ignore[no-any-return]

    def apply(self, call: ToolCall) -> WorldReply:
        op = self._spec.operations.get(call.name)
        if op is None:
            return WorldReply(error=f"the world has no operation '{call.name}'")
        coll = self._state.get(op.collection)
        if coll is None:
            return WorldReply(error=f"the world has no collection '{op.collection}'")
        key_field = self._spec.key_field(op.collection)
        args = call.arguments
        if op.op == "find":
            return self._find(op, coll, key_field, args)
        if op.op == "insert":
            return self._insert(op, coll, key_field, args)
        arg = op.key or key_field
        if arg not in args:
            return WorldReply(error=f"{call.name}: missing argument '{arg}'")
        key = _key_text(args[arg])
        rec = coll.get(key)
        if rec is None:
            return WorldReply(error=f"{op.collection}: no record '{key}'")
        unmet = _unmet(op, rec)
        if unmet is not None:
            return WorldReply(error=f"{op.collection} '{key}': {unmet}")
        if op.op == "get":
            return WorldReply(result=_shown(op, key_field, key, rec))
        at = (op.collection, key)
        if op.op == "delete":
            del coll[key]
            return WorldReply(
                result=op.result if op.result is not None else {"deleted": key},
                writes=tuple(state_writes({key: rec}, {}, (op.collection,))),
            )
        before = copy.deepcopy(rec)
        rec.update(_written(op, args, exclude=arg))
        return WorldReply(
            result=_shown(op, key_field, key, rec), writes=tuple(state_writes(before, rec, at))
        )

    def _find(
        self, op: WorldOp, coll: dict[str, dict[str, Any]], key_field: str, args: dict[str, Any]
    ) -> WorldReply:
        wanted = _matched(op, args)
        found = [
            {key_field: key, **rec}
            for key, rec in coll.items()
            if all(_field(rec, key_field, key, f) == v for f, v in wanted.items())
        ]
        return WorldReply(result=op.result if op.result is not None else found)

    def _insert(
        self, op: WorldOp, coll: dict[str, dict[str, Any]], key_field: str, args: dict[str, Any]
    ) -> WorldReply:
        arg = op.key or key_field
        rec = _written(op, args, exclude=arg)
        raw = args.get(arg, rec.pop(key_field, None))
        key = _key_text(raw) if raw is not None else _next_key(coll)
        if key in coll:
            return WorldReply(error=f"{op.collection}: '{key}' already exists")
        rec.pop(key_field, None)
        coll[key] = rec
        return WorldReply(
            result=_shown(op, key_field, key, rec),
            writes=tuple(state_writes({}, {key: rec}, (op.collection,))),
        )


def _key_text(value: Any) -> str:
    return value if isinstance(value, str) else short(value)


def _next_key(coll: dict[str, Any]) -> str:
    """The next free key: one more than the largest number among the keys (1 for none)."""
    numbers = [int(k) for k in coll if k.isdigit()]
    n = max(numbers, default=len(coll)) + 1
    while str(n) in coll:
        n += 1
    return str(n)


def _written(op: WorldOp, args: dict[str, Any], *, exclude: str) -> dict[str, Any]:
    """The fields a write sets: the mapped (or every other) argument given, then ``set``."""
    if op.fields is None:
        out = {k: copy.deepcopy(v) for k, v in args.items() if k != exclude}
    else:
        out = {f: copy.deepcopy(args[a]) for f, a in op.fields.items() if a in args}
    out.update(copy.deepcopy(op.set))
    return out


def _matched(op: WorldOp, args: dict[str, Any]) -> dict[str, Any]:
    if op.fields is None:
        return dict(args)
    return {f: args[a] for f, a in op.fields.items() if a in args}


def _field(rec: dict[str, Any], key_field: str, key: str, name: str) -> Any:
    return key if name == key_field and name not in rec else rec.get(name)


def _unmet(op: WorldOp, rec: dict[str, Any]) -> str | None:
    for name, want in op.require.items():
        have = rec.get(name)
        if have != want:
            return f"{name} is {short(have)}, must be {short(want)}"
    return None


def _shown(op: WorldOp, key_field: str, key: str, rec: dict[str, Any]) -> JsonValue:
    if op.result is not None:
        return op.result
    return {key_field: key, **copy.deepcopy(rec)}
