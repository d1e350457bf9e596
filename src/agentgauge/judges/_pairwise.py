"""Pairwise comparison of two runs by a judge, with both orders presented.

For each case both runs share (all of them, or only those whose verdict changed; at most
``limit``), the judge reads the case's question, what the case expects, and the two final
replies, each with the tool results its own run received (so it can tell which reply is
supported by what the tools returned), and answers which is better (task ``pairwise``: ``a``,
``b`` or ``tie``). It is asked twice, once with the base run's reply as A and once with it as
B. A case is a win (or a loss) only when both orders prefer the same reply; when both answers
name the same *position* the verdict followed the position, not the content: the case is a tie,
counted as position-biased.

The figures: wins / ties / losses of the new run, an exact two-sided sign test over the
decisive cases, a Wilson interval of the new run's share of them, the position-bias rate (the
share of judged cases whose two answers named the same position) and the judge errors. A judge
error on one case is recorded on that case and never stops the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

import orjson
from pydantic import Field

from .._factories import new_list
from ..errors import JudgeError, UserError
from ..rundir import iter_light_results, iter_results
from ..schema import CaseResult, Model
from ..scoring import tool_results_text
from ._judge import Judge, JudgeConfig
from ._progress import ProgressFactory

Scope = Literal["all", "changed"]
#: what the judge's two answers mean for the new run against the base run
Outcome = Literal["win", "loss", "tie", "position_biased", "inconsistent", "error"]

#: how much of each reply and reason the record keeps (the judge reads the whole reply)
PREVIEW_CHARS = 200
REASON_CHARS = 300


@dataclass(frozen=True, kw_only=True)
class PairwiseConfig:
    """How to judge two runs against each other."""

    judge: JudgeConfig
    #: ``all`` cases both runs share, or only those whose verdict ``changed`` (fixed or broken)
    scope: Scope = "all"
    #: at most this many cases are judged (changed cases first, then by case id)
    limit: int = 100
    #: judge calls in flight at once
    concurrency: int = 4
    confidence: float = 0.95

    def __post_init__(self) -> None:
        if self.limit < 1:
            raise ValueError("PairwiseConfig.limit must be at least 1")
        if self.concurrency < 1:
            raise ValueError("PairwiseConfig.concurrency must be at least 1")


class PairwiseCase(Model):
    """The judge's two answers on one case, and what they mean for the new run."""

    case_id: str
    outcome: Outcome
    #: the verdict (``a`` / ``b`` / ``tie``) with the base run's reply as A, then as B
    base_first: str | None = None
    new_first: str | None = None
    #: whether the case passed (every trial) in each run
    base_passed: bool = False
    new_passed: bool = False
    reason: str = ""
    base_reply: str = ""
    new_reply: str = ""
    error: str | None = None


class PairwiseComparison(Model):
    """The new run against the base run, case by case, as a judge sees it."""

    version: int = 1
    judge: str
    base_run: str
    new_run: str
    scope: Scope = "all"
    #: cases both runs share / of those in scope / judged (the rest beyond the limit)
    shared: int = 0
    in_scope: int = 0
    judged: int = 0
    wins: int = 0
    losses: int = 0
    #: every tie: the judge's own ties, position-biased and inconsistent answers
    ties: int = 0
    position_biased: int = 0
    inconsistent: int = 0
    errors: int = 0
    #: position-biased cases that favoured the first position (A) / the second (B)
    favoured_first: int = 0
    favoured_second: int = 0
    #: position-biased / judged cases without a judge error
    position_bias_rate: float | None = None
    #: exact two-sided sign test, wins against losses (ties left out)
    p_value: float = 1.0
    #: the new run's share of the decisive cases, with a Wilson interval
    win_share: float | None = None
    low: float | None = None
    high: float | None = None
    confidence: float = 0.95
    provider_calls: int = 0
    cache_hits: int = 0
    cases: list[PairwiseCase] = Field(default_factory=new_list)


@dataclass(slots=True)
class _Side:
    passed: bool
    question: str = ""
    reply: str = ""
    expected: str = ""
    #: the tool results of this run's conversation, ``name: content`` lines
    tool_results: str = ""


def reply_text(r: CaseResult) -> str:
    """The agent's final reply: its text, else the last assistant message, else its tool calls
    written ``name({...})``; ``(no reply)`` when there is none."""
    text = r.text or next(
        (m.content for m in reversed(r.messages) if m.role == "assistant" and m.content), ""
    )
    if text and text.strip():
        return text
    if r.calls:
        calls = ", ".join(f"{c.name}({orjson.dumps(c.arguments).decode()})" for c in r.calls)
        return f"(tool calls) {calls}"
    return "(no reply)"


def _question(r: CaseResult) -> str:
    return next((m.content for m in r.messages if m.role == "user" and m.content), "")


def _expected(r: CaseResult) -> str:
    parts = []
    if r.expected_behavior:
        parts.append(f"expected behaviour: {r.expected_behavior}")
    if r.expected_tools:
        parts.append(f"expected tool calls: {', '.join(r.expected_tools)}")
    return "; ".join(parts)


def _verdicts(run_dir: Path) -> dict[str, bool]:
    """Case id -> passed in every trial (light read: no messages kept)."""
    out: dict[str, bool] = {}
    for r in iter_light_results(run_dir):
        out[r.case_id] = out.get(r.case_id, True) and r.status == "passed"
    return out


def _sides(run_dir: Path, wanted: set[str], verdicts: dict[str, bool]) -> dict[str, _Side]:
    """The first trial's question, reply and expectation of each wanted case."""
    out: dict[str, _Side] = {}
    for r in iter_results(run_dir):
        if r.case_id in wanted and r.case_id not in out:
            out[r.case_id] = _Side(
                passed=verdicts[r.case_id],
                question=_question(r),
                reply=reply_text(r),
                expected=_expected(r),
                tool_results=tool_results_text([r.messages]),
            )
    return out


def select_cases(
    base: dict[str, bool], new: dict[str, bool], scope: Scope, limit: int
) -> tuple[list[str], int, int]:
    """(the case ids to judge, cases shared, cases in scope): changed cases first, then the
    rest, each by id, at most ``limit``."""
    shared = sorted(set(base) & set(new))
    changed = [c for c in shared if base[c] != new[c]]
    pool = changed if scope == "changed" else changed + [c for c in shared if base[c] == new[c]]
    return pool[:limit], len(shared), len(pool)


def outcome_of(base_first: str, new_first: str) -> Outcome:
    """What the two answers mean for the new run. ``base_first`` is the verdict with the base
    reply as A, ``new_first`` with the new reply as A."""
    if base_first == "b" and new_first == "a":
        return "win"
    if base_first == "a" and new_first == "b":
        return "loss"
    if base_first == new_first == "tie":
        return "tie"
    if base_first == new_first:
        return "position_biased"
    return "inconsistent"


def sign_test(wins: int, losses: int) -> float:
    """Exact two-sided binomial sign test of ``wins`` against ``losses`` (p = 1/2)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail: float = sum(math.comb(n, i) for i in range(k + 1)) / float(2**n)
    return min(1.0, 2 * tail)


def wilson(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion; None when ``n`` is 0."""
    if n == 0:
        return None
    from statistics import NormalDist

    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _clip(text: str, n: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


async def judge_pair(judge: Judge, case_id: str, base: _Side, new: _Side) -> PairwiseCase:
    """Ask ``judge`` about one case in both orders."""
    question = base.question or new.question
    expected = base.expected or new.expected

    def inputs(a: _Side, b: _Side) -> dict[str, str]:
        return {
            "question": question,
            "reference": expected,
            "tool_results_a": a.tool_results,
            "reply_a": a.reply,
            "tool_results_b": b.tool_results,
            "reply_b": b.reply,
        }

    record = PairwiseCase(
        case_id=case_id,
        outcome="error",
        base_passed=base.passed,
        new_passed=new.passed,
        base_reply=_clip(base.reply, PREVIEW_CHARS),
        new_reply=_clip(new.reply, PREVIEW_CHARS),
    )
    try:
        first = await judge.evaluate("pairwise", inputs(base, new))
        second = await judge.evaluate("pairwise", inputs(new, base))
    except JudgeError as exc:
        return record.model_copy(update={"error": _clip(str(exc), REASON_CHARS)})
    assert first.verdict is not None
    assert second.verdict is not None
    outcome = outcome_of(first.verdict, second.verdict)
    reason = f"base as A: {first.reasoning} | new as A: {second.reasoning}"
    return record.model_copy(
        update={
            "outcome": outcome,
            "base_first": first.verdict,
            "new_first": second.verdict,
            "reason": _clip(reason, REASON_CHARS),
        }
    )


def summarize_pairs(
    cases: list[PairwiseCase], *, judge: str, base_run: str, new_run: str, confidence: float
) -> PairwiseComparison:
    """The counts, the sign test, the interval and the position-bias rate of judged cases."""
    count = {o: sum(c.outcome == o for c in cases) for o in get_args(Outcome)}
    biased = [c for c in cases if c.outcome == "position_biased"]
    answered = len(cases) - count["error"]
    decisive = count["win"] + count["loss"]
    interval = wilson(count["win"], decisive, confidence)
    return PairwiseComparison(
        judge=judge,
        base_run=base_run,
        new_run=new_run,
        judged=len(cases),
        wins=count["win"],
        losses=count["loss"],
        ties=count["tie"] + count["position_biased"] + count["inconsistent"],
        position_biased=len(biased),
        inconsistent=count["inconsistent"],
        errors=count["error"],
        favoured_first=sum(c.base_first == "a" for c in biased),
        favoured_second=sum(c.base_first == "b" for c in biased),
        position_bias_rate=len(biased) / answered if answered else None,
        p_value=sign_test(count["win"], count["loss"]),
        win_share=count["win"] / decisive if decisive else None,
        low=interval[0] if interval else None,
        high=interval[1] if interval else None,
        confidence=confidence,
        cases=cases,
    )


async def compare_runs_pairwise(
    judge: Judge,
    base_run: Path,
    new_run: Path,
    config: PairwiseConfig,
    progress: ProgressFactory | None = None,
) -> PairwiseComparison:
    """Judge the new run's replies against the base run's (see the module docstring);
    ``progress`` is told how many cases will be judged and each one judged."""
    import anyio

    base_v, new_v = _verdicts(Path(base_run)), _verdicts(Path(new_run))
    ids, shared, in_scope = select_cases(base_v, new_v, config.scope, config.limit)
    base = _sides(Path(base_run), set(ids), base_v)
    new = _sides(Path(new_run), set(ids), new_v)
    found: dict[str, PairwiseCase] = {}
    limiter = anyio.CapacityLimiter(config.concurrency)
    shown = progress(len(ids)) if progress is not None else None

    async def one(cid: str) -> None:
        async with limiter:
            found[cid] = await judge_pair(judge, cid, base[cid], new[cid])
        if shown is not None:
            shown.advance("error" if found[cid].error else "ok")

    try:
        async with anyio.create_task_group() as tg:
            for cid in ids:
                tg.start_soon(one, cid)
    finally:
        if shown is not None:
            shown.close()
    result = summarize_pairs(
        [found[c] for c in ids],
        judge=judge.name,
        base_run=str(base_run),
        new_run=str(new_run),
        confidence=config.confidence,
    )
    return result.model_copy(
        update={
            "scope": config.scope,
            "shared": shared,
            "in_scope": in_scope,
            "provider_calls": judge.provider_calls,
            "cache_hits": judge.cache_hits,
        }
    )


def compare_pairwise(
    base_run: Path,
    new_run: Path,
    config: PairwiseConfig,
    progress: ProgressFactory | None = None,
) -> PairwiseComparison:
    """Build the judge of ``config`` and judge the two runs (what ``compare --judge`` calls);
    ``progress``: as :func:`compare_runs_pairwise`."""
    import anyio

    for run in (base_run, new_run):
        if not Path(run).is_dir():
            raise UserError(f"{run}: not a run directory")
    judge = Judge.from_config(config.judge)

    async def measure() -> PairwiseComparison:
        try:
            return await compare_runs_pairwise(judge, base_run, new_run, config, progress)
        finally:
            await judge.aclose()

    return anyio.run(measure)


__all__ = [
    "PairwiseCase",
    "PairwiseComparison",
    "PairwiseConfig",
    "compare_pairwise",
    "compare_runs_pairwise",
    "judge_pair",
    "outcome_of",
    "reply_text",
    "select_cases",
    "sign_test",
    "summarize_pairs",
    "wilson",
]
