"""Deterministic extra scorers (some with an optional judge): numeric grounding, similarity,
instruction following, task completion and safety. Same interface as the judge scorers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import orjson

from ..errors import JudgeError, MissingExtraError
from ..schema import Case, CaseResult, Message, ResponseFormat, Score
from ..scoring import (
    Check,
    agent_calls,
    final_expectation,
    final_text,
    judge_error_score,
    parse_result,
    question,
    record_judge_error,
    tool_messages,
    tool_results_text,
)
from ._judge import Judge, collect_results, mark_agreement


class _JudgedCheck(Check):
    judge: Judge | None = None

    async def score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        # the judge's agreement (``judge_samples > 1``) on the scores it decided
        with collect_results() as seen:
            scores = await super().score(case, result, turns)
        return mark_agreement(scores, seen)

    async def aclose(self) -> None:
        if self.judge is not None:
            await self.judge.aclose()


def check_format(reply: str, fmt: ResponseFormat) -> list[str]:
    """The format requirements ``reply`` breaks, one explanation each."""
    problems: list[str] = []
    if fmt.max_chars is not None and len(reply) > fmt.max_chars:
        problems.append(f"{len(reply)} characters, at most {fmt.max_chars} allowed")
    if fmt.max_words is not None and len(reply.split()) > fmt.max_words:
        problems.append(f"{len(reply.split())} words, at most {fmt.max_words} allowed")
    if fmt.regex is not None and re.fullmatch(fmt.regex, reply.strip(), re.DOTALL) is None:
        problems.append(f"does not match /{fmt.regex}/")
    if fmt.json_ or fmt.json_schema is not None:
        try:
            data = _parse_json_reply(reply)
        except ValueError as exc:
            problems.append(f"not valid JSON ({exc})")
            return problems
        if fmt.json_schema is not None:
            try:
                import jsonschema  # type: ignore[import-untyped,unused-ignore]
            except ImportError:
                raise MissingExtraError("jsonschema", "judges") from None
            errors = sorted(
                jsonschema.Draft202012Validator(fmt.json_schema).iter_errors(data),
                key=lambda e: list(e.path),
            )
            for err in errors[:3]:
                where = "/".join(str(p) for p in err.path) or "<root>"
                problems.append(f"JSON Schema: {where}: {err.message}")
    return problems


def _parse_json_reply(reply: str) -> Any:
    try:
        return orjson.loads(reply.strip())
    except orjson.JSONDecodeError:
        pass
    m = re.fullmatch(r"\s*```(?:json)?\s*(.*?)```\s*", reply, re.DOTALL)
    if m:
        try:
            return orjson.loads(m.group(1))
        except orjson.JSONDecodeError as exc:
            raise ValueError(str(exc)) from None
    raise ValueError("the reply is not a JSON document")


class InstructionFollowingScorer(Check):
    """The reply follows the required format: ``expect.response_format`` of the case, else the
    scorer's own arguments (``json``, ``json_schema``, ``regex``, ``max_chars``, ``max_words``)."""

    name = "instruction_following"

    def __init__(self, *, cases: Sequence[str] = (), **fmt: Any) -> None:
        super().__init__(cases=cases)
        self.default = ResponseFormat.model_validate(fmt) if fmt else None

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        fmt = final_expectation(case).response_format or self.default
        if fmt is None:
            return []
        problems = check_format(final_text(result, turns), fmt)
        return [
            Score(
                name=self.name,
                value=0.0 if problems else 1.0,
                passed=not problems,
                explanation="; ".join(problems) or "the reply follows the required format",
            )
        ]


class TaskCompletionScorer(_JudgedCheck):
    """Multi-step tasks: every required tool was called and succeeded (no error result), and
    the agent confirmed the outcome to the user.

    Required tools: ``required`` (argument), else the expected calls' names. The confirmation is
    checked by the judge's ``task_completion`` task when a judge is given, else by a keyword rule
    (the final reply mentions the outcome: done, booked, confirmed, a reference, ...).
    """

    name = "task_completion"
    _CONFIRM = re.compile(
        r"\b(?:done|booked|confirmed|completed|created|sent|updated|cancel?led|scheduled|placed|"
        r"reserved|transferred|saved|submitted|added|removed|set up|all set|successfully|"
        r"reference|confirmation)\b",
        re.IGNORECASE,
    )

    def __init__(
        self,
        judge: Judge | None = None,
        *,
        required: Sequence[str] = (),
        cases: Sequence[str] = (),
    ) -> None:
        super().__init__(cases=cases)
        self.judge = judge
        self.required = tuple(required)

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        required = list(self.required) or [c.name for c in final_expectation(case).tool_calls]
        if not required:
            return []
        problems: list[str] = []
        calls = agent_calls(turns)
        results = {m.tool_call_id: m for m in tool_messages(turns) if m.tool_call_id}
        for name in dict.fromkeys(required):
            made = [c for c in calls if c.name == name]
            if not made:
                problems.append(f"{name} was never called")
                continue
            ok = False
            for c in made:
                msg = results.get(c.id) if c.id else None
                if msg is None:
                    msg = next((m for m in tool_messages(turns) if m.name == name), None)
                if msg is not None and not parse_result(msg.content)[1]:
                    ok = True
            if not ok:
                problems.append(f"{name} did not succeed (error result)")
        reply = final_text(result, turns)
        confirmation: Score
        if self.judge is not None:
            try:
                r = await self.judge.evaluate(
                    "task_completion",
                    {
                        "question": question(case),
                        "tool_results": tool_results_text(turns),
                        "agent_output": reply,
                    },
                )
            except JudgeError as exc:
                score = judge_error_score(self.name, str(exc))
                record_judge_error(result, score)
                return [score]
            confirmed = bool(r.passed)
            how = f"judge: {r.verdict}: {r.reasoning}"
        else:
            confirmed = bool(self._CONFIRM.search(reply))
            how = (
                "the final reply states the outcome"
                if confirmed
                else ("the final reply does not confirm the outcome to the user")
            )
        if not confirmed:
            problems.append(how)
        confirmation = Score(
            name="confirmation", value=float(confirmed), passed=confirmed, explanation=how
        )
        return [
            Score(
                name=self.name,
                value=0.0 if problems else 1.0,
                passed=not problems,
                explanation="; ".join(problems) or f"all of {', '.join(required)} succeeded; {how}",
                parts=[confirmation],
            )
        ]


__all__ = [
    "InstructionFollowingScorer",
    "TaskCompletionScorer",
    "check_format",
]
