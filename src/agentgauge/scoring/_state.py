"""Outcome checks: the world's state after a turn against ``expect.state``.

Pure: a function of the expectation and snapshots (:class:`~agentgauge.worlds.WorldOutcome`);
the world itself is never touched. One score per turn, ``state``, with a part per check
(``checks[i]``, ``unchanged``, ``reference``); its explanation names each differing record and
field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final, Literal

from ..schema import Score, StateCheck, StateDiff, StateExpectation
from ..worlds import (
    MISSING,
    WorldOutcome,
    diff_states,
    get_path,
    json_equal,
    parse_path,
    short,
)

__all__ = ["describe_diff", "score_state"]

#: differences listed in one explanation (the rest are counted)
_SHOWN: Final = 5


def describe_diff(d: StateDiff) -> str:
    """One difference as a person reads it: ``orders.A1.status: expected 'x', got 'y'`` (a
    change of what had to stay unchanged: ``was 'x', now 'y'``)."""
    if d.source == "unchanged":
        if d.kind == "missing":
            return f"{d.path}: removed (was {short(d.expected)})"
        if d.kind == "unexpected":
            return f"{d.path}: added {short(d.actual)}"
        return f"{d.path}: was {short(d.expected)}, now {short(d.actual)}"
    if d.kind == "missing":
        return f"{d.path}: missing (expected {short(d.expected)})"
    if d.kind == "unexpected":
        return f"{d.path}: unexpected {short(d.actual)}"
    return f"{d.path}: expected {short(d.expected)}, got {short(d.actual)}"


def _listed(diffs: Sequence[StateDiff]) -> str:
    shown = "; ".join(describe_diff(d) for d in diffs[:_SHOWN])
    more = len(diffs) - _SHOWN
    return f"{shown}; and {more} more" if more > 0 else shown


def _contains(have: Any, want: Any) -> bool:
    if isinstance(have, str):
        return isinstance(want, str) and want in have
    if isinstance(have, list):
        return any(json_equal(x, want) or _has_fields(x, want) for x in have)
    return _has_fields(have, want)


def _has_fields(have: Any, want: Any) -> bool:
    if not isinstance(have, dict) or not isinstance(want, dict):
        return False
    return all(k in have and json_equal(have[k], v) for k, v in want.items())


def _items(value: Any) -> list[Any] | None:
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return value
    return None


def _check(check: StateCheck, state: Any, source: str) -> tuple[bool, str, list[StateDiff]]:
    """(passed, explanation, differences) of one check on ``state``."""
    path = check.path
    have = get_path(state, parse_path(path))
    kind = check.kind
    if kind == "absent":
        ok = (have is MISSING) == bool(check.absent)
        if ok:
            return True, f"{path}: {'absent' if check.absent else 'present'}", []
        if check.absent:
            diff = StateDiff(path=path, kind="unexpected", actual=have, source=source)
            return False, f"{path}: expected absent, got {short(have)}", [diff]
        diff = StateDiff(path=path, kind="missing", source=source)
        return False, f"{path}: expected something, got nothing", [diff]
    if have is MISSING:
        want = check.equals if kind == "equals" else None
        diff = StateDiff(path=path, kind="missing", expected=want, source=source)
        return False, f"{path}: missing (expected {_wanted(check)})", [diff]
    if kind == "equals":
        ok = json_equal(have, check.equals)
    elif kind == "contains":
        ok = _contains(have, check.contains)
    elif kind == "matches":
        ok = isinstance(have, str) and re.fullmatch(check.matches or "", have) is not None
    else:
        items = _items(have)
        if items is None:
            diff = StateDiff(path=path, kind="differs", expected=check.count, actual=have,
                             source=source)  # fmt: skip
            return False, f"{path}: expected {_wanted(check)}, got {short(have)}", [diff]
        n = sum(1 for x in items if not check.where or _has_fields(x, check.where))
        ok = n == check.count
        if not ok:
            diff = StateDiff(path=path, kind="differs", expected=check.count, actual=n,
                             source=source)  # fmt: skip
            return False, f"{path}: expected {_wanted(check)}, got {n}", [diff]
        return True, f"{path}: {n} items", []
    if ok:
        return True, f"{path}: {_wanted(check)}", []
    diff = StateDiff(path=path, kind="differs", expected=_expected_value(check), actual=have,
                     source=source)  # fmt: skip
    return False, f"{path}: expected {_wanted(check)}, got {short(have)}", [diff]


def _wanted(check: StateCheck) -> str:
    kind = check.kind
    if kind == "equals":
        return short(check.equals)
    if kind == "contains":
        return f"something containing {short(check.contains)}"
    if kind == "matches":
        return f"a match of /{check.matches}/"
    where = f" where {short(check.where)}" if check.where else ""
    return f"{check.count} items{where}"


def _expected_value(check: StateCheck) -> Any:
    return check.equals if check.kind == "equals" else _wanted(check)


def _part(name: str, passed: bool, explanation: str) -> Score:
    return Score(name=name, value=1.0 if passed else 0.0, passed=passed, explanation=explanation)


def _unchanged(paths: Sequence[str], initial: Any, state: Any) -> tuple[Score, list[StateDiff]]:
    diffs: list[StateDiff] = []
    for path in paths:
        at = parse_path(path)
        before, after = get_path(initial, at), get_path(state, at)
        if before is MISSING and after is MISSING:
            continue
        if before is MISSING or after is MISSING:
            kind: Literal["unexpected", "missing"] = (
                "unexpected" if before is MISSING else "missing"
            )
            diffs.append(StateDiff(path=path, kind=kind, expected=None if before is MISSING
                                   else before, actual=None if after is MISSING else after,
                                   source="unchanged"))  # fmt: skip
            continue
        diffs.extend(diff_states(before, after, at=at, source="unchanged"))
    if not diffs:
        return _part("unchanged", True, f"unchanged: {', '.join(paths)}"), []
    return _part("unchanged", False, f"changed what must stay unchanged: {_listed(diffs)}"), diffs


def _reference(
    exp: StateExpectation, turn: int, world: WorldOutcome, state: Any
) -> tuple[Score, list[StateDiff]]:
    ref = world.reference
    if ref is None or turn >= len(ref):
        why = world.reference_problem or "the reference state was not computed"
        return _part("reference", False, f"reference: {why}"), []
    ignore = [parse_path(p) for p in exp.ignore]
    diffs = diff_states(ref[turn], state, ignore=ignore, source="reference")
    notes = f" (the reference actions got errors: {'; '.join(world.reference_errors)})"
    note = notes if world.reference_errors else ""
    if not diffs:
        return _part("reference", True, f"the same state as the reference actions{note}"), []
    text = f"not the state the reference actions reach: {_listed(diffs)}{note}"
    return _part("reference", False, text), diffs


def score_state(
    exp: StateExpectation,
    turn: int,
    world: WorldOutcome | None,
    *,
    prefix: str = "",
    last: bool = True,
) -> tuple[Score, list[StateDiff]]:
    """The ``state`` score of one turn (``last``: the final turn, called the final state) and
    the differences found."""
    label = "final state" if last else f"state after turn {turn}"
    name = prefix + "state"
    state = world.after(turn) if world is not None else None
    if world is None or state is None:
        why = "no world state recorded" if world is None else f"turn {turn} was not reached"
        return Score(name=name, value=0.0, passed=False, explanation=f"{label}: {why}"), []
    parts: list[Score] = []
    diffs: list[StateDiff] = []
    for i, check in enumerate(exp.checks):
        ok, text, found = _check(check, state, f"checks[{i}]")
        parts.append(_part(f"checks[{i}]", ok, text))
        diffs.extend(found)
    if exp.unchanged:
        part, found = _unchanged(exp.unchanged, world.initial, state)
        parts.append(part)
        diffs.extend(found)
    if exp.same_as_reference:
        part, found = _reference(exp, turn, world, state)
        parts.append(part)
        diffs.extend(found)
    failed = [p for p in parts if not p.passed]
    value = (len(parts) - len(failed)) / len(parts)
    if failed:
        text = f"{label}: " + "; ".join(p.explanation for p in failed)
    else:
        text = f"{label}: as expected ({len(parts)} checks)"
    score = Score(
        name=name,
        value=value,
        passed=not failed,
        explanation=text,
        parts=parts,
        expected="goal state",
        actual="goal state" if not failed else "other state",
    )
    return score, diffs
