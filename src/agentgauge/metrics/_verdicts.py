"""How metrics read one result: its scores by name, and the verdicts derived from them.

Shared by the summary pass and the run comparison, so both count the same things.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..schema import CaseResult, Score

NO_TOOL = "<no tool>"
#: behaviours that mean "do not call a tool"
NO_CALL_BEHAVIORS = frozenset({"no_tool", "answer", "clarify", "refuse"})

_TURN = re.compile(r"^turn\[(\d+)\]\.(.+)$")


@functools.lru_cache(maxsize=4096)
def split_score_name(name: str) -> tuple[int | None, str]:
    """``"turn[2].arguments"`` -> ``(2, "arguments")``; ``"arguments"`` -> ``(None, ...)``."""
    m = _TURN.match(name)
    if m:
        return int(m.group(1)), m.group(2)
    return None, name


@dataclass(frozen=True, slots=True)
class Verdict:
    """A score as metrics read it: a case-level score, or a case's turn scores combined."""

    passed: bool | None
    value: float
    expected: str | None = None
    actual: str | None = None
    explanation: str = ""
    #: a judge score whose samples agreed too little (any of the turn scores, combined)
    uncertain: bool = False


def case_score(scores: Iterable[Score], base: str) -> Verdict | None:
    """The case-level score ``base``, else the turn-level ones combined (all must pass)."""
    turn_level: list[Score] = []
    for s in scores:
        turn, name = split_score_name(s.name)
        if name != base:
            continue
        if turn is None:
            return Verdict(s.passed, s.value, s.expected, s.actual, s.explanation, s.uncertain)
        turn_level.append(s)
    if not turn_level:
        return None
    decided = [s for s in turn_level if s.passed is not None]
    if not decided:
        return Verdict(None, 0.0)
    failed = [s for s in decided if not s.passed]
    shown = failed[0] if failed else decided[0]
    return Verdict(
        not failed,
        sum(s.value for s in decided) / len(decided),
        shown.expected,
        shown.actual,
        shown.explanation,
        any(s.uncertain for s in decided),
    )


def tool_label(label: str) -> str:
    """A confusion-matrix label: tool names once each, in first-seen order
    (``"a, a, b"`` -> ``"a, b"``), so repeated calls do not split one cell into many."""
    return ", ".join(dict.fromkeys(p.strip() for p in label.split(",") if p.strip())) or NO_TOOL


def tool_selection_verdict(r: CaseResult) -> tuple[bool | None, str, str] | None:
    """(passed, expected label, called label) of tool selection; None when not applicable.

    Uses the scorer's ``tool_selection`` score (or its turn scores); without one, compares the
    set of expected tools with the set of called tools (``<no tool>`` when empty).
    """
    s = case_score(r.scores, "tool_selection")
    # labels name each tool once, on both sides, so a right choice lands on the diagonal
    called = ", ".join(dict.fromkeys(c.name for c in r.calls)) or NO_TOOL
    wanted = ", ".join(dict.fromkeys(r.expected_tools)) or NO_TOOL
    if s is not None:
        expected = tool_label(s.expected) if s.expected else wanted
        actual = tool_label(s.actual) if s.actual else called
        return s.passed, expected, actual
    if r.expected_tools or r.expected_behavior in NO_CALL_BEHAVIORS:
        return set(r.expected_tools) == {c.name for c in r.calls}, wanted, called
    return None


def first_turn_observation(r: CaseResult) -> tuple[bool, str | None] | None:
    """(called a tool, behaviour) in turn 0 of a multi-turn result, from its turn-0 scores.

    ``expected_behavior`` and ``expected_tools`` describe turn 0, while ``calls`` and
    ``behavior`` cover the whole conversation and its last turn; None for a single-turn result.
    """
    selection: Score | None = None
    behavior: Score | None = None
    for s in r.scores:
        turn, name = split_score_name(s.name)
        if turn == 0 and name == "tool_selection":
            selection = s
        elif turn == 0 and name == "behavior":
            behavior = s
    if selection is None or not selection.actual:
        return None
    return selection.actual != NO_TOOL, behavior.actual if behavior is not None else None


def is_multi_step(r: CaseResult) -> bool:
    """A multi-step task: more than one expected call, or scored turns after the first."""
    return len(r.expected_tools) > 1 or any(
        (split_score_name(s.name)[0] or 0) >= 1 for s in r.scores
    )


def argument_verdict(r: CaseResult, selection: bool | None) -> bool | None:
    """Strict argument correctness, or None when skipped.

    Skip-cascading: when tool selection failed, argument correctness is meaningless (the
    arguments of the wrong tool), so it is skipped rather than counted as a second failure.
    """
    s = case_score(r.scores, "arguments")
    if s is None or s.passed is None or selection is False:
        return None
    return s.passed


def behavior_verdict(r: CaseResult) -> tuple[bool | None, str | None] | None:
    """(passed, expected behaviour) of a result's turn-0 behaviour; None when not applicable.

    From the ``behavior`` score when the scorer made one: a skipped score (``passed: None``,
    e.g. ``recover`` when no tool failed) stays skipped — neither a pass nor a failure — and is
    never re-judged from the classified label. Without a score, the expected behaviour is
    compared with what the agent did in turn 0 (a multi-turn result's ``calls`` and
    ``behavior`` cover later turns too).
    """
    s = case_score(r.scores, "behavior")
    expected = r.expected_behavior or (s.expected if s else None)
    if s is not None:
        return s.passed, expected
    if r.expected_behavior is None or r.behavior is None:
        return None
    if r.expected_behavior == "recover":
        # only the scorer can judge a recovery; without its score there is nothing to count
        return None, expected
    called, behavior = bool(r.calls), r.behavior
    first = first_turn_observation(r)
    if first is not None:
        called, behavior = first[0], first[1] or r.behavior
    return behavior_ok(r.expected_behavior, behavior, called), expected


def behavior_ok(expected: str, actual: str, called: bool) -> bool:
    if expected == "no_tool":
        return not called
    if expected == "any_tool":
        return called
    return expected == actual


def saw(seen: dict[str, list[int]] | None, metric: str, ok: bool) -> None:
    """Record one verdict of ``metric`` in ``seen`` (``[successes, verdicts]``) when a
    comparison is collecting the verdicts of the result being added (``seen`` not None)."""
    if seen is not None:
        counts = seen.get(metric)
        if counts is None:
            seen[metric] = [int(ok), 1]
        else:
            counts[0] += ok
            counts[1] += 1
