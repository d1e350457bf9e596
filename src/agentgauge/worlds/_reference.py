"""The reference actions of a case and the states they reach: the calls of each turn (its
``expect.state.reference``, else its expected calls with the value of each matcher), applied to
a fresh world, a snapshot after each turn."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..schema import ArgMatcher, Case, Expectation, ResultRef, ToolCall
from ._api import State, World, WorldError
from ._paths import MISSING, get_path, parse_path

__all__ = ["NoReference", "reference_calls", "reference_states", "replay", "wants_reference"]


class NoReference(WorldError):
    """A turn's reference calls cannot be written down (a matcher without a concrete value)."""


@dataclass(frozen=True, slots=True)
class _Ref:
    """An argument taken from an earlier result of the replay (an expected ``ref`` matcher)."""

    ref: ResultRef


def wants_reference(case: Case) -> bool:
    """Whether some turn of ``case`` compares its state with the reference actions'."""
    return any(e is not None and e.state is not None and e.state.same_as_reference
               for e in _expectations(case))  # fmt: skip


def _expectations(case: Case) -> list[Expectation | None]:
    return [case.expect, *(t.expect for t in case.turns)]


def _concrete(m: ArgMatcher, where: str) -> Any:
    if m.ref is not None:
        return _Ref(m.ref)
    if m.fields is not None:
        return {k: _concrete(v, f"{where}.{k}") for k, v in m.fields.items()
                if not (v.optional and v.value is None and v.fields is None)}  # fmt: skip
    if m.items is not None:
        return [_concrete(v, f"{where}[{i}]") for i, v in enumerate(m.items)]
    if m.one_of:
        return m.one_of[0]
    if m.any or m.regex is not None:
        raise NoReference(f"{where} has no concrete value (any / regex)")
    return m.value


def reference_calls(case: Case) -> list[list[ToolCall]]:
    """The reference calls of each turn; NoReference names the first that cannot be built."""
    out: list[list[ToolCall]] = []
    for i, exp in enumerate(_expectations(case)):
        if exp is None:
            out.append([])
            continue
        if exp.state is not None and exp.state.reference is not None:
            out.append(list(exp.state.reference))
            continue
        calls: list[ToolCall] = []
        for k, c in enumerate(exp.tool_calls):
            where = f"turn {i}: call {k} ({c.name}): argument"
            args: dict[str, Any] = {}
            for name, m in c.arguments.items():
                if m.optional and m.value is None and m.fields is None and m.items is None:
                    continue
                try:
                    args[name] = _concrete(m, f"{where} {name}")
                except NoReference as exc:
                    raise NoReference(f"{exc}; give expect.state.reference") from None
            calls.append(ToolCall(name=c.name, arguments=args))
        out.append(calls)
    return out


def _resolve(value: Any, results: dict[str, list[Any]]) -> Any:
    if isinstance(value, _Ref):
        seen = results.get(value.ref.tool, [])
        k = value.ref.call if value.ref.call is not None else len(seen) - 1
        if not 0 <= k < len(seen):
            raise NoReference(f"no result of {value.ref.tool} to take a value from")
        got = get_path(seen[k], parse_path(value.ref.path)) if value.ref.path else seen[k]
        if got is MISSING:
            raise NoReference(f"{value.ref.tool} result has nothing at {value.ref.path}")
        return got
    if isinstance(value, dict):
        return {k: _resolve(v, results) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, results) for v in value]
    return value


def replay(world: World, turns: Sequence[Sequence[ToolCall]]) -> tuple[list[State], list[str]]:
    """Apply each turn's calls to ``world``: the snapshot after each turn, and the errors the
    world answered (a reference that does not apply to the starting state)."""
    states: list[State] = []
    errors: list[str] = []
    results: dict[str, list[Any]] = {}
    for i, calls in enumerate(turns):
        for call in calls:
            args = _resolve(dict(call.arguments), results)
            if call.name not in world.tool_names:  # a tool outside the world changes nothing
                results.setdefault(call.name, []).append(None)
                continue
            reply = world.apply(ToolCall(name=call.name, arguments=args))
            if reply.error is not None:
                errors.append(f"turn {i}: {call.name}: {reply.error}")
            results.setdefault(call.name, []).append(reply.result)
        states.append(world.snapshot())
    return states, errors


def reference_states(world: World, case: Case) -> tuple[list[State] | None, str | None, list[str]]:
    """The states the reference actions of ``case`` reach in ``world`` (a fresh one) after each
    turn, or None and why not; and the errors the world answered them with."""
    try:
        calls = reference_calls(case)
        states, errors = replay(world, calls)
    except NoReference as exc:
        return None, f"no reference actions: {exc}", []
    return states, None, errors
