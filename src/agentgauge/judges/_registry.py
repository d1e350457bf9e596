"""Extra scorers by name, as a suite's ``scorers:`` section lists them.

```yaml
scorers:
  - scorer: equivalence            # semantic fallback when exact match fails
  - scorer: groundedness
    args: {min_score: 4}
    cases: ["rag_*"]
  - scorer: similarity
    args: {threshold: 0.75}
  - scorer: response_quality
    judge: openai:gpt-4o           # this scorer's own judge
```
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, Final

from ..errors import UserError
from ..schema import ScorerRef, Suite
from ._checks import (
    InstructionFollowingScorer,
    NumericGroundingScorer,
    SafetyScorer,
    SimilarityScorer,
    TaskCompletionScorer,
)
from ._judge import Judge, JudgeConfig
from ._scorers import BehaviorJudgeScorer, EquivalenceScorer, GroundednessScorer, RubricScorer

#: scorers that need a judge, scorers that may use one, and deterministic ones
NEEDS_JUDGE: Final = frozenset(
    {
        "equivalence",
        "response_quality",
        "relevance",
        "coherence",
        "fluency",
        "groundedness",
        "behavior_judge",
    }
)
MAY_USE_JUDGE: Final = frozenset({"task_completion", "safety"})

_Factory = Callable[[Judge | None, dict[str, Any]], Any]


def _rubric(task: str) -> _Factory:
    return lambda judge, args: RubricScorer(_need(judge), task, **args)


def _need(judge: Judge | None) -> Judge:
    assert judge is not None
    return judge


SCORERS: Final[dict[str, _Factory]] = {
    "equivalence": lambda j, a: EquivalenceScorer(_need(j), **a),
    "response_quality": _rubric("response_quality"),
    "relevance": _rubric("relevance"),
    "coherence": _rubric("coherence"),
    "fluency": _rubric("fluency"),
    "groundedness": lambda j, a: GroundednessScorer(_need(j), **a),
    "behavior_judge": lambda j, a: BehaviorJudgeScorer(_need(j), **a),
    "numeric_grounding": lambda j, a: NumericGroundingScorer(**a),
    "similarity": lambda j, a: SimilarityScorer(**a),
    "instruction_following": lambda j, a: InstructionFollowingScorer(**a),
    "task_completion": lambda j, a: TaskCompletionScorer(
        j if a.pop("use_judge", True) else None, **a
    ),
    "safety": lambda j, a: SafetyScorer(j if a.pop("use_judge", True) else None, **a),
}


def build_scorers(
    refs: Sequence[ScorerRef],
    *,
    judge_spec: str | None = None,
    judge_config: JudgeConfig = JudgeConfig(),
    judges: Mapping[str, Judge] | None = None,
) -> list[Any]:
    """Scorer objects for ``refs`` (for ``RunConfig.extra_scorers``).

    ``judge_spec`` is the default judge (``--judge``, else the suite's ``defaults.judge``); a
    ref's own ``judge`` overrides it. Judges are shared between scorers with the same spec.
    ``judges`` maps specs to ready judges (tests pass mock judges here).
    """
    made: dict[str, Judge] = dict(judges or {})
    scorers: list[Any] = []
    for i, ref in enumerate(refs):
        where = f"scorers[{i}] ({ref.scorer})"
        factory = SCORERS.get(ref.scorer)
        if factory is None:
            raise UserError(f"{where}: unknown scorer (known: {', '.join(sorted(SCORERS))})")
        spec = ref.judge or judge_spec
        judge: Judge | None = None
        if ref.scorer in NEEDS_JUDGE and not spec:
            raise UserError(f"{where}: needs a judge: pass --judge SPEC or set defaults.judge")
        if spec and (ref.scorer in NEEDS_JUDGE or ref.scorer in MAY_USE_JUDGE):
            if spec not in made:
                made[spec] = Judge.from_config(replace(judge_config, spec=spec))
            judge = made[spec]
        args = dict(ref.args)
        if ref.cases:
            args["cases"] = list(ref.cases)
        try:
            scorers.append(factory(judge, args))
        except TypeError as exc:
            raise UserError(f"{where}: bad args: {exc}") from None
        except ValueError as exc:
            raise UserError(f"{where}: bad args: {exc}") from None
    return scorers


def scorers_for_suite(
    suite: Suite, *, judge: str | None = None, config: JudgeConfig = JudgeConfig()
) -> list[Any]:
    """The extra scorers a run of ``suite`` uses (what ``agentgauge run --judge`` wires in).

    The suite's ``scorers:`` section when it has one (``judge`` or ``defaults.judge`` is the
    default judge); otherwise, when a judge is given, the semantic-equivalence fallback alone.
    """
    spec = judge or suite.defaults.judge
    if suite.scorers:
        return build_scorers(suite.scorers, judge_spec=spec, judge_config=config)
    if spec:
        return default_judge_scorers(Judge.from_config(replace(config, spec=spec)))
    return []


def default_judge_scorers(judge: Judge) -> list[Any]:
    """What ``--judge`` alone turns on when the suite lists no scorers: the equivalence
    fallback (a judge only where the exact match failed)."""
    return [EquivalenceScorer(judge)]


__all__ = [
    "MAY_USE_JUDGE",
    "NEEDS_JUDGE",
    "SCORERS",
    "build_scorers",
    "default_judge_scorers",
    "scorers_for_suite",
]
