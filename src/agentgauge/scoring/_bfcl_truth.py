"""Reference responses built from BFCL ground truth (for conformance tests and benchmarks).

``reference_calls(case, tools)`` answers a BFCL-imported case with the first acceptable value of
each parameter: parameters whose only acceptable value is ``""`` are left out (or, when the
function requires them, given as ``""`` / ``[]``, which BFCL accepts), and nested dicts are
resolved the same way. A correct agent's answer, as BFCL defines correct.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..schema import Case, ToolCall, ToolSpec

__all__ = ["reference_calls"]


def _first(values: Any) -> tuple[bool, Any]:
    if isinstance(values, list):
        for v in values:
            if v != "":
                return True, v
    return False, None


def _resolve_dict(answer: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, values in answer.items():
        found, value = _first(values)
        if found:
            out[key] = value
    return out


def _value(prop: Any, value: Any) -> Any:
    t = prop.get("type") if isinstance(prop, dict) else None
    if t == "object" and isinstance(value, dict):
        return _resolve_dict(value)
    items = prop.get("items") if isinstance(prop, dict) else None
    if (
        t == "array"
        and isinstance(items, dict)
        and items.get("type") == "object"
        and isinstance(value, list)
    ):
        return [_resolve_dict(v) if isinstance(v, dict) else v for v in value]
    return value


def reference_calls(case: Case, tools: Mapping[str, ToolSpec]) -> list[ToolCall]:
    """The calls a correct agent makes for a BFCL-imported ``case`` (none for irrelevance;
    a call of the first tool for relevance)."""
    truth = case.metadata.get("bfcl_ground_truth")
    if not isinstance(truth, list):
        if case.expect.behavior == "any_tool" and tools:
            return [ToolCall(name=next(iter(tools)), arguments={})]
        return []
    calls: list[ToolCall] = []
    for entry in truth:
        ((name, params),) = entry.items()
        tool = tools.get(name)
        props = tool.properties() if tool is not None else {}
        required = tool.required() if tool is not None else []
        args: dict[str, Any] = {}
        for param, values in params.items():
            if param not in props and isinstance(values, list) and "" in values:
                continue  # not in the schema but optional: leave it out
            found, value = _first(values)
            if found:
                args[param] = _value(props.get(param), value)
            elif param in required:
                prop = props.get(param)
                args[param] = [] if isinstance(prop, dict) and prop.get("type") == "array" else ""
        calls.append(ToolCall.model_construct(name=name, arguments=args, id=None))
    return calls
