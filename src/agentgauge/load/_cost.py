"""The cost a load run expects, from the price table (``runner.PRICES``) or ``--price``:
sessions expected × tokens per session × price. Before the run the tokens are guessed from the
size of the cases (4 characters a token, 100 output tokens a model call); after the baseline
they are the mean of the baseline's sessions that reported usage (none did: the guess again;
a session without usage is not a session of 0 tokens)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import orjson

from ..schema import Case
from ._model import CostEstimate
from ._plan import LoadPlan
from ._stats import Sample

__all__ = ["estimate_cost", "prompt_tokens"]

#: output tokens a model call is assumed to write, before the baseline measured it
_OUTPUT_GUESS = 100
#: seconds a session is assumed to take (closed loop) when no baseline measured it
_SESSION_GUESS_S = 1.0


def prompt_tokens(case: Case) -> float:
    """A rough token count of one session of ``case``: its text and tools (4 characters a
    token) sent at each expected model call, plus a guessed output per call."""
    text = orjson.dumps(case.model_dump(mode="json", include={"input", "turns", "system"}))
    calls = 1 + len(case.expect.tool_calls) + len(case.turns)
    return (len(text) / 4 + 400) * calls + _OUTPUT_GUESS * calls


def _expected_sessions(plan: LoadPlan, session_s: float) -> float:
    if not math.isfinite(plan.duration_s):
        return float(plan.sessions)
    offered = plan.offered()
    if plan.mode == "closed":
        think = sum(plan.think) / 2
        offered = offered / max(1e-3, session_s + think)
    return min(float(plan.sessions), offered)


def estimate_cost(
    plan: LoadPlan,
    cases: Sequence[Case],
    baseline: Sequence[Sample],
    *,
    model: str,
    price: tuple[float, float] | None,
) -> CostEstimate:
    """The estimate printed before the load starts (``baseline`` empty: from the cases)."""
    known = [s for s in baseline if s.result.usage_recorded]  # no usage is not 0 tokens
    if known:
        tokens_in = sum(s.result.input_tokens for s in known) / len(known)
        tokens_out = sum(s.result.output_tokens for s in known) / len(known)
        session_s = sum(s.result.latency_ms for s in baseline) / len(baseline) / 1000
        source = "baseline"
    else:
        sample = cases[:200]
        per = [prompt_tokens(c) for c in sample] or [0.0]
        calls = [1 + len(c.expect.tool_calls) + len(c.turns) for c in sample] or [1]
        tokens_out = _OUTPUT_GUESS * sum(calls) / len(calls)
        tokens_in = sum(per) / len(per) - tokens_out
        session_s = _SESSION_GUESS_S
        source = "prompt size"
        if baseline:
            session_s = sum(s.result.latency_ms for s in baseline) / len(baseline) / 1000
            source = "prompt size: the baseline reported no token usage"
    expected = _expected_sessions(plan, session_s)
    per_session = None
    if price is not None:
        per_session = (tokens_in * price[0] + tokens_out * price[1]) / 1e6
    return CostEstimate(
        model=model,
        price=price,
        tokens_per_session=tokens_in + tokens_out,
        tokens_from=source,
        expected_sessions=expected,
        max_sessions=plan.sessions,
        usd=per_session * expected if per_session is not None else None,
        max_usd=per_session * plan.sessions if per_session is not None else None,
    )
