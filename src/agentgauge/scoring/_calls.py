"""Several calls: line the agent's calls up with the expected ones, then score names, arguments
and order.

- every pair of an expected and an actual call with the same tool name is scored (arguments);
- pairs are chosen by an optimal assignment that first maximises the number of strictly passing
  pairs, then the number of pairs, then the total argument score (never greedy first-fit);
- ``tool_selection`` compares the tool names as multisets, per the order mode;
- ``arguments`` averages the argument scores of the chosen pairs (parts: one per argument);
- ``order`` (modes ``strict`` and ``in_order``) checks that an order-preserving alignment pairs as
  many calls, as well, as the unordered assignment does. The calls of one assistant message are
  parallel (no order among them), and so are expected calls sharing a ``step``;
- ``strict_steps`` adds the message structure to ``order``: one assistant message per expected
  step holding exactly that step's calls, then one reply without calls.

A call whose tool failed is still a call: it counts for ``tool_selection`` and its arguments are
scored. In a ``recover`` turn the successful calls are paired first; a failed attempt pairs only
with an expected call no successful call took, and unpaired failed attempts are left to the
``behavior`` (recover) check.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ..schema import CallExpectation, Expectation, Score, ToolSpec, is_pattern, name_matches
from ._args import CallMatch, MatchContext, describe_matcher, match_call, shown
from ._assign import align_groups, assign
from ._rules import call_type
from ._transcript import CallRecord, error_text
from ._values import MISSING

__all__ = ["NO_TOOL", "call_labels", "score_calls"]

#: the label of "no tool call" in tool_selection's expected/actual
NO_TOOL = "<no tool>"
#: how a text-only assistant message shows in a message-structure explanation
_TEXT = "(text)"
_REPLY = "(reply)"

Weights = list[list[float | None]]


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


def _grid(
    exps: Sequence[CallExpectation],
    records: Sequence[CallRecord],
    tools: Mapping[str, ToolSpec],
    ctx: MatchContext,
    labels: Sequence[str],
) -> tuple[dict[tuple[int, int], CallMatch], Weights]:
    """Every same-name pair's match and the assignment weights (``None``: different tools)."""
    matches: dict[tuple[int, int], CallMatch] = {}
    weights: Weights = []
    big = 2.0 * (min(len(exps), len(records)) + 1)
    for i, e in enumerate(exps):
        row: list[float | None] = []
        loose = e.type is not None or is_pattern(e.name)
        spec = tools.get(e.name)
        for j, rec in enumerate(records):
            if not (_fits(e, rec, tools) if loose else rec.call.name == e.name):
                row.append(None)
                continue
            cm = match_call(e, rec, tools.get(rec.call.name) if loose else spec, ctx, labels[i])
            matches[i, j] = cm
            row.append((big if cm.passed else 0.0) + 1.0 + cm.value)
        weights.append(row)
    return matches, weights


def _recover_records(
    exps: Sequence[CallExpectation],
    records: Sequence[CallRecord],
    tools: Mapping[str, ToolSpec],
    ctx: MatchContext,
    labels: Sequence[str],
) -> list[CallRecord]:
    """The successful calls, plus the failed ones needed by an expected call no success took."""
    ok = [r for r in records if not r.error]
    failed = [r for r in records if r.error]
    if not failed:
        return list(records)
    matches, weights = _grid(exps, ok, tools, ctx, labels)
    taken = {i for i, _ in assign(weights, len(ok))} if matches else set()
    rows = [i for i in range(len(exps)) if i not in taken]
    keep: set[int] = set()
    if rows:
        sub_exps = [exps[i] for i in rows]
        sub_matches, sub_w = _grid(sub_exps, failed, tools, ctx, [labels[i] for i in rows])
        if sub_matches:
            keep = {id(failed[j]) for _, j in assign(sub_w, len(failed))}
    return [r for r in records if not r.error or id(r) in keep]


def _failure_notes(
    pairs: Sequence[tuple[int, int]],
    records: Sequence[CallRecord],
    every: Sequence[CallRecord],
) -> list[str]:
    """``the tool failed (503 Service Unavailable); no successful retry`` per failed paired call."""
    notes: list[str] = []
    one_tool = len({r.call.name for r in records}) == 1
    for _, j in pairs:
        rec = records[j]
        if not rec.error:
            continue
        who = "the tool" if one_tool else rec.call.name
        later = any(
            r.call.name == rec.call.name and not r.error and r.result is not MISSING
            for r in every
            if r.pos > rec.pos
        )
        then = f"a later {rec.call.name} call succeeded" if later else "no successful retry"
        notes.append(f"{who} failed ({error_text(rec.result)}); {then}")
    return notes


def _fits(e: CallExpectation, rec: CallRecord, tools: Mapping[str, ToolSpec]) -> bool:
    """Whether ``rec`` may pair with ``e``: its name matches ``e``'s name or glob, and its
    type is ``e``'s type (when given)."""
    if not name_matches(e.name, rec.call.name):
        return False
    return e.type is None or call_type(rec, tools) == e.type


def _pattern_counts(
    exp: Expectation, records: Sequence[CallRecord], tools: Mapping[str, ToolSpec]
) -> tuple[list[str], list[str], int]:
    """(missing, extra, common) when expected names are globs or typed: a largest pairing of
    expected calls with calls they fit, whatever the arguments."""
    exps = exp.tool_calls
    fit: Weights = [[1.0 if _fits(e, r, tools) else None for r in records] for e in exps]
    pairs = assign(fit, len(records))
    used_e = {i for i, _ in pairs}
    used_a = {j for _, j in pairs}
    missing = [_label(e) for i, e in enumerate(exps) if i not in used_e]
    extra = [r.call.name for j, r in enumerate(records) if j not in used_a]
    return missing, extra, len(pairs)


def _label(e: CallExpectation) -> str:
    """An expected call in an explanation: its name (or glob), with its type when given."""
    return f"{e.name} ({e.type})" if e.type is not None else e.name


def _selection(
    exp: Expectation,
    records: Sequence[CallRecord],
    notes: Sequence[str],
    prefix: str,
    tools: Mapping[str, ToolSpec],
    loose: bool,
) -> Score:
    expected = [_label(e) for e in exp.tool_calls] if loose else [e.name for e in exp.tool_calls]
    actual = [r.call.name for r in records]
    mode = exp.order
    missing: list[str]
    extra: list[str]
    if loose:
        missing, extra, common = _pattern_counts(exp, records, tools)
    elif len(expected) == 1 and len(actual) == 1:  # the common case, without Counters
        same = expected[0] == actual[0]
        missing = [] if same else expected
        extra = [] if same else actual
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
        passed = not extra and (bool(actual) or exp.allow_no_calls)
        value = common / len(actual) if actual else (1.0 if passed else 0.0)
    if passed and not actual:
        explanation = "no tool called (subset with allow_no_calls: the empty set is a subset)"
    elif passed:
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
    if notes:
        explanation += "; " + "; ".join(notes)
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
    *,
    recover: bool = False,
    assistant_pos: Sequence[int] = (),
) -> list[Score]:
    """``tool_selection``, ``arguments`` (when calls pair up) and ``order`` (when it applies).

    ``recover``: the turn expects recovery, so failed attempts no expected call needs are left
    out; ``assistant_pos``: history positions of the turn's assistant messages (``strict_steps``).
    """
    exps = exp.tool_calls
    labels = call_labels(exps)
    every = records
    if recover:
        records = _recover_records(exps, records, tools, ctx, labels)
    matches, weights = _grid(exps, records, tools, ctx, labels)
    pairs = assign(weights, len(records)) if matches else []
    notes = _failure_notes(pairs, records, every) if any(r.error for r in records) else []
    scores = [_selection(exp, records, notes, prefix, tools, exp.patterns())]
    checked = [(i, j) for i, j in pairs if matches[i, j].checked]
    if checked:
        parts: list[Score] = []
        total = 0.0
        failed: list[str] = []
        for i, j in checked:
            cm = matches[i, j]
            total += cm.value
            for p in cm.parts:
                parts.append(
                    Score(name=p.name, value=p.value, passed=p.passed, explanation=p.explanation)
                )
                if not p.passed:
                    failed.append(p.explanation)
        called = ", ".join(labels[i] for i, _ in checked)
        scores.append(
            Score(
                name=prefix + "arguments",
                value=total / len(checked),
                passed=not failed,
                explanation="\n".join(failed) if failed else f"arguments of {called} as expected",
                parts=parts,
            )
        )
    elif pairs:
        scores.append(
            Score(
                name=prefix + "arguments",
                value=1.0,
                passed=None,
                explanation="arguments not compared (args_match: ignore): "
                + ", ".join(labels[i] for i, _ in pairs),
            )
        )
    if exp.strict_steps and pairs:
        kept = {r.pos for r in records}
        skipped = {r.pos for r in every} - kept  # messages holding only left-out attempts
        positions = [p for p in assistant_pos if p not in skipped]
        scores.append(_steps(exp, records, weights, pairs, positions, prefix))
    elif exp.order in ("strict", "in_order") and len(pairs) > 1:
        scores.append(_order(exp, records, weights, pairs, prefix))
    return scores


def _expected_keys(exps: Sequence[CallExpectation]) -> list[int]:
    """The step of each expected call (its index when no steps are given)."""
    return [e.step if e.step is not None else i for i, e in enumerate(exps)]


def _total(weights: Weights, pairs: Sequence[tuple[int, int]]) -> float:
    return sum(w for i, j in pairs if (w := weights[i][j]) is not None)


def _show(calls: Sequence[tuple[str, dict[str, str]]]) -> list[str]:
    """Each call as ``name`` or, when its tool occurs more than once, with the arguments that
    tell those calls apart: ``get_weather(city='SF')``. ``calls``: (name, shown arguments)."""
    by_tool: dict[str, list[dict[str, str]]] = {}
    for name, args in calls:
        by_tool.setdefault(name, []).append(args)
    differ: dict[str, list[str]] = {}
    for name, same in by_tool.items():
        if len(same) > 1:
            keys = dict.fromkeys(k for args in same for k in args)
            differ[name] = [k for k in keys if len({args.get(k, "-") for args in same}) > 1]
    out: list[str] = []
    for name, args in calls:
        if name not in differ:
            out.append(name)
        else:
            bits = [f"{k}={args[k]}" for k in differ[name] if k in args]
            out.append(f"{name}({', '.join(bits)})")
    return out


def _show_expected(exps: Sequence[CallExpectation]) -> list[str]:
    """The expected calls for explanations (see :func:`_show`)."""
    names = Counter(e.name for e in exps)
    return _show(
        [
            (e.name, {k: describe_matcher(m) for k, m in e.arguments.items()})
            if names[e.name] > 1
            else (e.name, {})
            for e in exps
        ]
    )


def _show_actual(records: Sequence[CallRecord]) -> list[str]:
    """The actual calls for explanations (see :func:`_show`)."""
    names = Counter(r.call.name for r in records)
    return _show(
        [
            (r.call.name, {k: shown(v) for k, v in r.call.arguments.items()})
            if names[r.call.name] > 1
            else (r.call.name, {})
            for r in records
        ]
    )


def _sequence(shown_calls: Sequence[str], keys: Sequence[int]) -> list[str]:
    """Calls grouped by key, in key order: a group of several is written ``{a, b}``."""
    groups: dict[int, list[str]] = {}
    for s, k in zip(shown_calls, keys, strict=True):
        groups.setdefault(k, []).append(s)
    return [g[0] if len(g) == 1 else "{" + ", ".join(g) + "}" for _, g in sorted(groups.items())]


def _order(
    exp: Expectation,
    records: Sequence[CallRecord],
    weights: Weights,
    pairs: list[tuple[int, int]],
    prefix: str,
) -> Score:
    e_keys = _expected_keys(exp.tool_calls)
    a_keys = [r.pos for r in records]
    aligned = align_groups(weights, e_keys, a_keys)
    passed = (
        len(aligned) == len(pairs) and _total(weights, aligned) >= _total(weights, pairs) - 1e-9
    )
    want = _show_expected(exp.tool_calls)
    if passed:
        explanation = f"calls in the expected order: {' → '.join(_sequence(want, e_keys))}"
    else:
        got = _show_actual(records)
        explanation = (
            f"calls out of order: expected {' → '.join(_sequence(want, e_keys))}, "
            f"got {' → '.join(_sequence(got, a_keys)) or NO_TOOL}"
        )
        for (i, a), (k, b) in ((x, y) for x in pairs for y in pairs):
            if e_keys[i] < e_keys[k] and a_keys[a] > a_keys[b]:
                explanation += f" ({got[b]} came before {got[a]})"
                break
    return Score(
        name=prefix + "order",
        value=1.0 if passed else 0.0,
        passed=passed,
        explanation=explanation,
        expected=" → ".join(e.name for e in exp.tool_calls),
        actual=" → ".join(r.call.name for r in records),
    )


def _steps(
    exp: Expectation,
    records: Sequence[CallRecord],
    weights: Weights,
    pairs: list[tuple[int, int]],
    positions: Sequence[int],
    prefix: str,
) -> Score:
    """``order`` under ``strict_steps``: one assistant message per step, then one reply."""
    e_keys = _expected_keys(exp.tool_calls)
    if not positions:  # no message positions given: the call messages alone
        positions = sorted({r.pos for r in records})
    step_rank = {k: r for r, k in enumerate(sorted(set(e_keys)))}
    call_pos = sorted({r.pos for r in records})
    msg_rank = {p: r for r, p in enumerate(call_pos)}
    texts = [p for p in positions if p not in msg_rank]
    reasons: list[str] = []
    if len(call_pos) != len(step_rank):
        reasons.append(
            f"{len(call_pos)} assistant message(s) with calls, expected {len(step_rank)}"
        )
    final_ok = bool(texts) and texts[-1] == positions[-1]
    if not final_ok:
        reasons.append("no final reply without calls")
    extra = len(texts) - (1 if final_ok else 0)
    if extra:
        reasons.append(f"{extra} text-only assistant message(s) before the end")
    if not reasons:
        restricted: Weights = [
            [
                w if step_rank[e_keys[i]] == msg_rank[records[j].pos] else None
                for j, w in enumerate(row)
            ]
            for i, row in enumerate(weights)
        ]
        same = assign(restricted, len(records))
        if len(same) < len(pairs) or _total(weights, same) < _total(weights, pairs) - 1e-9:
            reasons.append("the calls are grouped into messages differently from the steps")
    passed = not reasons
    want = " → ".join([*_sequence(_show_expected(exp.tool_calls), e_keys), _REPLY])
    if passed:
        explanation = f"messages as expected: {want}"
    else:
        got_calls = _show_actual(records)
        by_pos: dict[int, list[str]] = {}
        for s, r in zip(got_calls, records, strict=True):
            by_pos.setdefault(r.pos, []).append(s)
        got = [
            (_REPLY if p == positions[-1] else _TEXT)
            if p not in by_pos
            else by_pos[p][0]
            if len(by_pos[p]) == 1
            else "{" + ", ".join(by_pos[p]) + "}"
            for p in positions
        ]
        explanation = (
            f"message structure differs ({'; '.join(reasons)}): expected {want}, "
            f"got {' → '.join(got) or NO_TOOL}"
        )
    return Score(
        name=prefix + "order",
        value=1.0 if passed else 0.0,
        passed=passed,
        explanation=explanation,
        expected=" → ".join(e.name for e in exp.tool_calls),
        actual=" → ".join(r.call.name for r in records),
    )
