"""The ``bfcl`` mode on a multi-turn BFCL case: BFCL's multi-turn checker
(:func:`agentgauge.worlds.check_bfcl_multi_turn`) on the agent's calls, turn by turn and step by
step (each assistant message with calls is one step, as each model response is in BFCL).

In a live run, a turn that ended with calls still pending an answer from the model reached its
step limit: BFCL's generator force-quits the entry there, so the later turns are not scored
(and the entry is ``multi_turn:force_terminated`` unless it was the last turn, as in BFCL).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..schema import Case, Message, Score
from ..worlds import (
    BFCL_NOT_A_LIST,
    BfclMultiTurnVerdict,
    bfcl_call_string,
    check_bfcl_multi_turn,
)
from ._case_score import CaseScore

__all__ = ["bfcl_case_score", "is_bfcl_multi_turn", "score_bfcl_multi_turn"]


def is_bfcl_multi_turn(case: Case) -> bool:
    """Whether ``case`` is an imported BFCL multi-turn entry."""
    category = case.metadata.get("bfcl_category")
    return isinstance(category, str) and "multi_turn" in category


def model_steps(turns: Sequence[Sequence[Message]]) -> list[list[list[str]]]:
    """Per turn, each step's execution strings; cut after a turn that hit its step limit."""
    out: list[list[list[str]]] = []
    for turn in turns:
        steps = [
            [bfcl_call_string(c) for c in m.tool_calls]
            for m in turn
            if m.role == "assistant" and m.tool_calls
        ]
        out.append(steps)
        assistant = [m for m in turn if m.role == "assistant"]
        answered = any(m.role == "tool" for m in turn)  # a live run (recorded files have none)
        if answered and assistant and assistant[-1].tool_calls:
            break
    return out


def score_bfcl_multi_turn(case: Case, turns: Sequence[Sequence[Message]]) -> CaseScore:
    """BFCL's verdict on ``case`` (an imported multi-turn entry) for the agent's ``turns``."""
    truth: Any = case.metadata.get("bfcl_ground_truth")
    state = case.world.state if case.world is not None and case.world.state else {}
    not_a_list = any(m.name == BFCL_NOT_A_LIST for turn in turns for m in turn)
    steps: Any = None if not_a_list else model_steps(turns)
    involved: Any = state.get("involved_classes", [])
    config: Any = state.get("initial_config", {})
    verdict: BfclMultiTurnVerdict = check_bfcl_multi_turn(
        steps,
        truth,
        involved_classes=involved,
        initial_config=config,
        long_context=bool(state.get("long_context", False)),
    )
    explanation = verdict.explanation()
    calls = [c for turn in turns for m in turn if m.role == "assistant" for c in m.tool_calls]
    return bfcl_case_score(
        verdict.valid,
        explanation,
        expected=f"{sum(len(t) for t in truth)} ground-truth call(s) over {len(truth)} turns",
        actual=f"{len(calls)} call(s) over {len(steps or [])} turns",
        behavior="tool_call" if calls else None,
    )


def bfcl_case_score(
    valid: bool, explanation: str, *, expected: str, actual: str, behavior: str | None
) -> CaseScore:
    """The case's score of one BFCL verdict (single- or multi-turn): one ``bfcl`` score, 1 or
    0, the explanation shown only when it failed."""
    score = Score.model_construct(
        name="bfcl",
        value=1.0 if valid else 0.0,
        passed=valid,
        explanation=explanation,
        expected=expected,
        actual=actual,
        parts=[],
    )
    return CaseScore(
        status="passed" if valid else "failed",
        score=score.value,
        scores=[score],
        explanation="" if valid else explanation,
        behavior=behavior,
    )
