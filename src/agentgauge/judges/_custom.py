"""Checks of one's own: ``scorer: python:checks.py:function`` in a suite's ``scorers:``.

The one signature::

    def polite(ctx: ScorerContext) -> ScoreResult | None: ...   # or async def

``ctx`` holds everything about the case and its transcript (:class:`ScorerContext`); the
function returns a :class:`ScoreResult` (a value in 0..1, pass/fail/None and an explanation
a person can act on), or None when the check does not apply to the case (no score).

From a suite the file must be a ``.py`` file inside the suite's folder and runs only with
``--allow-suite-code`` (the suite-code policy of :mod:`agentgauge._suite_code`; ``validate``
checks the file and the function by reading it, never importing it). A module by name
(``python:mypkg.checks:polite``) is accepted only when the user names it in Python
(:func:`~agentgauge.judges.build_scorers` called by the user), never from a suite.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._suite_code import import_suite_file, resolve_attr
from ..errors import ScorerError, UserError
from ..schema import (
    PYTHON_PREFIX,
    Case,
    CaseResult,
    JsonValue,
    Message,
    Score,
    ToolCall,
    TraceEvent,
)
from ..scoring import Check, agent_calls, final_text, question, tool_messages


@dataclass(frozen=True, kw_only=True)
class ScorerContext:
    """Everything a scorer of one's own may read about one case and the agent's transcript."""

    #: the case as the suite wrote it (``case.id``, ``case.tags``, ``case.expect`` ...)
    case: Case
    #: the result so far: the deterministic verdict (``status``, ``scores``) and the run's data
    result: CaseResult
    #: the agent's messages per user turn (``turns[0]`` answers the input, ``turns[i]`` the
    #: i-th scripted turn): assistant messages and the tool results they received, in order
    turns: Sequence[Sequence[Message]]
    #: every message of the transcript, in order (``result.messages``: system and user too)
    messages: Sequence[Message]
    #: the agent's final text reply ('' when it gave none)
    reply: str
    #: the user message the final reply answers
    question: str
    #: every tool call the agent made, in order
    calls: Sequence[ToolCall]
    #: every tool result the agent received (``role == "tool"`` messages), in order
    tool_results: Sequence[Message]
    #: the expected answer (``expect.reference`` of the last turn, else of the case)
    reference: str | None
    #: the run's trace events of this case (model calls, tool calls, timings)
    trace: Sequence[TraceEvent]
    #: ``case.metadata``
    metadata: Mapping[str, JsonValue]
    #: the ``args:`` of this ``scorers:`` entry
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class ScoreResult:
    """What a scorer of one's own returns: ``passed`` (None: neither, e.g. not judged), an
    ``explanation`` a person can act on, and ``value`` in 0..1 (default 1 when passed, else 0).
    """

    passed: bool | None
    explanation: str
    value: float | None = None


def _context(
    case: Case, result: CaseResult, turns: Sequence[Sequence[Message]], args: Mapping[str, Any]
) -> ScorerContext:
    last = case.turns[-1].expect if case.turns and case.turns[-1].expect else None
    reference = (last.reference if last is not None else None) or case.expect.reference
    messages = result.messages or [m for turn in turns for m in turn]
    return ScorerContext(
        case=case,
        result=result,
        turns=turns,
        messages=messages,
        reply=final_text(result, turns),
        question=question(case),
        calls=agent_calls(turns),
        tool_results=tool_messages(turns),
        reference=reference,
        trace=result.trace,
        metadata=case.metadata,
        args=args,
    )


def load_scorer_function(spec: str) -> Any:
    """The function ``spec`` names (``python:/abs/checks.py:fn`` once the suite-code policy
    made it absolute, ``python:checks.py:fn`` relative to the current folder, or a module the
    user named), checked to take one argument. Raises a one-line UserError."""
    where, _, attr = spec.removeprefix(PYTHON_PREFIX).rpartition(":")
    label = f"scorer '{spec}'"
    if where.endswith(".py") or "/" in where or "\\" in where:
        path = Path(where)
        if not path.is_file():
            raise UserError(f"{label}: no file {where}")
        module = import_suite_file(path)
    else:
        try:
            module = importlib.import_module(where)
        except ImportError as exc:
            raise UserError(f"{label}: cannot import {where}: {exc}") from None
    fn = resolve_attr(module, attr, label)
    if not callable(fn):
        raise UserError(f"{label}: '{attr}' is {type(fn).__name__}, not a function")
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn
    params = list(sig.parameters.values())
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    variadic = any(p.kind is p.VAR_POSITIONAL for p in params)
    required_other = [
        p
        for p in params
        if p.default is p.empty
        and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        and (not positional or p is not positional[0])
    ]
    if (not positional and not variadic) or required_other:
        raise UserError(
            f"{label}: {attr}{sig} must take exactly one argument, the ScorerContext "
            f"(def {attr}(ctx): ...)"
        )
    return fn


class PythonScorer(Check):
    """A scorer of one's own: calls the function with a :class:`ScorerContext` and turns its
    :class:`ScoreResult` into a score named after the function."""

    def __init__(
        self, spec: str, *, args: Mapping[str, Any] | None = None, cases: Sequence[str] = ()
    ) -> None:
        super().__init__(cases=cases)
        self.spec = spec
        self.fn = load_scorer_function(spec)
        self.name = spec.rpartition(":")[2]
        self.args = dict(args or {})

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        out = self.fn(_context(case, result, turns, self.args))
        if inspect.isawaitable(out):
            out = await out
        if out is None:
            return []
        if not isinstance(out, ScoreResult):
            raise ScorerError(
                f"{self.name} returned {type(out).__name__}; a scorer returns "
                "ScoreResult(passed=..., explanation=...) or None"
            )
        if not isinstance(out.explanation, str) or not out.explanation.strip():
            raise ScorerError(f"{self.name}: ScoreResult needs an explanation")
        value = out.value if out.value is not None else (1.0 if out.passed else 0.0)
        if not 0 <= value <= 1:
            raise ScorerError(f"{self.name}: ScoreResult value {value} is outside 0..1")
        return [
            Score(
                name=self.name, value=float(value), passed=out.passed, explanation=out.explanation
            )
        ]


__all__ = ["PythonScorer", "ScoreResult", "ScorerContext", "load_scorer_function"]
