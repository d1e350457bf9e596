"""Plausible wrong transcripts built from a case itself, and the right one.

For every user turn with an expectation, the *reference* plan is what a correct agent does: the
expected calls with a value each matcher accepts (then the expected reply: the case's
``reference`` text, or a stock reply of the expected behaviour, plus every ``response_contains``
string). Each *mutant* replaces one turn's plan by one plausible mistake and keeps every other
turn right, so a mutant that passes shows exactly which expectation cannot fail.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from typing import Any, Final, Literal

from .._suite_code import SuiteCodePolicy
from ..schema import CallExpectation, Case, Expectation, Message, Suite, ToolSpec
from ..worlds import (
    State,
    WorldBuilder,
    WorldError,
    WorldOutcome,
    reference_states,
    wants_reference,
)
from ._checks import (
    CHECK_AXES,
    CheckAxis,
    avoid_banned,
    check_mutants,
    concrete_tool,
    confirm_sequences,
    conversation_mutants,
    fits,
    meet_bounds,
)
from ._play import (
    PlannedCall,
    PlayError,
    TurnPlan,
    WorldPlay,
    error_tools,
    play_in_world,
    uses_fakes,
)
from ._values import NoWitness, RefValue, default_accepted, perturb, placeholder, witness
from ._world import state_mutants

__all__ = ["AXES", "Axis", "CaseMutants", "Mutant", "mutate_case"]

_BaseAxis = Literal[
    "wrong_tool",
    "no_call",
    "extra_call",
    "drop_argument",
    "perturb_argument",
    "reorder_calls",
    "drop_call",
    "text_only",
    "refusal",
    "clarify",
    "forbidden_call",
    "error_echo",
    "unsupported_number",
    "skip_write",
    "wrong_write",
    "extra_write",
    # a case with a simulated user (docs/users.md): the agent says what it must not obtain
    "leak_secret",
]
Axis = _BaseAxis | CheckAxis

#: every mutation axis, in report order
AXES: Final[tuple[Axis, ...]] = (
    "wrong_tool",
    "no_call",
    "extra_call",
    "drop_argument",
    "perturb_argument",
    "reorder_calls",
    "drop_call",
    "text_only",
    "refusal",
    "clarify",
    "forbidden_call",
    "error_echo",
    "unsupported_number",
    "skip_write",
    "wrong_write",
    "extra_write",
    "leak_secret",
    *CHECK_AXES,
)

#: stock replies (each classified as its behaviour by the built-in heuristic)
ANSWER_TEXT: Final = "Here is what you asked for."
DONE_TEXT: Final = "Done."
CLARIFY_TEXT: Final = "Which one do you mean? Please tell me a bit more."
REFUSAL_TEXT: Final = "I'm sorry, but I can't help with that."
NO_TOOL_TEXT: Final = "I can't do that with the tools I have."
#: amounts that a reply states without support (the first one no source mentions is used)
_UNSUPPORTED: Final = ("7,391.25", "8,462.75", "9,573.50")

_STOCK: Final[dict[str | None, str]] = {
    "answer": ANSWER_TEXT,
    "clarify": CLARIFY_TEXT,
    "refuse": REFUSAL_TEXT,
    "no_tool": NO_TOOL_TEXT,
    "recover": DONE_TEXT,
    "tool_call": DONE_TEXT,
    "any_tool": DONE_TEXT,
    None: ANSWER_TEXT,
}
#: behaviours for which an extra (any) tool call is wrong
_NO_CALL_BEHAVIORS: Final = frozenset({"answer", "clarify", "refuse", "no_tool"})
#: order modes under which one call more than expected fails
_EXACT_ORDERS: Final = frozenset({"strict", "any_order", "subset"})


@dataclass(frozen=True, kw_only=True)
class Mutant:
    """One plausible wrong transcript: the axis, the turn it changes, and what it did."""

    axis: Axis
    turn: int
    detail: str
    #: the agent's messages per turn (the argument ``score_case`` takes)
    turns: list[list[Message]] = field(repr=False)
    #: why this transcript is in fact right if the scorers pass it (a dropped argument whose
    #: schema default the case accepts); None: passing is a finding
    benign: str | None = None
    #: the world's snapshots this transcript leaves (None: the suite has no world, or the
    #: audit does not run it)
    world: WorldOutcome | None = None


class _Detail(str):
    """A mutant's description that may say when the mutant passing is no finding."""

    benign: str | None = None


@dataclass(frozen=True, kw_only=True)
class CaseMutants:
    """The reference transcript of a case and its mutants."""

    case_id: str
    #: the right transcript; None when it could not be built (see ``reference_problem``)
    reference: list[list[Message]] | None
    reference_problem: str | None = None
    #: the expectation accepts no transcript at all (no correct agent can pass)
    impossible: bool = False
    #: a tool of the case is a Python fake (``function:``), which is not called: its calls got
    #: a placeholder result, so a failing reference may only mean the fake's result is missing
    uses_fakes: bool = False
    #: whether the case itself gives the right moves (expected calls or reference text), not
    #: only a behaviour the stock replies stand for
    reference_defined: bool = False
    mutants: list[Mutant] = field(default_factory=list)
    #: mutants that could not be built: (axis, why)
    unbuilt: list[tuple[Axis, str]] = field(default_factory=list)
    #: the snapshots of the reference transcript's world
    reference_world: WorldOutcome | None = None
    #: why the case's state checks cannot be decided (a Python world the audit may not run)
    world_problem: str | None = None


def _expectations(case: Case) -> list[Expectation | None]:
    return [case.expect, *(t.expect for t in case.turns)]


def _reply(exp: Expectation) -> str:
    text = exp.reference or _STOCK.get(exp.behavior, ANSWER_TEXT)
    folded = text.casefold()
    missing = [s for s in exp.response_contains if s.casefold() not in folded]
    return " ".join([text, *missing])


def _placeholder_call(tool: ToolSpec) -> PlannedCall:
    props = tool.properties()
    return PlannedCall(tool.name, {n: placeholder(props.get(n)) for n in tool.required()})


def _call_args(call: CallExpectation, tool: ToolSpec | None) -> dict[str, Any]:
    props = tool.properties() if tool is not None else {}
    args: dict[str, Any] = {}
    for name, m in call.arguments.items():
        if m.optional and m.any:
            continue
        try:
            args[name] = witness(m, props.get(name))
        except NoWitness:
            if not m.optional:
                raise
            # an optional argument with no acceptable value (BFCL's "omit it") is left out
    return args


class _Builder:
    def __init__(self, case: Case, suite: Suite, grounding: bool) -> None:
        self.case = case
        self.suite = suite
        self.offered = suite.tools_for(case)
        self.tools: dict[str, ToolSpec] = {t.name: t for t in suite.tools}
        self.tools.update({t.name: t for t in self.offered})
        self.grounding = grounding
        self.error_tools = error_tools(case)
        sims = [t.name for t in self.offered if t.simulation and t.simulation.fault]
        self.error_tools += [n for n in sims if n not in self.error_tools]

    # ------------------------------------------------------------------------- reference

    def reference(self, exp: Expectation | None) -> TurnPlan:
        if exp is None:
            return TurnPlan(text=ANSWER_TEXT)
        limits = exp.limits().over(self.suite.defaults.limits)
        plan = confirm_sequences(self._reference(exp), exp, self.offered)
        return meet_bounds(plan, exp, limits, self.offered)

    def _reference(self, exp: Expectation) -> TurnPlan:
        text = _reply(exp)
        recover = exp.behavior == "recover"
        if exp.tool_calls:
            calls = tuple(self._planned(c, exp, i) for i, c in enumerate(exp.tool_calls))
            ordered = exp.order in ("strict", "in_order")
            return TurnPlan(
                calls=calls,
                text=text,
                retry_errors=recover,
                explain_errors=recover,
                sequential=ordered,
            )
        state_ref = exp.state.reference if exp.state is not None else None
        if state_ref:
            calls = tuple(PlannedCall(c.name, dict(c.arguments)) for c in state_ref)
            return TurnPlan(calls=calls, text=text, sequential=True)
        if exp.behavior == "any_tool" and self.offered:
            return TurnPlan(calls=(_placeholder_call(self.offered[0]),), text=text)
        if recover:
            failing = [self.tools[n] for n in self.error_tools if n in self.tools]
            calls = tuple(_placeholder_call(t) for t in failing[:1])
            return TurnPlan(calls=calls, text=text, retry_errors=True, explain_errors=True)
        return TurnPlan(text=text)

    def _planned(self, c: CallExpectation, exp: Expectation, index: int) -> PlannedCall:
        """The call a right agent makes for ``c``: a tool its name or glob fits, a value each
        matcher accepts that no ``forbidden_arguments`` rule bans."""
        name = concrete_tool(c, self.offered)
        args = _call_args(c, self.tools.get(name))
        if exp.forbidden_arguments:
            args = avoid_banned(c, name, args, exp.forbidden_arguments)
        return PlannedCall(name, args, getattr(c, "step", None), index)

    # --------------------------------------------------------------------------- mutants

    def mutants(
        self, exp: Expectation, ref: TurnPlan | None
    ) -> Iterator[tuple[Axis, str, TurnPlan]]:
        behavior = exp.behavior
        # order subset with allow_no_calls: a turn without any call is right by the case's terms
        silent_ok = bool(getattr(exp, "allow_no_calls", False))
        if exp.tool_calls and ref is not None:
            yield from self._call_mutants(exp, ref, silent_ok)
        elif exp.tool_calls:
            yield "no_call", "no tool call", TurnPlan(text=_reply(exp))
        elif ref is not None and ref.calls and exp.state is not None and exp.state.reference:
            yield (
                "no_call",
                "none of the reference actions, the same reply",
                TurnPlan(text=ref.text),
            )
            if len(ref.calls) >= 2:
                last = ref.calls[-1].name
                yield (
                    "drop_call",
                    f"the last action ({last}) left out",
                    replace(ref, calls=ref.calls[:-1]),
                )
        else:
            yield from self._text_mutants(exp, ref)
        if behavior not in ("answer", "no_tool") and not silent_ok:
            yield "text_only", f"a text-only answer: {ANSWER_TEXT!r}", TurnPlan(text=ANSWER_TEXT)
        if behavior not in ("refuse", "no_tool") and not silent_ok:
            yield "refusal", f"a refusal: {REFUSAL_TEXT!r}", TurnPlan(text=REFUSAL_TEXT)
        if behavior not in ("clarify", "no_tool") and not silent_ok:
            yield "clarify", f"a clarifying question: {CLARIFY_TEXT!r}", TurnPlan(text=CLARIFY_TEXT)
        if ref is None:
            return
        yield from check_mutants(
            exp,
            ref,
            self.offered,
            limits=self.suite.defaults.limits,
            lenient=self.suite.defaults.text_calls == "lenient",
            reference_of=self.reference,
        )
        if exp.forbidden_tools:
            name = exp.forbidden_tools[0]
            name = next((t for t in self.tools if fnmatchcase(t, name)), name)
            tool = self.tools.get(name)
            bad = _placeholder_call(tool) if tool is not None else PlannedCall(name)
            yield (
                "forbidden_call",
                f"also calls forbidden {name}",
                replace(ref, calls=(*ref.calls, bad)),
            )
        if behavior == "recover" or (self.error_tools and ref.calls):
            yield (
                "error_echo",
                "replies with the raw tool error",
                replace(ref, echo_error=True, retry_errors=False, explain_errors=False),
            )
        if self.grounding:
            number = self._unsupported_number()
            yield (
                "unsupported_number",
                f"the reply states {number}, found in no source",
                replace(ref, text=f"{ref.text or ''} That comes to {number} in total.".strip()),
            )

    def _call_mutants(
        self, exp: Expectation, ref: TurnPlan, silent_ok: bool
    ) -> Iterator[tuple[Axis, str, TurnPlan]]:
        calls = ref.calls
        first = calls[0].name
        head = exp.tool_calls[0]
        other = next((t.name for t in self.offered if t.name != first and not fits(head, t)), None)
        if other is not None:
            wrong = (replace(calls[0], name=other), *calls[1:])
            yield "wrong_tool", f"{first} -> {other}", replace(ref, calls=wrong)
        if not silent_ok:
            yield "no_call", "no tool call, the same reply", TurnPlan(text=ref.text)
        over_limit = exp.max_calls is not None and len(calls) + 1 > exp.max_calls
        if exp.order in _EXACT_ORDERS or over_limit:
            yield (
                "extra_call",
                f"{calls[-1].name} called once more",
                replace(ref, calls=(*calls, calls[-1])),
            )
        # each expected call's first planned call (a plan may add confirming or padding calls)
        played = {
            c.expected: k for k, c in reversed(list(enumerate(calls))) if c.expected is not None
        }
        for i, k in sorted(played.items()):
            planned, expected = calls[k], exp.tool_calls[i]
            if self._args_ignored(expected):
                continue  # the case says the arguments do not matter: changing them is no mistake
            tool = self.tools.get(planned.name)
            props = tool.properties() if tool is not None else {}
            label = planned.name if len(calls) == 1 else f"{planned.name}[{k}]"
            for name, m in expected.arguments.items():
                if name not in planned.arguments:
                    continue
                value = planned.arguments[name]
                schema = props.get(name)
                if not m.optional and not default_accepted(m, schema, value):
                    dropped = {a: v for a, v in planned.arguments.items() if a != name}
                    what = _Detail(f"{label}.{name} left out")
                    if isinstance(schema, dict) and "default" in schema:
                        what.benign = (
                            f"left out, {name} is its schema default {schema['default']!r}, "
                            "which the case accepts"
                        )
                    yield (
                        "drop_argument",
                        what,
                        _with_call(ref, k, replace(planned, arguments=dropped)),
                    )
                if isinstance(value, RefValue):
                    if m.any:
                        continue
                    wrong_value: Any = replace(value, wrong=True)
                    detail = f"{label}.{name}: not the value of {value.ref.tool}.{value.ref.path}"
                else:
                    got = perturb(m, value, schema)
                    if got is None:
                        continue
                    wrong_value, how = got
                    detail = f"{label}.{name}{how}"
                args = {**planned.arguments, name: wrong_value}
                yield (
                    "perturb_argument",
                    detail,
                    _with_call(ref, k, replace(planned, arguments=args)),
                )
        if len(calls) >= 2:
            if exp.order in ("strict", "in_order") and list(reversed(calls)) != list(calls):
                yield (
                    "reorder_calls",
                    "the calls in reverse order",
                    replace(ref, calls=tuple(reversed(calls))),
                )
            if exp.order != "subset":
                yield (
                    "drop_call",
                    f"the last call ({calls[-1].name}) left out",
                    replace(ref, calls=calls[:-1]),
                )

    def _args_ignored(self, call: CallExpectation) -> bool:
        mode = getattr(call, "args_match", None)
        if mode is None:
            defaults = self.suite.defaults
            overrides = getattr(defaults, "args_match_overrides", {}) or {}
            mode = overrides.get(call.name, getattr(defaults, "args_match", "exact"))
        return bool(mode == "ignore")

    def _text_mutants(
        self, exp: Expectation, ref: TurnPlan | None
    ) -> Iterator[tuple[Axis, str, TurnPlan]]:
        behavior = exp.behavior
        if behavior in ("any_tool", "recover") and ref is not None and ref.calls:
            yield "no_call", "no tool call, the same reply", TurnPlan(text=ref.text)
        if ref is None or not (behavior in _NO_CALL_BEHAVIORS or exp.max_calls is not None):
            return
        pool = [t for t in self.offered if t.name not in exp.forbidden_tools] or self.offered
        if not pool:
            return
        extra = _placeholder_call(pool[0])
        count = 1 if exp.max_calls is None else exp.max_calls + 1
        yield (
            "extra_call",
            f"calls {extra.name}" + (f" {count} times" if count > 1 else ""),
            (replace(ref, calls=(*ref.calls, *([extra] * count)))),
        )

    def _unsupported_number(self) -> str:
        case = self.case
        texts = [*case.context, case.input if isinstance(case.input, str) else ""]
        if isinstance(case.input, list):
            texts += [m.content or "" for m in case.input]
        texts += [t.user for t in case.turns]
        texts += [repr(s) for s in case.tool_results.values()]
        joined = " ".join(texts)
        return next((n for n in _UNSUPPORTED if n not in joined), _UNSUPPORTED[0])


def _with_call(ref: TurnPlan, k: int, call: PlannedCall) -> TurnPlan:
    calls = list(ref.calls)
    calls[k] = call
    return replace(ref, calls=tuple(calls))


class _Stage:
    """Where a case's transcripts are played: with the suite's world (a fresh one each, its
    snapshots graded) or without one."""

    def __init__(self, case: Case, tools: dict[str, ToolSpec], world: WorldBuilder | None,
                 policy: SuiteCodePolicy | None) -> None:  # fmt: skip
        self.case, self.tools, self.builder, self.policy = case, tools, world, policy
        self.reference: list[State] | None = None
        self.reference_problem: str | None = None
        self.reference_errors: list[str] = []
        if world is not None and wants_reference(case):
            try:
                got = reference_states(world.build(case, policy), case)
            except WorldError as exc:
                got = None, f"the reference world failed: {exc}", []
            self.reference, self.reference_problem, self.reference_errors = got

    def play(self, plans: Sequence[TurnPlan]) -> tuple[WorldPlay, WorldOutcome | None]:
        if self.builder is None:
            return play_in_world(self.case, self.tools, plans, None), None
        try:
            world = self.builder.build(self.case, self.policy)
        except WorldError as exc:
            raise PlayError(f"the world cannot be built: {exc}") from None
        initial = world.snapshot()
        played = play_in_world(self.case, self.tools, plans, world)
        return played, self.outcome(initial, played.states)

    def outcome(self, initial: State, states: list[State]) -> WorldOutcome:
        return WorldOutcome(
            initial=initial,
            turns=states,
            reference=self.reference,
            reference_problem=self.reference_problem,
            reference_errors=self.reference_errors,
        )


def _graded(exp: Expectation | None) -> bool:
    return exp is not None and exp.state is not None


def mutate_case(
    case: Case,
    suite: Suite,
    *,
    grounding: bool = False,
    world: WorldBuilder | None = None,
    policy: SuiteCodePolicy | None = None,
) -> CaseMutants:
    """The reference transcript of ``case`` and its mutants (``suite`` gives the tools).

    ``grounding``: also build the ``unsupported_number`` mutant (a reply stating a number no
    source supports), for cases a groundedness check applies to. ``world``: the suite's world
    (``policy``: the suite code policy a Python world is built under): every transcript is
    played against a fresh one, and turns that check the state get the state mutants.
    """
    b = _Builder(case, suite, grounding)
    stage = _Stage(case, b.tools, world, policy)
    expectations = _expectations(case)
    plans: list[TurnPlan | None] = []
    problem: str | None = None
    impossible = False
    for i, exp in enumerate(expectations):
        try:
            plans.append(b.reference(exp))
        except NoWitness as exc:
            plans.append(None)
            impossible = impossible or exc.impossible
            problem = problem or f"turn {i}: {exc}"
    defined = any(
        e is not None and (e.tool_calls or e.reference or e.state is not None) for e in expectations
    )
    fallback = [p if p is not None else TurnPlan(text=ANSWER_TEXT) for p in plans]
    ref_play: WorldPlay | None = None
    ref_world: WorldOutcome | None = None
    if problem is None:
        try:
            ref_play, ref_world = stage.play(fallback)
        except PlayError as exc:
            problem = f"the reference cannot be played: {exc}"
    out = CaseMutants(
        case_id=case.id,
        reference=ref_play.turns if ref_play is not None else None,
        reference_problem=problem,
        impossible=impossible,
        reference_defined=defined,
        uses_fakes=uses_fakes(case, b.tools),
        reference_world=ref_world,
    )
    multi = len(expectations) > 1
    for i, exp in enumerate(expectations):
        if exp is None:
            continue
        for axis, detail, plan in b.mutants(exp, plans[i]):
            changed = [*fallback[:i], plan, *fallback[i + 1 :]]
            _add_played(out, stage, axis, f"turn {i}: {detail}" if multi else detail, changed, i)
        if _graded(exp) and ref_play is not None and ref_world is not None:
            _add_state_mutants(out, stage, ref_play, ref_world, i, multi)
    if case.limits is not None and problem is None:  # the whole conversation's bounds
        for axis, detail, changed in conversation_mutants(case.limits, fallback, b.offered):
            _add_played(out, stage, axis, detail, changed, len(fallback) - 1)
    return out


def _add_played(
    out: CaseMutants, stage: _Stage, axis: Axis, detail: str, plans: list[TurnPlan], turn: int
) -> None:
    """Play one mutant's plans and keep it (or say why it could not be built)."""
    try:
        played, outcome = stage.play(plans)
    except PlayError as exc:
        out.unbuilt.append((axis, f"turn {turn}: {exc}"))
        return
    out.mutants.append(
        Mutant(
            axis=axis,
            turn=turn,
            detail=detail,
            turns=played.turns,
            benign=getattr(detail, "benign", None),
            world=outcome,
        )
    )


def _add_state_mutants(
    out: CaseMutants, stage: _Stage, ref: WorldPlay, ref_world: WorldOutcome, turn: int,
    multi: bool,
) -> None:  # fmt: skip
    """The right transcript with a wrong state after ``turn`` (the other turns' states kept)."""
    for axis, detail, state in state_mutants(ref.states[turn], ref.writes[turn]):
        states = [*ref.states[:turn], state, *ref.states[turn + 1 :]]
        shown = f"turn {turn}: {detail}" if multi else detail
        out.mutants.append(
            Mutant(
                axis=axis,
                turn=turn,
                detail=shown,
                turns=ref.turns,
                world=stage.outcome(ref_world.initial, states),
            )
        )
