"""Scorers built on the judge. Each fits ``RunConfig.extra_scorers``:
``async score(case, result, turns) -> list[Score]``.

A judge failure never becomes a pass or a fail: the scorer returns a score with ``passed=None``
and an explanation starting ``judge error:``; the runner records the case as ``error``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from ..errors import JudgeError
from ..schema import ArgMatcher, Case, CaseResult, Message, Score, ToolSpec
from ..scoring import (
    Check,
    agent_calls,
    final_text,
    judge_error_score,
    question,
    record_judge_error,
    tool_results_text,
)
from ._judge import Judge, JudgeResult, collect_results, mark_agreement
from ._transcript import offered_tools, tools_text

#: expected behaviour -> the equivalence task that compares replies of that kind
EQUIVALENCE_TASK = {
    "answer": "equivalence_answer",
    "no_tool": "equivalence_answer",
    "clarify": "equivalence_clarify",
    "refuse": "equivalence_not_supported",
    "recover": "equivalence_error_handling",
}

#: judge ``behavior`` labels -> agentgauge behaviours
BEHAVIOR_LABELS = {
    "direct": "answer",
    "tool_call": "tool_call",
    "request_for_info": "clarify",
    "cannot_answer": "refuse",
}


def _scale(score: int) -> float:
    """1..5 -> 0..1."""
    return (score - 1) / 4


def _votes(r: JudgeResult) -> str:
    extra = f"; votes {', '.join(r.votes)}" if len(r.votes) > 1 else ""
    if r.sample_errors:
        extra += f"; {len(r.sample_errors)} sample(s) failed"
    if r.samples > 1:
        agreeing = round(r.agreement * r.samples)
        extra += f"; agreement {agreeing}/{r.samples}"
        if r.uncertain:
            extra += f" < {r.threshold:.2g}: uncertain"
    return f" [{r.template}{extra}]"


def _show(value: Any) -> str:
    return orjson.dumps(value).decode()


def _dump(value: Any) -> str:
    return value if isinstance(value, str) else orjson.dumps(value).decode()


class JudgeScorer(Check):
    """Base of the judge scorers: runs ``_score`` and turns a :class:`JudgeError` into a
    judge-error score. ``cases`` restricts it to cases whose id, category or tag matches."""

    name = "judge"

    def __init__(self, judge: Judge, *, cases: Sequence[str] = ()) -> None:
        super().__init__(cases=cases)
        self.judge = judge

    async def score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        try:
            with collect_results() as seen:
                scores = await super().score(case, result, turns)
            return mark_agreement(scores, seen)
        except JudgeError as exc:
            score = judge_error_score(self.name, str(exc))
            record_judge_error(result, score)
            return [score]

    async def aclose(self) -> None:
        """Release the judge's provider (the runner calls this once, after the run)."""
        await self.judge.aclose()


class RubricScorer(JudgeScorer):
    """A 1–5 rubric task (``response_quality``, ``relevance``, ``coherence``, ``fluency``).

    ``value`` is the score mapped to 0..1; it passes at ``min_score`` (default 4) or above.
    """

    def __init__(
        self, judge: Judge, task: str, *, min_score: int = 4, cases: Sequence[str] = ()
    ) -> None:
        super().__init__(judge, cases=cases)
        self.task = task
        self.name = f"judge.{task}"
        self.min_score = min_score

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        reply = final_text(result, turns)
        if not reply.strip():
            return [Score(name=self.name, value=0.0, passed=None, explanation="no text reply")]
        r = await self.judge.evaluate(
            self.task,
            {
                "question": question(case),
                "tool_results": tool_results_text(turns),
                "agent_output": reply,
            },
        )
        assert r.score is not None
        return [
            Score(
                name=self.name,
                value=_scale(r.score),
                passed=r.score >= self.min_score,
                explanation=f"{r.score}/5 (pass at {self.min_score}): {r.reasoning}{_votes(r)}",
                actual=str(r.score),
            )
        ]


class GroundednessScorer(JudgeScorer):
    """Atomic claims of the reply checked against ``case.context`` and the tool results.

    ``value`` = supported / total claims; the 1–5 score is ``1 + 4 * value`` rounded; passes at
    ``min_score`` (default 4, i.e. at least 7 claims in 8 supported). Unsupported claims are
    listed in the explanation and as ``parts``. A reply that makes no factual claim is skipped
    (``passed: None``): it is neither grounded nor ungrounded.
    """

    name = "judge.groundedness"

    def __init__(self, judge: Judge, *, min_score: int = 4, cases: Sequence[str] = ()) -> None:
        super().__init__(judge, cases=cases)
        self.min_score = min_score

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        reply = final_text(result, turns)
        if not reply.strip():
            return [Score(name=self.name, value=0.0, passed=None, explanation="no text reply")]
        material = tool_results_text(turns)
        if not case.context and not material:
            return [
                Score(
                    name=self.name,
                    value=0.0,
                    passed=None,
                    explanation="no context or tool results to check the reply against",
                )
            ]
        r = await self.judge.evaluate(
            "groundedness",
            {
                "context": "\n\n".join(case.context),
                "tool_results": material,
                "agent_output": reply,
            },
        )
        if not r.claims:
            # nothing to check is not "fully grounded": a reply of "yes" or "None" would score
            # 5/5 and carry a groundedness gate; whether it answers is relevance's question
            return [
                Score(
                    name=self.name,
                    value=0.0,
                    passed=None,
                    explanation="no factual claims in the reply: groundedness not judged "
                    f"(see relevance / the expectation for whether it answers){_votes(r)}",
                )
            ]
        fraction = r.supported_fraction if r.supported_fraction is not None else 1.0
        five = round(1 + 4 * fraction)
        bad = [c for c in r.claims if not c.supported]
        if bad:
            text = f"unsupported: {'; '.join(repr(c.claim) for c in bad)}"
        else:
            text = "every claim is supported"
        parts = [
            Score(
                name=f"claim[{i}]",
                value=float(c.supported),
                passed=c.supported,
                explanation=c.claim + (f" (evidence: {c.evidence})" if c.evidence else ""),
            )
            for i, c in enumerate(r.claims)
        ]
        supported = len(r.claims) - len(bad)
        return [
            Score(
                name=self.name,
                value=fraction,
                passed=five >= self.min_score,
                explanation=f"{five}/5, {supported} of {len(r.claims)} claims supported; "
                f"{text}{_votes(r)}",
                actual=str(five),
                parts=parts,
            )
        ]


class EquivalenceScorer(JudgeScorer):
    """Semantic equivalence as the fallback when the exact match failed.

    For an expected tool call, every argument whose value differs from the expected one
    ("NYC" vs "New York") is put to the ``equivalence_arguments`` task. For an answer, a
    clarifying question, a refusal or an error recovery, the reply is compared with
    ``expect.reference`` by the matching equivalence task.

    It runs only when the deterministic verdict failed (``always=True``: on every case). With
    ``override=True`` (default), a case whose only failed scores are the ones the judge settles
    (``arguments`` for tool calls; ``behavior``/``response_contains`` for replies) and that the
    judge finds equivalent is turned into a pass, and the explanation says so.
    """

    name = "judge.equivalence"

    def __init__(
        self,
        judge: Judge,
        *,
        always: bool = False,
        override: bool = True,
        cases: Sequence[str] = (),
    ) -> None:
        super().__init__(judge, cases=cases)
        self.always = always
        self.override = override

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        if result.status != "failed" and not self.always:
            return []
        expect = case.turns[-1].expect if case.turns and case.turns[-1].expect else case.expect
        if expect.tool_calls:
            score = await self._arguments(case, expect.tool_calls, turns)
            settles: tuple[str, ...] = ("arguments",)
        elif expect.behavior in EQUIVALENCE_TASK and expect.reference:
            score = await self._reply(
                case, result, turns, EQUIVALENCE_TASK[expect.behavior], expect.reference
            )
            settles = ("behavior", "response_contains", "answer")
        else:
            return []
        if score is None:
            return []
        if self.override and score.passed and result.status == "failed":
            failing = [s for s in result.scores if s.passed is False]
            if failing and all(s.name.rsplit(".", 1)[-1] in settles for s in failing):
                result.status = "passed"
                result.score = max(result.score, score.value)
                note = f"passed on semantic equivalence ({self.name}): {score.explanation}"
                result.explanation = note
        return [score]

    async def _reply(
        self,
        case: Case,
        result: CaseResult,
        turns: Sequence[Sequence[Message]],
        task: str,
        reference: str,
    ) -> Score:
        r = await self.judge.evaluate(
            task,
            {
                "question": question(case),
                "reference": reference,
                "tool_results": tool_results_text(turns),
                "agent_output": final_text(result, turns),
            },
        )
        return Score(
            name=self.name,
            value=1.0 if r.passed else 0.0,
            passed=r.passed,
            explanation=f"{r.verdict}: {r.reasoning}{_votes(r)}",
            expected="equivalent",
            actual=r.verdict,
        )

    async def _arguments(
        self, case: Case, expected: Sequence[Any], turns: Sequence[Sequence[Message]]
    ) -> Score | None:
        calls = agent_calls(turns)
        parts: list[Score] = []
        for exp in expected:
            made = [c for c in calls if c.name == exp.name]
            if not made:
                continue
            call = made[0]
            for arg, matcher in exp.arguments.items():
                want = _expected_value(matcher)
                if want is None or arg not in call.arguments:
                    continue
                got = call.arguments[arg]
                if got == want or (
                    isinstance(got, str)
                    and isinstance(want, str)
                    and got.strip().lower() == want.strip().lower()
                ):
                    continue
                r = await self.judge.evaluate(
                    "equivalence_arguments",
                    {
                        "question": question(case),
                        "tool_call": f"{call.name}({_dump(call.arguments)})",
                        "argument": arg,
                        "expected": _dump(want),
                        "actual": _dump(got),
                    },
                )
                parts.append(
                    Score(
                        name=f"{exp.name}.{arg}",
                        value=1.0 if r.passed else 0.0,
                        passed=r.passed,
                        explanation=f"{_show(got)} vs expected {_show(want)}: {r.verdict} "
                        f"({r.reasoning}){_votes(r)}",
                        expected=_dump(want),
                        actual=_dump(got),
                    )
                )
        if not parts:
            return None
        bad = [p for p in parts if not p.passed]
        return Score(
            name=self.name,
            value=1 - len(bad) / len(parts),
            passed=not bad,
            explanation="; ".join(p.explanation for p in (bad or parts)),
            parts=parts,
        )


def _expected_value(matcher: ArgMatcher) -> Any:
    """The value an argument is expected to have, when there is one to compare meanings with."""
    if matcher.value is not None:
        return matcher.value
    if matcher.one_of:
        return matcher.one_of[0]
    return None


class BehaviorJudgeScorer(JudgeScorer):
    """Classifies the reply with the ``behavior`` task and compares it with the expected one.

    The judge is shown the tools the case offered (name and first line of the description):
    ``tools`` are the suite's tools, resolved per case as the runner does (the case's own list,
    else every suite tool). Without them, only tools the case defines or names are shown.
    """

    name = "judge.behavior"

    def __init__(
        self,
        judge: Judge,
        *,
        tools: Sequence[ToolSpec] | None = None,
        cases: Sequence[str] = (),
    ) -> None:
        super().__init__(judge, cases=cases)
        self.tools = tuple(tools) if tools is not None else None

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        expect = case.turns[-1].expect if case.turns and case.turns[-1].expect else case.expect
        calls = agent_calls(turns)
        reply = final_text(result, turns)
        if calls and not reply:
            reply = "\n".join(orjson.dumps(c.model_dump(exclude={"id"})).decode() for c in calls)
        offered = tools_text(offered_tools(case, self.tools))
        r = await self.judge.evaluate(
            "behavior", {"question": question(case), "tools": offered, "agent_output": reply}
        )
        actual = BEHAVIOR_LABELS.get(r.verdict or "", r.verdict or "")
        wanted = expect.behavior
        if wanted in (None, "any_tool"):
            wanted = "tool_call" if expect.behavior == "any_tool" else None
        passed = (
            None
            if wanted is None
            else (actual != "tool_call" if wanted == "no_tool" else actual == wanted)
        )
        return [
            Score(
                name=self.name,
                value=1.0 if passed else 0.0,
                passed=passed,
                explanation=f"judge classifies the reply as {actual}: {r.reasoning}{_votes(r)}",
                expected=wanted,
                actual=actual,
            )
        ]


__all__ = [
    "BEHAVIOR_LABELS",
    "EQUIVALENCE_TASK",
    "BehaviorJudgeScorer",
    "EquivalenceScorer",
    "GroundednessScorer",
    "JudgeScorer",
    "RubricScorer",
]
