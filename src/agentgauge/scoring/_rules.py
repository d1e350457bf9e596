"""Turn rules beyond the expected calls: forbidden call types, argument values and sequences,
call and model-step counts, and the inverse of a check (docs/scoring.md)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ..schema import (
    ArgMatcher,
    CallType,
    ForbiddenSequence,
    Score,
    StepLimits,
    ToolSpec,
    name_matches,
)
from ._args import MatchContext, describe_matcher, match_value, shown
from ._transcript import CallRecord, Segment

__all__ = [
    "bound_scores",
    "call_type",
    "conversation_scores",
    "count_scores",
    "negated",
    "score_allowed_tools",
    "score_forbidden_arguments",
    "score_forbidden_sequences",
    "score_forbidden_types",
]


def call_type(rec: CallRecord, tools: Mapping[str, ToolSpec]) -> CallType:
    """``mcp`` when the called tool is an MCP server's (the suite's tool says so, or the
    transcript marks the call), else ``function`` (an unknown tool too)."""
    if rec.call.mcp:
        return "mcp"
    spec = tools.get(rec.call.name)
    return spec.call_type() if spec is not None else "function"


def _verdict(name: str, passed: bool, explanation: str, actual: str | None = None) -> Score:
    return Score(
        name=name,
        value=1.0 if passed else 0.0,
        passed=passed,
        explanation=explanation,
        actual=actual,
    )


def _tally(names: Sequence[str]) -> str:
    counts = Counter(names)
    return ", ".join(f"{n} ({c}×)" if c > 1 else n for n, c in counts.items())


def score_forbidden_types(
    types: Sequence[CallType], seg: Segment, tools: Mapping[str, ToolSpec], prefix: str = ""
) -> Score:
    """Fails when a call went to a tool of a forbidden type (``mcp`` or ``function``)."""
    banned = set(types)
    hits = [r.call.name for r in seg.records if call_type(r, tools) in banned]
    kinds = " or ".join(sorted(banned))
    if not hits:
        return _verdict(prefix + "forbidden_types", True, f"no call to a {kinds} tool")
    return _verdict(
        prefix + "forbidden_types",
        False,
        f"call(s) to a forbidden {kinds} tool: {_tally(hits)}",
        actual=", ".join(dict.fromkeys(hits)),
    )


def score_allowed_tools(allowed: Sequence[str], seg: Segment, prefix: str = "") -> Score:
    """Fails when a call went to a tool that no entry of the allowlist (names or globs)
    matches."""
    outside = [
        r.call.name for r in seg.records if not any(name_matches(a, r.call.name) for a in allowed)
    ]
    if not outside:
        return _verdict(prefix + "allowed_tools", True, f"every call is to {', '.join(allowed)}")
    return _verdict(
        prefix + "allowed_tools",
        False,
        f"call(s) to a tool not allowed: {_tally(outside)} (allowed: {', '.join(allowed)})",
        actual=", ".join(dict.fromkeys(outside)),
    )


def score_forbidden_arguments(
    rules: Mapping[str, Mapping[str, ArgMatcher]],
    seg: Segment,
    tools: Mapping[str, ToolSpec],
    ctx: MatchContext,
    prefix: str = "",
) -> Score:
    """Fails when a call passes an argument value its tool may never get: a call to a tool
    matching a rule's name (or glob) whose argument is present and satisfies that argument's
    matcher. An argument left out is not a forbidden value."""
    hits: list[str] = []
    checked = 0
    for rec in seg.records:
        for pattern, args in rules.items():
            if not name_matches(pattern, rec.call.name):
                continue
            checked += 1
            spec = tools.get(rec.call.name)
            props = spec.properties() if spec is not None else {}
            ctx.pos = rec.pos
            for arg, matcher in args.items():
                if arg not in rec.call.arguments:
                    continue
                value = rec.call.arguments[arg]
                part = match_value(matcher, value, props.get(arg), ctx, f"{rec.call.name}.{arg}")
                if part.passed:
                    hits.append(
                        f"{rec.call.name}.{arg}: {shown(value)} is forbidden "
                        f"({describe_matcher(matcher)})"
                    )
    name = prefix + "forbidden_arguments"
    if hits:
        return _verdict(name, False, "forbidden argument value: " + "; ".join(hits))
    if not checked:
        return _verdict(name, True, f"no call to {', '.join(rules)}")
    return _verdict(name, True, f"no forbidden argument value in {checked} call(s)")


def _sequence_hit(rule: ForbiddenSequence, records: Sequence[CallRecord]) -> str | None:
    """The first ``then`` call made after an ``after`` call with no ``unless`` call between
    them (described), or None."""
    for k, then in enumerate(records):
        if not name_matches(rule.then, then.call.name):
            continue
        # the latest earlier (or same-message) call of ``after``: the narrowest window
        before = [
            r
            for j, r in enumerate(records)
            if j != k and r.pos <= then.pos and name_matches(rule.after, r.call.name)
        ]
        if not before:
            continue
        first = max(before, key=lambda r: r.pos)
        confirmed = any(
            first.pos < r.pos < then.pos and any(name_matches(u, r.call.name) for u in rule.unless)
            for r in records
        )
        if not confirmed:
            how = "in the same message as" if first.pos == then.pos else "after"
            gap = f" with no {' or '.join(rule.unless)} between" if rule.unless else ""
            return f"{then.call.name} called {how} {first.call.name}{gap}"
    return None


def score_forbidden_sequences(
    rules: Sequence[ForbiddenSequence], seg: Segment, prefix: str = ""
) -> Score:
    """Fails when a call follows another that it may follow only after a confirming call."""
    hits = [hit for rule in rules if (hit := _sequence_hit(rule, seg.records)) is not None]
    name = prefix + "forbidden_sequences"
    if hits:
        return _verdict(name, False, "forbidden sequence: " + "; ".join(hits))
    shown_rules = "; ".join(r.describe() for r in rules)
    return _verdict(name, True, f"no forbidden sequence ({shown_rules})")


def _bound(name: str, n: int, limit: int, what: str, at_most: bool) -> Score:
    passed = n <= limit if at_most else n >= limit
    if at_most:
        value = 1.0 if passed else limit / n
        explanation = f"{n} {what}, at most {limit} allowed"
    else:
        value = 1.0 if passed else n / limit
        explanation = f"{n} {what}, at least {limit} needed"
    return Score(
        name=name,
        value=value,
        passed=passed,
        explanation=explanation,
        expected=str(limit),
        actual=str(n),
    )


def count_scores(limits: StepLimits, seg: Segment, prefix: str = "") -> list[Score]:
    """``max_calls``, ``min_calls``, ``max_model_steps``, ``min_model_steps`` (the bounds
    given). A model step is one assistant message of the turn."""
    return bound_scores(limits, len(seg.records), len(seg.assistant_pos), prefix)


def conversation_scores(limits: StepLimits, segments: Sequence[Segment]) -> list[Score]:
    """The bounds of a case's ``limits`` over its whole conversation (``conversation.``
    scores): every turn's calls and model steps together."""
    calls = sum(len(s.records) for s in segments)
    steps = sum(len(s.assistant_pos) for s in segments)
    return bound_scores(limits, calls, steps, "conversation.", " in the whole conversation")


def bound_scores(
    limits: StepLimits, calls: int, steps: int, prefix: str, where: str = ""
) -> list[Score]:
    """One score per bound given, on ``calls`` tool calls and ``steps`` model steps
    (``where`` follows the counts in the explanations)."""
    out: list[Score] = []
    if limits.max_calls is not None:
        out.append(
            _bound(prefix + "max_calls", calls, limits.max_calls, f"tool call(s){where}", True)
        )
    if limits.min_calls is not None:
        out.append(
            _bound(prefix + "min_calls", calls, limits.min_calls, f"tool call(s){where}", False)
        )
    if limits.max_model_steps is not None:
        out.append(
            _bound(
                prefix + "max_model_steps",
                steps,
                limits.max_model_steps,
                f"model step(s){where}",
                True,
            )
        )
    if limits.min_model_steps is not None:
        out.append(
            _bound(
                prefix + "min_model_steps",
                steps,
                limits.min_model_steps,
                f"model step(s){where}",
                False,
            )
        )
    return out


def negated(inner: Sequence[Score], prefix: str = "") -> Score:
    """``not``: passes when the inner expectation fails on the turn (one of its checks fails),
    fails when it holds. The inner scores are kept as parts."""
    failed = [s.explanation for s in inner if s.passed is False]
    held = not failed
    parts = [
        Score(name=s.name, value=s.value, passed=s.passed, explanation=s.explanation) for s in inner
    ]
    if all(s.passed is None for s in inner):
        return Score(
            name=prefix + "not",
            value=1.0,
            passed=None,
            explanation="not: nothing was decided to invert ("
            + ("; ".join(s.explanation for s in inner) or "no check applied")
            + ")",
            parts=parts,
        )
    if held:
        said = "; ".join(s.explanation for s in inner if s.passed) or "nothing to check"
        explanation = f"not: expected this not to hold, but it did: {said}"
    else:
        explanation = f"not: as required, this does not hold: {'; '.join(failed)}"
    return Score(
        name=prefix + "not",
        value=0.0 if held else 1.0,
        passed=not held,
        explanation=explanation,
        parts=parts,
    )
