"""Comparing states: the differences between an expected and an actual state, the writes between
two snapshots, and JSON merge patches (a case's changes to the initial state)."""

from __future__ import annotations

import copy
from collections.abc import Collection, Mapping
from typing import Any

from ..schema import StateDiff, StateWrite
from ._paths import Segment, format_path, json_equal

__all__ = ["diff_states", "merge_patch", "state_writes"]


def diff_states(
    expected: Any,
    actual: Any,
    *,
    at: tuple[Segment, ...] = (),
    ignore: Collection[tuple[Segment, ...]] = (),
    source: str = "",
) -> list[StateDiff]:
    """Every difference between ``expected`` and ``actual``, record by record and field by
    field (objects are followed key by key; lists and scalars compare whole)."""
    out: list[StateDiff] = []
    _diff(expected, actual, at, frozenset(ignore), source, out)
    return out


def _diff(
    exp: Any,
    act: Any,
    at: tuple[Segment, ...],
    ignore: frozenset[tuple[Segment, ...]],
    source: str,
    out: list[StateDiff],
) -> None:
    if at in ignore:
        return
    if isinstance(exp, dict) and isinstance(act, dict):
        for key, value in exp.items():
            sub = (*at, key)
            if key not in act:
                if sub not in ignore:
                    out.append(
                        StateDiff(path=format_path(sub), kind="missing", expected=value,
                                  source=source)
                    )  # fmt: skip
            else:
                _diff(value, act[key], sub, ignore, source, out)
        for key, value in act.items():
            sub = (*at, key)
            if key not in exp and sub not in ignore:
                out.append(
                    StateDiff(path=format_path(sub), kind="unexpected", actual=value, source=source)
                )
        return
    if not json_equal(exp, act):
        out.append(
            StateDiff(
                path=format_path(at) if at else "<state>",
                kind="differs",
                expected=exp,
                actual=act,
                source=source,
            )
        )


def state_writes(before: Any, after: Any, at: tuple[Segment, ...] = ()) -> list[StateWrite]:
    """The writes that turn ``before`` into ``after``: an ``insert`` or ``delete`` of each key
    that appeared or went, an ``update`` of each value that changed (objects are followed key by
    key)."""
    out: list[StateWrite] = []
    _writes(before, after, at, out)
    return out


def _writes(before: Any, after: Any, at: tuple[Segment, ...], out: list[StateWrite]) -> None:
    if before is after:
        return
    if isinstance(before, dict) and isinstance(after, dict):
        if before == after:  # C-speed shortcut for the untouched parts (True == 1 aside)
            return
        for key, value in before.items():
            sub = (*at, key)
            if key not in after:
                out.append(StateWrite(path=format_path(sub), op="delete", before=value))
            else:
                _writes(value, after[key], sub, out)
        for key, value in after.items():
            if key not in before:
                out.append(StateWrite(path=format_path((*at, key)), op="insert", after=value))
        return
    if not json_equal(before, after):
        path = format_path(at) if at else "<state>"
        out.append(StateWrite(path=path, op="update", before=before, after=after))


def merge_patch(target: Any, patch: Any) -> Any:
    """``target`` with the JSON merge patch ``patch`` applied (RFC 7386): an object merges key
    by key, ``null`` deletes a key, anything else replaces. Neither argument is changed."""
    if not isinstance(patch, Mapping):
        return copy.deepcopy(patch)
    out: dict[str, Any] = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out
