"""Rubric judges written in the suite: criteria, evaluation steps, a scale and annotated
boundary examples, for any quality of a reply (tone, a disclaimer present, a format).

```yaml
scorers:
  - scorer: rubric
    args:
      name: disclaimer
      criteria: The reply says it is not financial advice whenever it names an investment.
      steps: ["Find every investment the reply names", "Look for a disclaimer near it"]
      scale: [1, 5]                # or [0, 10], [1, 3] ..., or pass_fail
      min_score: 4
      examples:
        - {reply: "Index funds are popular. This is not financial advice.", score: 5,
           why: "Names an investment and disclaims it."}
        - {reply: "Buy index funds.", score: 1, why: "An investment without any disclaimer."}
```

The rubric becomes the judge's system message (it is the suite author's, so it instructs the
judge); the case's question, the tool results and the reply are fenced as data by the shared
templating (:func:`render`), so a reply cannot rewrite its own rubric. The judge answers
``{"reasoning", "score"}`` like the built-in rubric tasks, the score constrained to the declared
scale (a reply off it is retried once, then a judge error, never a pass); on a ``pass_fail``
scale it answers ``{"reasoning", "verdict": "pass" | "fail"}``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import orjson

from ..errors import JudgeError
from ..schema import PASS_FAIL, Case, CaseResult, Message, Score, rubric_issues, rubric_scale
from ..scoring import final_text, question, tool_results_text
from ._judge import Judge, JudgeResult
from ._scorers import JudgeScorer, _votes
from ._tasks import JudgeTask
from ._templates import Template, escape_fences

#: what a suite rubric reads (the same inputs as the built-in response_quality rubric)
RUBRIC_TASK = JudgeTask(
    name="rubric",
    kind="score",
    inputs=("question", "tool_results", "agent_output"),
    description="a rubric written in the suite",
)
#: the verdicts of a ``pass_fail`` rubric, the failing one first (a tied vote fails)
PASS_FAIL_LABELS = ("fail", "pass")


def rubric_task(scale: tuple[int, int] | None = None) -> JudgeTask:
    """The judge task of a suite rubric on ``scale`` (None: ``pass_fail``, a verdict task)."""
    if scale is None:
        return replace(
            RUBRIC_TASK, kind="verdict", labels=PASS_FAIL_LABELS, passing=frozenset({"pass"})
        )
    return replace(RUBRIC_TASK, scale=scale)


def rubric_body(
    *,
    name: str,
    criteria: str,
    steps: Sequence[str] = (),
    scale: tuple[int, int] | None = (1, 5),
    examples: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The system-message body of a suite rubric (``scale`` None: ``pass_fail``)."""
    lines = [
        f"You rate one quality of an AI agent's reply (the agent output): {name}.",
        "Judge only this quality, as the criteria define it; not correctness, length or style",
        "unless the criteria ask for them.",
        "",
        "## Criteria",
        escape_fences(criteria.strip()),
    ]
    if steps:
        lines += ["", "## Evaluation steps"]
        lines += [f"{i}. {escape_fences(s.strip())}" for i, s in enumerate(steps, 1)]
    key = "verdict" if scale is None else "score"
    if scale is None:
        scale_text = "pass if the reply meets the criteria, fail if it does not."
        shape = '"verdict": "pass" | "fail"'
    else:
        lo, hi = scale
        scale_text = (
            f"An integer from {lo} (does not meet the criteria at all) to {hi} (fully meets "
            "them); no other value."
        )
        shape = f'"score": <integer {lo}-{hi}>'
    lines += ["", "## Scale", scale_text]
    if examples:
        lines += ["", "## Examples (annotated boundary cases)"]
        for ex in examples:
            answer = orjson.dumps({"reasoning": ex["why"], key: ex["score"]}).decode()
            lines.append(f"- output {orjson.dumps(escape_fences(ex['reply'])).decode()}")
            lines.append(f"  -> {answer}")
    lines += ["", f'Return: {{"reasoning": "<one or two sentences>", {shape}}}']
    return "\n".join(lines)


def rubric_template(name: str, body: str) -> Template:
    """The template of a suite rubric: its version is a hash of the body, so editing the
    rubric changes the label every score records (and misses the judge cache)."""
    digest = hashlib.sha256(body.encode()).hexdigest()[:8]
    return Template(task=f"rubric.{name}", version=digest, body=body, source="suite rubric")


async def evaluate_rubric(
    judge: Judge,
    template: Template,
    inputs: Mapping[str, str],
    *,
    task: JudgeTask = RUBRIC_TASK,
) -> JudgeResult:
    """:meth:`Judge.evaluate` with the suite's own template and task (:func:`rubric_task`: its
    scale) instead of shipped ones (the same samples, retries, cache and aggregation)."""
    return await judge.evaluate(task.name, inputs, task=task, template=template)


class SuiteRubricScorer(JudgeScorer):
    """A rubric of the suite. ``value`` maps the score onto 0..1 over the scale; it passes at
    ``min_score`` (default: the scale's highest minus one, 4 on 1..5, 9 on 0..10, 2 on 1..3)
    or above. On a ``pass_fail`` scale the judge's verdict decides (value 1 or 0)."""

    def __init__(
        self,
        judge: Judge,
        *,
        name: str,
        criteria: str,
        steps: Sequence[str] = (),
        scale: Sequence[int] | str | None = None,
        examples: Sequence[Mapping[str, Any]] = (),
        min_score: int | None = None,
        cases: Sequence[str] = (),
    ) -> None:
        super().__init__(judge, cases=cases)
        self.name = f"judge.{name}"
        declared = scale if isinstance(scale, str) else list(scale) if scale else None
        issue = next(rubric_issues({"name": name, "criteria": criteria, "scale": declared}), None)
        if issue is not None:
            raise ValueError(f"{'.'.join(map(str, issue[0])) or 'args'}: {issue[1]}")
        self.pass_fail = declared == PASS_FAIL
        self.scale = rubric_scale({"scale": declared})
        lo, hi = self.scale
        self.min_score = min_score if min_score is not None else (hi - 1 if hi - 1 > lo else hi)
        self.task = rubric_task(None if self.pass_fail else self.scale)
        body = rubric_body(
            name=name,
            criteria=criteria,
            steps=steps,
            scale=None if self.pass_fail else self.scale,
            examples=examples,
        )
        self.template = rubric_template(name, body)

    async def _score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        reply = final_text(result, turns)
        if not reply.strip():
            return [Score(name=self.name, value=0.0, passed=None, explanation="no text reply")]
        r = await evaluate_rubric(
            self.judge,
            self.template,
            {
                "question": question(case),
                "tool_results": tool_results_text(turns),
                "agent_output": reply,
            },
            task=self.task,
        )
        if self.pass_fail:
            ok = r.verdict == "pass"
            return [
                Score(
                    name=self.name,
                    value=1.0 if ok else 0.0,
                    passed=ok,
                    explanation=f"{r.verdict}: {r.reasoning}{_votes(r)}",
                    actual=r.verdict,
                )
            ]
        assert r.score is not None
        lo, hi = self.scale
        if not lo <= r.score <= hi:
            raise JudgeError(f"{self.template.label}: score {r.score} is off the scale {lo}..{hi}")
        return [
            Score(
                name=self.name,
                value=(r.score - lo) / (hi - lo),
                passed=r.score >= self.min_score,
                explanation=f"{r.score}/{hi} (pass at {self.min_score}): {r.reasoning}{_votes(r)}",
                actual=str(r.score),
                scale=(lo, hi),
            )
        ]


__all__ = [
    "PASS_FAIL_LABELS",
    "RUBRIC_TASK",
    "SuiteRubricScorer",
    "evaluate_rubric",
    "rubric_body",
    "rubric_task",
    "rubric_template",
]
