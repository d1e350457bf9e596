"""The ``bfcl`` scoring mode: BFCL's AST-checker verdicts on agentgauge cases.

``score_bfcl(case, turns, tools)`` turns a case and what the agent did into the BFCL shapes and
runs :mod:`._bfcl_ast`. Cases imported from BFCL carry the original ground truth
(``metadata.bfcl_ground_truth``), the category (``metadata.bfcl_category``) and the BFCL types
that JSON Schema cannot express (``metadata.bfcl_types``), so the verdict is exactly BFCL's. Other
cases are mapped as well as they can be: matchers become acceptable-value lists, JSON Schema
types become BFCL types, and the category is inferred from the expectation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..errors import ScorerError
from ..formats import bfcl_type
from ..schema import ArgMatcher, Case, Message, ToolCall, ToolSpec
from ._bfcl_ast import BfclFunction, BfclVerdict, check_ast, check_relevance
from ._bfcl_multi import bfcl_case_score, is_bfcl_multi_turn, score_bfcl_multi_turn
from ._case_score import CaseScore

__all__ = ["bfcl_category", "first_reply", "score_bfcl"]

_NO_TOOL: Final = "<no tool>"


def _function(tool: ToolSpec, hints: Mapping[str, Any]) -> BfclFunction:
    params: dict[str, tuple[str, str | None]] = {}
    tool_hints = hints.get(tool.name)
    if not isinstance(tool_hints, dict):
        tool_hints = {}
    for name, prop in tool.properties().items():
        t = tool_hints.get(name) or bfcl_type(prop) or "any"
        items_t: str | None = tool_hints.get(name + "[]")
        if items_t is None and isinstance(prop, dict) and isinstance(prop.get("items"), dict):
            items_t = bfcl_type(prop["items"])
        params[name] = (t, items_t)
    return BfclFunction(tool.name, params, tool.required())


def bfcl_category(case: Case, n_tools: int) -> str:
    """The BFCL category of a case: recorded by the importer, else inferred."""
    recorded = case.metadata.get("bfcl_category")
    if isinstance(recorded, str) and recorded:
        return recorded
    expect = case.expect
    if expect.behavior == "any_tool":
        return "relevance"
    if not expect.tool_calls:
        return "irrelevance"
    if len(expect.tool_calls) > 1:
        names = {c.name for c in expect.tool_calls}
        return "parallel_multiple" if len(names) > 1 else "parallel"
    return "multiple" if n_tools > 1 else "simple"


def _possible(matcher: ArgMatcher, where: str) -> list[Any]:
    """The BFCL acceptable-value list of a matcher ("" = may be omitted)."""
    unsupported = [
        key
        for key, on in (
            ("any", matcher.any),
            ("regex", matcher.regex is not None),
            ("tolerance", matcher.tolerance is not None),
            ("rel_tolerance", matcher.rel_tolerance is not None),
            ("date", matcher.date),
            ("ref", matcher.ref is not None),
            ("unordered", matcher.unordered),
            ("coerce", matcher.coerce),
        )
        if on
    ]
    if unsupported:
        raise ScorerError(f"{where}: bfcl mode cannot express the matcher option(s) {unsupported}")
    values: list[Any]
    if matcher.one_of is not None:
        values = list(matcher.one_of)
    elif matcher.fields is not None:
        values = [{k: _possible(m, f"{where}.{k}") for k, m in matcher.fields.items()}]
    elif matcher.items is not None:
        values = [[_item_value(m, f"{where}[{i}]") for i, m in enumerate(matcher.items)]]
    else:
        values = [matcher.value]
    if matcher.optional and "" not in values:
        values.append("")
    return values


def _item_value(matcher: ArgMatcher, where: str) -> Any:
    if matcher.fields is not None:
        return {k: _possible(m, f"{where}.{k}") for k, m in matcher.fields.items()}
    possible = _possible(matcher, where)
    if len(possible) != 1:
        raise ScorerError(f"{where}: bfcl mode needs one exact value per array item")
    return possible[0]


def _answers(case: Case) -> list[tuple[str, Mapping[str, Sequence[Any]]]]:
    truth = case.metadata.get("bfcl_ground_truth")
    if isinstance(truth, list):
        out: list[tuple[str, Mapping[str, Sequence[Any]]]] = []
        for entry in truth:
            if not isinstance(entry, dict) or len(entry) != 1:
                raise ScorerError(f"{case.id}: metadata.bfcl_ground_truth is not BFCL-shaped")
            ((name, params),) = entry.items()
            out.append((name, params))
        return out
    return [
        (c.name, {k: _possible(m, f"{c.name}.{k}") for k, m in c.arguments.items()})
        for c in case.expect.tool_calls
    ]


def first_reply(turns: Sequence[Sequence[Message]]) -> tuple[list[ToolCall], str | None]:
    """The calls and text of the agent's first reply (BFCL scores one model response)."""
    if not turns:
        return [], None
    for message in turns[0]:
        if message.role == "assistant":
            return list(message.tool_calls), message.content
    return [], None


def _ordered_tools(case: Case, tools: Mapping[str, ToolSpec]) -> list[ToolSpec]:
    if case.tools is not None:
        out: list[ToolSpec] = []
        for t in case.tools:
            if isinstance(t, ToolSpec):
                out.append(t)
            elif t in tools:
                out.append(tools[t])
        return out
    return list(tools.values())


def score_bfcl(
    case: Case, turns: Sequence[Sequence[Message]], tools: Mapping[str, ToolSpec]
) -> CaseScore:
    """Score one case with BFCL's rules (exactly BFCL's verdict for its single-turn data; a
    multi-turn entry with BFCL's multi-turn checker on its own back-ends)."""
    if is_bfcl_multi_turn(case):
        return score_bfcl_multi_turn(case, turns)
    calls, text = first_reply(turns)
    offered = _ordered_tools(case, tools)
    category = bfcl_category(case, len(offered))
    actual = ", ".join(c.name for c in calls) or _NO_TOOL
    behavior = "tool_call" if calls else ("answer" if text else None)
    if "relevance" in category:
        verdict = check_relevance(category, bool(calls))
        expected = _NO_TOOL if "irrelevance" in category else "<any tool>"
    else:
        answers = _answers(case)
        expected = ", ".join(name for name, _ in answers) or _NO_TOOL
        if not calls and text:
            verdict = BfclVerdict(
                False,
                "ast_decoder:decoder_failed",
                (f"Invalid syntax. Failed to decode AST: no function call in {text[:80]!r}.",),
            )
        else:
            hints = case.metadata.get("bfcl_types")
            hints = hints if isinstance(hints, dict) else {}
            # only the docs the checker looks at: the first (simple) or the expected ones
            if "parallel" in category or "multiple" in category:
                wanted = {name for name, _ in answers}
                needed = [t for t in offered if t.name in wanted]
            else:
                needed = offered[:1]
            functions = [_function(t, hints) for t in needed]
            verdict = check_ast(
                category, functions, [(c.name, c.arguments) for c in calls], answers
            )
    if verdict.valid:
        explanation = f"bfcl {category}: passed"
    else:
        explanation = f"{verdict.error_type}: {verdict.message}"
    return bfcl_case_score(
        verdict.valid, explanation, expected=expected, actual=actual, behavior=behavior
    )
