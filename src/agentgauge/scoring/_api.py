"""The scoring entry point: ``score_case(case, turns, tools, config) -> CaseScore``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Final, Literal

from ..schema import (
    ArgsMatch,
    Case,
    Expectation,
    ExtraArguments,
    Message,
    Score,
    StateDiff,
    StepLimits,
    Suite,
    TextCalls,
    ToolCall,
    ToolSpec,
)
from ..worlds import WorldOutcome
from ._args import MatchContext
from ._behavior import classify_behavior
from ._calls import NO_TOOL, score_calls
from ._case_score import CaseScore
from ._checks import score_behavior, score_forbidden, score_response_contains
from ._rules import (
    conversation_scores,
    count_scores,
    negated,
    score_allowed_tools,
    score_forbidden_arguments,
    score_forbidden_sequences,
    score_forbidden_types,
)
from ._state import score_state
from ._transcript import History, Segment, build_segments

BehaviorClassifier = Callable[[str | None, Sequence[ToolCall]], str]

#: how much each kind of score weighs in a turn's overall score (see docs/scoring.md)
DEFAULT_WEIGHTS: Final[Mapping[str, float]] = MappingProxyType(
    {
        "tool_selection": 1.0,
        "arguments": 2.0,
        "order": 0.5,
        "forbidden_tools": 1.0,
        "max_calls": 0.5,
        "behavior": 1.0,
        "response_contains": 1.0,
        "state": 2.0,
        "allowed_tools": 1.0,
        "forbidden_types": 1.0,
        "forbidden_arguments": 1.0,
        "forbidden_sequences": 1.0,
        "min_calls": 0.5,
        "max_model_steps": 0.5,
        "min_model_steps": 0.5,
        "not": 1.0,
    }
)


@dataclass(frozen=True, kw_only=True)
class ScoringConfig:
    """How to score: ``default`` agentgauge rules or ``bfcl`` (BFCL AST checker verdicts)."""

    mode: Literal["default", "bfcl"] = "default"
    #: default policy for unexpected extra arguments (a call expectation may override it);
    #: ``None``: the suite's ``defaults.extra_arguments`` (see :meth:`for_suite`), else ``fail``
    extra_arguments: ExtraArguments | None = None
    #: how expected calls' arguments are compared (exact, ignore, subset, superset);
    #: ``None``: the suite's ``defaults.args_match`` (see :meth:`for_suite`), else ``exact``
    args_match: ArgsMatch | None = None
    #: argument comparison per tool name, overriding ``args_match`` (a call's own wins);
    #: ``None``: the suite's ``defaults.args_match_overrides``
    args_match_overrides: Mapping[str, ArgsMatch] | None = None
    #: replaces the built-in behaviour heuristic: (final text, calls) -> behaviour label
    behavior_classifier: BehaviorClassifier | None = None
    #: weights of the score kinds in the overall score (missing kinds weigh 1.0)
    weights: Mapping[str, float] = field(default_factory=lambda: DEFAULT_WEIGHTS)
    #: call and model-step bounds of every turn with an expectation (a turn's own win);
    #: ``None``: the suite's ``defaults.limits``
    limits: StepLimits | None = None
    #: a case passes when its score is at least this (a case's own ``pass_threshold`` wins);
    #: ``None``: the suite's ``defaults.pass_threshold``, else every check must pass
    pass_threshold: float | None = None
    #: ``lenient``: tool calls written as text in an assistant reply without calls (whole, or
    #: inside prose) are read as calls; ``None``: the suite's ``defaults.text_calls``
    text_calls: TextCalls | None = None

    def for_suite(self, suite: Suite) -> ScoringConfig:
        """This config with the suite's defaults filled in where it leaves them open."""
        d = suite.defaults
        return replace(
            self,
            extra_arguments=d.extra_arguments
            if self.extra_arguments is None
            else self.extra_arguments,
            args_match=d.args_match if self.args_match is None else self.args_match,
            args_match_overrides=MappingProxyType(dict(d.args_match_overrides))
            if self.args_match_overrides is None
            else self.args_match_overrides,
            limits=d.limits if self.limits is None else self.limits,
            pass_threshold=d.pass_threshold if self.pass_threshold is None else self.pass_threshold,
            text_calls=d.text_calls if self.text_calls is None else self.text_calls,
        )


_DEFAULT_CONFIG: Final = ScoringConfig()
_NO_BEHAVIOR_TOOLS: Final = frozenset({"no_tool", "answer", "clarify", "refuse"})


def score_case(
    case: Case,
    turns: Sequence[Sequence[Message]],
    tools: Mapping[str, ToolSpec],
    config: ScoringConfig = _DEFAULT_CONFIG,
    *,
    world: WorldOutcome | None = None,
) -> CaseScore:
    """Score what the agent did in ``turns`` against ``case``'s expectations.

    ``turns[i]`` holds the agent's messages (assistant messages and the tool results it received)
    in reply to the case input (``i == 0``) or to ``case.turns[i - 1]``; ``tools`` maps tool names
    to their specs (their JSON Schemas guide argument comparison). ``world``: the snapshots of
    the case's world, which ``expect.state`` is checked on (docs/worlds.md).
    """
    if config.mode == "bfcl":
        from ._bfcl import score_bfcl

        return score_bfcl(case, turns, tools)
    expectations: list[Expectation | None] = [case.expect]
    expectations.extend(t.expect for t in case.turns)
    prefix_input = case.input if isinstance(case.input, list) else ()
    segments, history = build_segments(
        prefix_input, turns, len(expectations), lenient=config.text_calls == "lenient"
    )
    classify = config.behavior_classifier or classify_behavior
    multi = len(expectations) > 1
    scores: list[Score] = []
    state_scores: list[Score] = []
    diffs: list[StateDiff] = []
    turn_values: list[float] = []
    behavior: str | None = None
    for i, exp in enumerate(expectations):
        seg = segments[i]
        behavior = classify(seg.text, seg.calls)
        if exp is None:
            continue
        prefix = f"turn[{i}]." if multi else ""
        turn_scores = score_turn(exp, seg, history, tools, config, behavior, prefix)
        if exp.state is not None:
            last = i == len(expectations) - 1
            state, found = score_state(exp.state, i, world, prefix=prefix, last=last)
            turn_scores.append(state)
            state_scores.append(state)
            diffs.extend(found)
        if turn_scores:
            scores.extend(turn_scores)
            turn_values.append(_weighted(turn_scores, config.weights, prefix))
    if case.limits is not None:  # the whole conversation's bounds: one more term of the mean
        whole = conversation_scores(case.limits, segments)
        scores.extend(whole)
        turn_values.append(_weighted(whole, config.weights, "conversation."))
    failed = [s.explanation for s in scores if s.passed is False]
    value = sum(turn_values) / len(turn_values) if turn_values else 1.0
    if failed and value >= 1.0:
        value = 0.99
    goal_met = all(s.passed for s in state_scores) if state_scores else None
    if failed and state_scores and len(state_scores) < len(scores):
        failed.insert(0, _which_part(scores, state_scores))
    threshold = case.pass_threshold if case.pass_threshold is not None else config.pass_threshold
    passed = not failed
    if threshold is not None:
        passed = value >= threshold - 1e-9
        failed.insert(0, _threshold_line(value, threshold, passed, bool(failed)))
        if passed and len(failed) == 1:
            failed = []
    return CaseScore(
        status="passed" if passed else "failed",
        score=value,
        scores=scores,
        explanation="\n".join(failed),
        behavior=behavior,
        goal_met=goal_met,
        state_diff=diffs,
    )


def _threshold_line(value: float, threshold: float, passed: bool, any_failed: bool) -> str:
    """The first explanation line of a case with a ``pass_threshold``."""
    if passed:
        return f"passed: score {value:.2f} is at least pass_threshold {threshold:g}; failed checks:"
    if any_failed:
        return f"score {value:.2f} is below pass_threshold {threshold:g}"
    return f"score {value:.2f} is below pass_threshold {threshold:g} (no check failed)"


def _which_part(scores: Sequence[Score], state_scores: Sequence[Score]) -> str:
    """The first explanation line of a case graded on its outcome and its moves: which failed."""
    outcome_ok = all(s.passed for s in state_scores)
    outcome = {id(s) for s in state_scores}
    moves = [s for s in scores if id(s) not in outcome and s.passed is False]
    names = ", ".join(dict.fromkeys(s.name for s in moves))
    if outcome_ok:
        return f"outcome passed (the state is right); moves failed: {names}"
    if not moves:
        return "outcome failed (the state is wrong); moves passed"
    return f"outcome failed (the state is wrong); moves failed too: {names}"


def failed_case_score(
    value: float, expectation_scores: Sequence[Score], extra_scores: Sequence[Score]
) -> float:
    """The score of a *failed* case whose suite scorers (judges, ``assert``, ``python:``) ran:
    the mean of the expectations' score (when the case has expectations that decided) and the
    value of each decided scorer score, below 1.0 (capped at 0.99 like every failed case), so a
    case failed by a scorer never shows 1.00."""
    terms = [value] if any(s.passed is not None for s in expectation_scores) else []
    terms += [s.value for s in extra_scores if s.passed is not None]
    if not terms:
        return min(value, 0.99)
    return min(sum(terms) / len(terms), 0.99)


def score_turn(
    exp: Expectation,
    seg: Segment,
    history: History,
    tools: Mapping[str, ToolSpec],
    config: ScoringConfig,
    behavior: str,
    prefix: str = "",
) -> list[Score]:
    """Every score that applies to one turn's expectation."""
    scores: list[Score] = []
    expected_behavior = exp.behavior
    records = seg.records
    if exp.tool_calls:
        ctx = MatchContext(
            history,
            default_extra=config.extra_arguments or "fail",
            args_match=config.args_match or "exact",
            args_overrides=config.args_match_overrides or {},
        )
        scores.extend(
            score_calls(
                exp,
                records,
                tools,
                ctx,
                prefix,
                # failed attempts no expected call needs are the recovery's business
                recover=expected_behavior == "recover",
                assistant_pos=seg.assistant_pos,
            )
        )
    elif expected_behavior in _NO_BEHAVIOR_TOOLS or expected_behavior == "any_tool":
        names = [r.call.name for r in records]
        want_any = expected_behavior == "any_tool"
        passed = bool(names) if want_any else not names
        actual = ", ".join(names) if names else NO_TOOL
        if passed:
            explanation = f"called {actual}" if want_any else "no tool called, as expected"
        else:
            explanation = (
                "expected a tool call, got none"
                if want_any
                else f"expected no tool call, got {actual}"
            )
        scores.append(
            Score(
                name=prefix + "tool_selection",
                value=1.0 if passed else 0.0,
                passed=passed,
                explanation=explanation,
                expected="<any tool>" if want_any else NO_TOOL,
                actual=actual,
            )
        )
    if expected_behavior in ("answer", "clarify", "refuse", "recover"):
        scores.append(score_behavior(expected_behavior, behavior, seg, prefix))
    if exp.forbidden_tools:
        scores.append(score_forbidden(exp.forbidden_tools, seg, prefix))
    scores.extend(_rule_scores(exp, seg, history, tools, config, prefix))
    if exp.response_contains:
        scores.append(score_response_contains(exp.response_contains, seg, prefix))
    if exp.not_ is not None:
        # the inner expectation is judged on its own bounds, not the suite's defaults.limits
        inner_config = replace(config, limits=None)
        inner = score_turn(exp.not_, seg, history, tools, inner_config, behavior, prefix)
        scores.append(negated(inner, prefix))
    return scores


def _rule_scores(
    exp: Expectation,
    seg: Segment,
    history: History,
    tools: Mapping[str, ToolSpec],
    config: ScoringConfig,
    prefix: str,
) -> list[Score]:
    """Forbidden types, argument values and sequences; call and model-step bounds."""
    out: list[Score] = []
    if exp.allowed_tools:  # (each test is a cheap attribute read: this runs for every turn)
        out.append(score_allowed_tools(exp.allowed_tools, seg, prefix))
    if exp.forbidden_types:
        out.append(score_forbidden_types(exp.forbidden_types, seg, tools, prefix))
    if exp.forbidden_arguments:
        ctx = MatchContext(history)
        out.append(score_forbidden_arguments(exp.forbidden_arguments, seg, tools, ctx, prefix))
    if exp.forbidden_sequences:
        out.append(score_forbidden_sequences(exp.forbidden_sequences, seg, prefix))
    own = (exp.min_calls, exp.max_calls, exp.min_model_steps, exp.max_model_steps)
    if config.limits is not None or own != (None, None, None, None):
        out.extend(count_scores(exp.limits().over(config.limits), seg, prefix))
    return out


def _weighted(scores: Sequence[Score], weights: Mapping[str, float], prefix: str) -> float:
    total = 0.0
    weight_sum = 0.0
    cut = len(prefix)
    for s in scores:
        if s.passed is None:
            continue
        w = weights.get(s.name[cut:], 1.0)
        total += w * s.value
        weight_sum += w
    return total / weight_sum if weight_sum else 1.0
