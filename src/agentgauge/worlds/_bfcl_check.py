"""BFCL's multi-turn checker, rule for rule (``bfcl_eval/eval_checker/multi_turn_eval/
multi_turn_checker.py`` and the entry checks of ``eval_runner.py``), on BFCL's own back-ends.

The model's calls (per turn, per step, as BFCL's execution strings) run on one fresh set of
back-ends, the ground truth's on another, turn by turn. After each turn whose ground truth is
not empty:

1. the model must have made at least one call in it (``multi_turn:empty_turn_model_response``;
   a turn of one empty step, ``[[]]``, made none, as BFCL's ``is_empty_execute_response`` says);
2. every back-end instance must equal the ground truth's: each public attribute of the ground
   truth's instance compared with ``!=`` (``multi_turn:instance_state_mismatch``);
3. the ground truth's execution results of this turn must all be among the model's results of
   this and every earlier turn, as a multiset, in any order
   (``multi_turn:execution_response_mismatch``).

A turn whose ground truth is empty is not checked (its calls still run, so they count in the
next checked turn's state) — BFCL declares an irrelevance check for it but never calls it. A
result with another number of turns than the ground truth was force-terminated
(``multi_turn:force_terminated``); one that is not a list is ``multi_turn:inference_error``.
The first failure decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from ._bfcl_exec import BackendSet
from ._bfcl_world import _plain

__all__ = ["BfclMultiTurnVerdict", "check_bfcl_multi_turn", "entry_category"]

_MISSING: Final = object()


@dataclass(frozen=True, kw_only=True)
class BfclMultiTurnVerdict:
    """BFCL's verdict on one multi-turn entry."""

    valid: bool
    #: BFCL's error type (``multi_turn:instance_state_mismatch`` ...); None when valid
    error_type: str | None = None
    #: BFCL's error message
    message: str = ""
    #: the turn that failed (None: valid, or a failure of the whole entry)
    turn: int | None = None
    #: what differed, shortly (attributes and their values, missing results)
    details: list[str] = field(default_factory=list)

    def explanation(self) -> str:
        if self.valid:
            return "bfcl multi_turn: passed"
        lines = [f"{self.error_type}: {self.message}", *self.details]
        return "\n".join(lines)


def entry_category(entry_id: str) -> str:
    """BFCL's category of an entry id (``multi_turn_base_12`` -> ``multi_turn_base``)."""
    return entry_id.rsplit("_", 1)[0]


def _short(value: Any, limit: int = 300) -> str:
    text = orjson.dumps(_plain(value), default=str).decode()
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _state_check(model: BackendSet, truth: BackendSet, turn: int) -> BfclMultiTurnVerdict | None:
    for name, expected in truth.instances.items():
        actual = model.instances[name]
        details = []
        for attr, want in vars(expected).items():
            if attr.startswith("_"):
                continue
            got = getattr(actual, attr, _MISSING)
            if got is _MISSING or got != want:
                shown = "<absent>" if got is _MISSING else _short(got)
                details.append(f"{name}.{attr}: model {shown}, ground truth {_short(want)}")
        if details:
            return BfclMultiTurnVerdict(
                valid=False,
                error_type="multi_turn:instance_state_mismatch",
                message=f"Model instance for {name} does not match the state with ground truth "
                f"instance. (turn {turn})",
                turn=turn,
                details=details,
            )
    return None


def _missing(expected: Sequence[str], seen: Sequence[str]) -> list[str]:
    pool = list(seen)
    out = []
    for item in expected:
        try:
            pool.remove(item)
        except ValueError:
            out.append(item)
    return out


def _empty_response(steps: Sequence[Sequence[str]]) -> bool:
    """BFCL's ``is_empty_execute_response`` on a turn's steps: no step, or one empty step
    (``[[]]``; ``[[], [call]]`` is not empty)."""
    return len(steps) == 0 or (len(steps) == 1 and len(steps[0]) == 0)


def check_bfcl_multi_turn(
    model_turns: Any,
    ground_truth: Sequence[Sequence[str]],
    *,
    involved_classes: Sequence[str],
    initial_config: Mapping[str, Any],
    long_context: bool = False,
) -> BfclMultiTurnVerdict:
    """BFCL's verdict for ``model_turns`` (per turn, the decoded steps that made calls, each a
    list of execution strings) against ``ground_truth`` (per turn, its execution strings)."""
    if not isinstance(model_turns, list):
        return BfclMultiTurnVerdict(
            valid=False,
            error_type="multi_turn:inference_error",
            message="Error during inference phase. Model did not output a list of model responses.",
        )
    if len(model_turns) != len(ground_truth):
        return BfclMultiTurnVerdict(
            valid=False,
            error_type="multi_turn:force_terminated",
            message="Model was force-terminated during inference phase. The length of the model "
            f"result turns ({len(model_turns)}) does not match the length of the ground truth "
            f"turns ({len(ground_truth)}).",
        )
    model = BackendSet(involved_classes, initial_config, long_context=long_context)
    truth = BackendSet(involved_classes, initial_config, long_context=long_context)
    seen: list[str] = []
    for turn, (steps, expected_calls) in enumerate(zip(model_turns, ground_truth, strict=True)):
        for step in steps:
            seen.extend(model.execute(step))
        expected = truth.execute(expected_calls)
        if not expected_calls:
            continue
        if _empty_response(steps):
            return BfclMultiTurnVerdict(
                valid=False,
                error_type="multi_turn:empty_turn_model_response",
                message=f"Model response list is empty for turn {turn}",
                turn=turn,
            )
        failed = _state_check(model, truth, turn)
        if failed is not None:
            return failed
        missing = _missing(expected, seen)
        if missing:
            return BfclMultiTurnVerdict(
                valid=False,
                error_type="multi_turn:execution_response_mismatch",
                message="Model response execution results so far does not contain all the ground "
                f"truth response execution results for turn {turn}.",
                turn=turn,
                details=[f"missing: {_short(m)}" for m in missing],
            )
    return BfclMultiTurnVerdict(valid=True)
