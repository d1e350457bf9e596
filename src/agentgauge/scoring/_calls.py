"""Several calls: line the agent's calls up with the expected ones, then score names, arguments
and order.

- every pair of an expected and an actual call with the same tool name is scored (arguments);
- pairs are chosen by an optimal assignment that first maximises the number of strictly passing
  pairs, then the number of pairs, then the total argument score (never greedy first-fit);
- ``tool_selection`` compares the tool names as multisets, per the order mode;
- ``arguments`` averages the argument scores of the chosen pairs (parts: one per argument);
- ``order`` (modes ``strict`` and ``in_order``) checks that an order-preserving alignment pairs as
  many calls, as well, as the unordered assignment does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ..schema import CallExpectation, Expectation, Score, ToolSpec
from ._args import CallMatch, MatchContext, match_call
from ._assign import align, assign
from ._transcript import CallRecord

__all__ = ["NO_TOOL", "call_labels", "score_calls"]

#: the label of "no tool call" in tool_selection's expected/actual
NO_TOOL = "<no tool>"


def call_labels(exps: Sequence[CallExpectation]) -> list[str]:
    """``get_weather`` for a tool expected once, else ``get_weather[0]``, ``get_weather[1]``…"""
    counts = Counter(e.name for e in exps)
    seen: Counter[str] = Counter()
    labels: list[str] = []
    for e in exps:
        if counts[e.name] == 1:
            labels.append(e.name)
        else:
            labels.append(f"{e.name}[{seen[e.name]}]")
            seen[e.name] += 1
    return labels


def _names(names: Sequence[str]) -> str:
    return ", ".join(names) if names else NO_TOOL


def _selection(exp: Expectation, records: Sequence[CallRecord], prefix: str) -> Score:
    expected = [e.name for e in exp.tool_calls]
    actual = [r.call.name for r in records]
    mode = exp.order
    if len(expected) == 1 and len(actual) == 1:  # the common case, without Counters
        same = expected[0] == actual[0]
        missing: list[str] = [] if same else expected
        extra: list[str] = [] if same else actual
        common = 1 if same else 0
    else:
        ce, ca = Counter(expected), Counter(actual)
        missing = list((ce - ca).elements())
        extra = list((ca - ce).elements())
        common = sum((ce & ca).values())
    if mode in ("strict", "any_order"):
        passed = not missing and not extra
        value = common / max(len(expected), len(actual), 1)
    elif mode in ("in_order", "superset"):
        passed = not missing
        value = common / max(len(expected), 1)
    else:  # subset
        passed = not extra and bool(actual)
        value = common / len(actual) if actual else 0.0
    if passed:
        explanation = f"called {_names(actual)} as expected"
        if extra:
            explanation += f" ({mode}: extra call(s) to {', '.join(extra)} allowed)"
        elif missing:
            explanation += f" ({mode}: {', '.join(missing)} not called)"
    elif len(expected) == 1 and len(actual) <= 1 and not (mode == "subset" and not actual):
        explanation = f"expected a call to {expected[0]}, got {_names(actual)}"
    else:
        bits: list[str] = []
        if not actual:
            want = "some of" if mode == "subset" else "calls to"
            bits.append(f"expected {want} {_names(expected)}, got no tool call")
        else:
            if missing and mode != "subset":
                bits.append(f"missing call(s) to {', '.join(missing)}")
            if extra and mode not in ("in_order", "superset"):
                bits.append(f"unexpected call(s) to {', '.join(extra)}")
        explanation = "; ".join(bits)
    return Score(
        name=prefix + "tool_selection",
        value=value,
        passed=passed,
        explanation=explanation,
        expected=_names(expected),
        actual=_names(actual),
    )


def score_calls(
    exp: Expectation,
    records: Sequence[CallRecord],
    tools: Mapping[str, ToolSpec],
    ctx: MatchContext,
    prefix: str = "",
) -> list[Score]:
    """``tool_selection``, ``arguments`` (when calls pair up) and ``order`` (when it applies)."""
    exps = exp.tool_calls
    labels = call_labels(exps)
    n, m = len(exps), len(records)
    matches: dict[tuple[int, int], CallMatch] = {}
    weights: list[list[float | None]] = []
    big = 2.0 * (min(n, m) + 1)
    for i, e in enumerate(exps):
        row: list[float | None] = []
        spec = tools.get(e.name)
        for j, rec in enumerate(records):
            if rec.call.name != e.name:
                row.append(None)
                continue
            cm = match_call(e, rec, spec, ctx, labels[i])
            matches[i, j] = cm
            row.append((big if cm.passed else 0.0) + 1.0 + cm.value)
        weights.append(row)
    scores = [_selection(exp, records, prefix)]
    pairs = assign(weights, m) if matches else []
    if pairs:
        parts: list[Score] = []
        total = 0.0
        failed: list[str] = []
        for i, j in pairs:
            cm = matches[i, j]
            total += cm.value
            for p in cm.parts:
                parts.append(
                    Score(name=p.name, value=p.value, passed=p.passed, explanation=p.explanation)
                )
                if not p.passed:
                    failed.append(p.explanation)
        called = ", ".join(labels[i] for i, _ in pairs)
        scores.append(
            Score(
                name=prefix + "arguments",
                value=total / len(pairs),
                passed=not failed,
                explanation="\n".join(failed) if failed else f"arguments of {called} as expected",
                parts=parts,
            )
        )
    if exp.order in ("strict", "in_order") and len(pairs) > 1:
        scores.append(_order(exp, records, weights, pairs, labels, prefix))
    return scores


def _order(
    exp: Expectation,
    records: Sequence[CallRecord],
    weights: list[list[float | None]],
    pairs: list[tuple[int, int]],
    labels: list[str],
    prefix: str,
) -> Score:
    aligned = align(weights, len(records))
    best = sum(w for i, j in pairs if (w := weights[i][j]) is not None)
    got = sum(w for i, j in aligned if (w := weights[i][j]) is not None)
    passed = len(aligned) == len(pairs) and got >= best - 1e-9
    if passed:
        explanation = f"calls in the expected order: {' → '.join(labels)}"
    else:
        made = " → ".join(r.call.name for r in records) or NO_TOOL
        explanation = f"calls out of order: expected {' → '.join(labels)}, got {made}"
    return Score(
        name=prefix + "order",
        value=1.0 if passed else 0.0,
        passed=passed,
        explanation=explanation,
        expected=" → ".join(e.name for e in exp.tool_calls),
        actual=" → ".join(r.call.name for r in records),
    )
