"""Mutants for the checks of what must not happen and how much may (docs/scoring.md): a call of
the wrong type, a call of a forbidden type or outside the allowlist, a banned argument value, a
forbidden sequence, too few calls, too many or too few model steps, what ``not`` forbids, and
the calls written as text. Each is the right transcript with one such mistake, so a mutant that
passes shows the check cannot fail."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from typing import Any, Final, Literal, get_args

from ..schema import ArgMatcher, CallExpectation, Expectation, StepLimits, ToolSpec, name_matches
from ._play import PlannedCall, TextShape, TurnPlan
from ._values import NoWitness, RefValue, accepts, placeholder, witness

__all__ = [
    "CHECK_AXES",
    "CheckAxis",
    "avoid_banned",
    "check_mutants",
    "concrete_tool",
    "confirm_sequences",
    "conversation_mutants",
    "fits",
    "meet_bounds",
]

CheckAxis = Literal[
    "wrong_type",
    "forbidden_type",
    "disallowed_call",
    "forbidden_argument",
    "forbidden_sequence",
    "too_few_calls",
    "too_many_calls",
    "extra_steps",
    "fewer_steps",
    "negated",
    "text_call",
]

#: the axes of these checks, in report order (after the others): the Literal's own order
CHECK_AXES: Final[tuple[CheckAxis, ...]] = get_args(CheckAxis)

Made = Iterator[tuple[CheckAxis, str, TurnPlan]]


class _Detail(str):
    """A mutant's description that may say when the mutant passing is no finding."""

    benign: str | None = None


def fits(e: CallExpectation, tool: ToolSpec) -> bool:
    """Whether a call to ``tool`` may pair with ``e`` (its name or glob, its type)."""
    return name_matches(e.name, tool.name) and (e.type is None or tool.call_type() == e.type)


def concrete_tool(e: CallExpectation, offered: Sequence[ToolSpec]) -> str:
    """The tool a right agent calls for ``e``: its own name, or the first offered tool its glob
    (and type) fits; raises :class:`NoWitness` when none does."""
    if not any(ch in e.name for ch in "*?["):
        return e.name
    for tool in offered:
        if fits(e, tool):
            return tool.name
    raise NoWitness(f"no offered tool matches the expected call pattern '{e.name}'")


def _placeholder(tool: ToolSpec, **given: Any) -> PlannedCall:
    props = tool.properties()
    args = {n: placeholder(props.get(n)) for n in tool.required()}
    return PlannedCall(tool.name, {**args, **given})


def avoid_banned(
    call: CallExpectation, name: str, args: dict[str, Any], rules: dict[str, dict[str, ArgMatcher]]
) -> dict[str, Any]:
    """``args`` with each value a ``forbidden_arguments`` rule bans replaced by one the expected
    matcher still accepts and the rule does not (unchanged when none can be built)."""
    out = dict(args)
    for pattern, banned in rules.items():
        if not name_matches(pattern, name):
            continue
        for arg, rule in banned.items():
            value = out.get(arg)
            if arg not in out or isinstance(value, RefValue):
                continue
            try:
                if not accepts(rule, value):
                    continue
                expected = call.arguments.get(arg, ArgMatcher(any=True))
                safe = expected.model_copy(update={"not_": rule, "any": False})
                out[arg] = witness(safe, None)
            except NoWitness:
                continue
    return out


def _steps_of(plan: TurnPlan) -> int:
    """About how many assistant messages playing ``plan`` takes (its reply included)."""
    calls = plan.calls
    text = 1 if plan.text else 0
    if not calls:
        return plan.preamble + text
    refs = any(isinstance(v, RefValue) for c in calls for v in c.arguments.values())
    if not (plan.sequential or plan.retry_errors or refs):
        return plan.preamble + 1 + text
    groups = 1 + sum(1 for a, b in itertools.pairwise(calls) if a.step is None or a.step != b.step)
    return plan.preamble + groups + text


def meet_bounds(
    plan: TurnPlan, exp: Expectation, limits: StepLimits, offered: Sequence[ToolSpec]
) -> TurnPlan:
    """The right plan made to meet ``min_calls`` (more of its last call, where the expectation
    allows calls beyond the expected ones) and ``min_model_steps`` (a "Let me check." first)."""
    calls = plan.calls
    room = not exp.tool_calls or exp.order in ("in_order", "superset")
    if limits.min_calls and len(calls) < limits.min_calls and room:
        extra = calls[-1] if calls else (_placeholder(offered[0]) if offered else None)
        if extra is not None:
            calls = (*calls, *([extra] * (limits.min_calls - len(calls))))
            plan = replace(plan, calls=calls)
    if limits.min_model_steps and _steps_of(plan) < limits.min_model_steps:
        plan = replace(plan, preamble=plan.preamble + limits.min_model_steps - _steps_of(plan))
    return plan


def confirm_sequences(plan: TurnPlan, exp: Expectation, offered: Sequence[ToolSpec]) -> TurnPlan:
    """The right plan with a confirming call (the first offered tool of a rule's ``unless``)
    made before each call a ``forbidden_sequences`` rule would catch, one call at a time — where
    the expectation allows calls beyond the expected ones."""
    if exp.tool_calls and exp.order not in ("in_order", "superset"):
        return plan
    calls = list(plan.calls)
    changed = False
    for rule in exp.forbidden_sequences:
        confirm = next((t for u in rule.unless for t in offered if name_matches(u, t.name)), None)
        if confirm is None:
            continue
        out: list[PlannedCall] = []
        pending = False  # an ``after`` call not confirmed since
        for call in calls:
            if name_matches(rule.then, call.name) and pending:
                out.append(_placeholder(confirm))
                changed = True
                pending = False
            if any(name_matches(u, call.name) for u in rule.unless):
                pending = False
            if name_matches(rule.after, call.name):
                pending = True
            out.append(call)
        calls = out
    return replace(plan, calls=tuple(calls), sequential=True) if changed else plan


class _Checks:
    def __init__(
        self,
        exp: Expectation,
        ref: TurnPlan,
        offered: Sequence[ToolSpec],
        limits: StepLimits,
    ) -> None:
        self.exp, self.ref, self.offered, self.limits = exp, ref, offered, limits

    def types(self) -> Made:
        exp, ref = self.exp, self.ref
        for k, planned in enumerate(ref.calls):
            e = exp.tool_calls[planned.expected] if planned.expected is not None else None
            if e is None or e.type is None:
                continue
            other = next((t for t in self.offered if t.call_type() != e.type), None)
            if other is not None:
                calls = list(ref.calls)
                calls[k] = _placeholder(other)
                how = f"{planned.name} ({e.type}) -> {other.name} ({other.call_type()})"
                yield "wrong_type", how, replace(ref, calls=tuple(calls))
            break
        for kind in exp.forbidden_types:
            tool = next((t for t in self.offered if t.call_type() == kind), None)
            if tool is not None:
                yield (
                    "forbidden_type",
                    f"also calls {tool.name}, a {kind} tool",
                    replace(ref, calls=(*ref.calls, _placeholder(tool))),
                )
        if exp.allowed_tools:
            outside = next(
                (
                    t
                    for t in self.offered
                    if not any(name_matches(a, t.name) for a in exp.allowed_tools)
                ),
                None,
            )
            if outside is not None:
                yield (
                    "disallowed_call",
                    f"also calls {outside.name}, which allowed_tools does not list",
                    replace(ref, calls=(*ref.calls, _placeholder(outside))),
                )

    def banned_arguments(self) -> Made:
        ref = self.ref
        for pattern, rules in self.exp.forbidden_arguments.items():
            for arg, rule in rules.items():
                try:
                    value = witness(rule, None)
                except NoWitness:
                    continue
                if isinstance(value, RefValue):
                    continue
                k = next((i for i, c in enumerate(ref.calls) if name_matches(pattern, c.name)), -1)
                if k >= 0:
                    calls = list(ref.calls)
                    calls[k] = replace(calls[k], arguments={**calls[k].arguments, arg: value})
                    plan = replace(ref, calls=tuple(calls))
                    name = calls[k].name
                else:
                    tool = next((t for t in self.offered if name_matches(pattern, t.name)), None)
                    if tool is None:
                        continue
                    plan = replace(ref, calls=(*ref.calls, _placeholder(tool, **{arg: value})))
                    name = tool.name
                yield "forbidden_argument", f"{name}.{arg} = {value!r}, a banned value", plan

    def sequences(self) -> Made:
        ref = self.ref
        for rule in self.exp.forbidden_sequences:
            first = next((t for t in self.offered if name_matches(rule.after, t.name)), None)
            then = next((t for t in self.offered if name_matches(rule.then, t.name)), None)
            if first is None or then is None:
                continue
            calls = (*ref.calls, _placeholder(first), _placeholder(then))
            yield (
                "forbidden_sequence",
                f"calls {then.name} right after {first.name}, with nothing between",
                replace(ref, calls=calls, sequential=True),
            )

    def counts(self) -> Made:
        ref, lim = self.ref, self.limits
        if lim.min_calls and len(ref.calls) >= lim.min_calls:
            keep = ref.calls[: lim.min_calls - 1]
            yield (
                "too_few_calls",
                f"{len(keep)} call(s), one below min_calls {lim.min_calls}",
                replace(ref, calls=keep),
            )
        if lim.max_calls is not None and self.exp.max_calls is None:
            # the bound is the suite's (defaults.limits): the turn's own has extra_call
            pad = lim.max_calls + 1 - len(ref.calls)
            tool = self.offered[0] if self.offered else None
            extra = ref.calls[-1] if ref.calls else (_placeholder(tool) if tool else None)
            if extra is not None and pad > 0:
                yield (
                    "too_many_calls",
                    f"{extra.name} called {pad} more time(s), over max_calls {lim.max_calls}",
                    replace(ref, calls=(*ref.calls, *([extra] * pad))),
                )
        if lim.max_model_steps is not None:
            yield (
                "extra_steps",
                f"{lim.max_model_steps} text-only message(s) first, over max_model_steps",
                replace(ref, preamble=lim.max_model_steps + 1),
            )
        if lim.min_model_steps:
            if lim.min_model_steps == 1:
                yield "fewer_steps", "no assistant message at all", TurnPlan()
            elif ref.calls:
                yield (
                    "fewer_steps",
                    "every call and the reply in one message (1 model step)",
                    replace(ref, merged=True),
                )
            else:
                yield "fewer_steps", "one reply, 1 model step", TurnPlan(text=ref.text)

    def written(self, lenient: bool) -> Made:
        """The right calls written as text, not made: a mistake under the strict reading; under
        the lenient one no mistake in any provider's shape inside prose, while a wrong call
        written that way must still fail (the lenient reading reads, it does not accept)."""
        ref = self.ref
        # with allow_no_calls a turn without calls is right: text is no mistake then
        if (
            self.exp.allow_no_calls
            or not ref.calls
            or any(isinstance(v, RefValue) for c in ref.calls for v in c.arguments.values())
        ):
            return
        if not lenient:
            detail = "the calls written as JSON text, not made"
            yield "text_call", detail, replace(ref, as_text=True)
            return
        for shape, label in _SHAPES:
            benign = _Detail(f"the calls written inside prose as {label} JSON, not made")
            benign.benign = "the suite reads calls written as text (defaults.text_calls: lenient)"
            yield "text_call", benign, replace(ref, as_text=True, text_shape=shape, text_prose=True)
        first = ref.calls[0]
        if not self.exp.tool_calls:
            return
        head = self.exp.tool_calls[first.expected or 0]
        other = next((t for t in self.offered if t.name != first.name and not fits(head, t)), None)
        if other is not None:
            calls = (replace(first, name=other.name), *ref.calls[1:])
            yield (
                "text_call",
                f"a wrong call written inside prose ({first.name} -> {other.name})",
                replace(ref, calls=calls, as_text=True, text_prose=True),
            )


#: the provider shapes the lenient reading's mutants write calls in
_SHAPES: Final[tuple[tuple[TextShape, str], ...]] = (
    ("openai", "OpenAI tool_calls"),
    ("anthropic", "Anthropic tool_use"),
    ("gemini", "Gemini functionCall"),
)


def check_mutants(
    exp: Expectation,
    ref: TurnPlan,
    offered: Sequence[ToolSpec],
    *,
    limits: StepLimits | None,
    lenient: bool,
    reference_of: Callable[[Expectation], TurnPlan],
) -> Made:
    """The mutants of one turn for its checks (``ref``: the turn's right plan; ``limits``: the
    suite's ``defaults.limits``; ``reference_of``: the right plan of an expectation, for
    ``not``)."""
    checks = _Checks(exp, ref, offered, exp.limits().over(limits))
    yield from checks.types()
    yield from checks.banned_arguments()
    yield from checks.sequences()
    yield from checks.counts()
    if exp.not_ is not None:
        try:
            inner = reference_of(exp.not_)
        except NoWitness:
            inner = None
        if inner is not None:
            yield "negated", "does what `not` forbids (its expectation's right transcript)", inner
            if ref.calls:
                both = replace(
                    inner,
                    calls=(*ref.calls, *inner.calls),
                    text=" ".join(t for t in (ref.text, inner.text) if t) or None,
                    sequential=ref.sequential or inner.sequential,
                )
                yield "negated", "the right calls, plus what `not` forbids", both
    yield from checks.written(lenient)


def conversation_mutants(
    limits: StepLimits, plans: Sequence[TurnPlan], offered: Sequence[ToolSpec]
) -> Iterator[tuple[CheckAxis, str, list[TurnPlan]]]:
    """Mutants of a case's whole-conversation bounds (``Case.limits``): every turn right, the
    last one with calls or steps over the maximum; every turn without calls, or empty, under a
    minimum."""
    last = plans[-1]
    calls = sum(len(p.calls) for p in plans)
    head = list(plans[:-1])
    if limits.max_calls is not None:
        extra = last.calls[-1] if last.calls else (_placeholder(offered[0]) if offered else None)
        pad = limits.max_calls + 1 - calls
        if extra is not None and pad > 0:
            plan = replace(last, calls=(*last.calls, *([extra] * pad)))
            yield (
                "too_many_calls",
                f"the conversation makes {limits.max_calls + 1} calls",
                [*head, plan],
            )
    if limits.max_model_steps is not None:
        plan = replace(last, preamble=last.preamble + limits.max_model_steps + 1)
        yield "extra_steps", "the last turn adds steps over the conversation's bound", [*head, plan]
    if limits.min_calls and calls:
        silent = [TurnPlan(text=p.text) for p in plans]
        yield "too_few_calls", "no turn makes a call", silent
    if limits.min_model_steps:
        yield "fewer_steps", "no assistant message in any turn", [TurnPlan() for _ in plans]
