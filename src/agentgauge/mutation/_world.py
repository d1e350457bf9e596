"""State mutants: the right moves, a wrong final state — a write skipped, a wrong value written,
an extra write to a record the right actions leave alone. A state check that passes one of them
cannot tell that outcome from the goal."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from ..schema import Segment, StateWrite, format_path, parse_path
from ..worlds import State, short

__all__ = ["STATE_AXES", "StateAxis", "state_mutants", "wrong_value"]

StateAxis = Literal["skip_write", "wrong_write", "extra_write"]
#: the axes of the state mutants
STATE_AXES: frozenset[str] = frozenset({"skip_write", "wrong_write", "extra_write"})


def wrong_value(value: Any) -> Any:
    """A plausible wrong value of the same kind (for a record: one field wrong)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value[::-1] if value[::-1] != value else f"{value}_wrong"
    if isinstance(value, dict):
        for key, field in value.items():
            if not isinstance(field, dict | list):
                return {**value, key: wrong_value(field)}
        return {**value, "_wrong": True}
    if isinstance(value, list):
        return value[:-1] if value else [None]
    return "wrong"


def _set(state: Any, at: Sequence[Segment], value: Any, *, delete: bool = False) -> None:
    cur = state
    for seg in at[:-1]:
        cur = cur[seg if isinstance(cur, list) else str(seg)]
    last = at[-1]
    key: Any = last if isinstance(cur, list) else str(last)
    if delete:
        del cur[key]
    else:
        cur[key] = value


def _skipped(state: State, w: StateWrite) -> State:
    out = copy.deepcopy(state)
    _set(out, parse_path(w.path), w.before, delete=w.op == "insert")
    return out


def _touched(path: tuple[Segment, ...], written: list[tuple[Segment, ...]]) -> bool:
    return any(path[: len(w)] == w or w[: len(path)] == path for w in written)


def _untouched_leaf(
    value: Any, at: tuple[Segment, ...], written: list[tuple[Segment, ...]]
) -> tuple[tuple[Segment, ...], Any] | None:
    """The first value no write touched (depth first through objects), with its path."""
    if isinstance(value, dict) and value:
        for key, sub in value.items():
            found = _untouched_leaf(sub, (*at, key), written)
            if found is not None:
                return found
        return None
    if at and not isinstance(value, dict) and not _touched(at, written):
        return at, value
    return None


def state_mutants(
    state: State, writes: Sequence[StateWrite]
) -> Iterator[tuple[StateAxis, str, State]]:
    """The state mutants of one turn: its end ``state`` and the ``writes`` the turn made."""
    if writes:
        first = writes[0]
        yield "skip_write", f"the write to {first.path} skipped", _skipped(state, first)
        target = next((w for w in writes if w.op != "delete"), None)
        if target is not None:
            bad = wrong_value(target.after)
            out = copy.deepcopy(state)
            _set(out, parse_path(target.path), bad)
            yield (
                "wrong_write",
                f"{target.path}: {short(bad, 40)} written instead of {short(target.after, 40)}",
                out,
            )
    # a record the turn wrote (its first two path segments: collection and key) is left alone
    written = [parse_path(w.path)[:2] for w in writes]
    leaf = _untouched_leaf(state, (), written)
    out = copy.deepcopy(state)
    if leaf is not None:
        at, value = leaf
        _set(out, at, wrong_value(value))
        detail = (
            f"also wrote {format_path(at)} ({short(value, 40)} -> {short(wrong_value(value), 40)})"
        )
    else:
        out["_extra"] = {"written": True}
        detail = "also wrote _extra"
    yield "extra_write", detail, out
