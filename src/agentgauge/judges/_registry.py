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

from .._messages import format_path
from .._suite_code import SuiteCodePolicy, with_checked_judges
from ..errors import SuiteCodeRefused, UserError
from ..schema import PYTHON_PREFIX, SCORER_INFO, ScorerRef, Suite, ToolSpec, scorer_ref_issues
from ..scoring import NumericGroundingScorer, SafetyScorer, SimilarityScorer
from ._assertions import AssertScorer
from ._checks import (
    InstructionFollowingScorer,
    TaskCompletionScorer,
)
from ._custom import PythonScorer
from ._judge import Judge, JudgeConfig
from ._rubric import SuiteRubricScorer
from ._scorers import BehaviorJudgeScorer, EquivalenceScorer, GroundednessScorer, RubricScorer
from ._user import UserFidelityScorer

#: scorers that need a judge, and scorers that may use one (the others never do); read from
#: the catalog that ``agentgauge validate`` checks suites against
NEEDS_JUDGE: Final = frozenset(n for n, i in SCORER_INFO.items() if i.judge == "required")
MAY_USE_JUDGE: Final = frozenset(n for n, i in SCORER_INFO.items() if i.judge == "optional")

#: ``factory(judge, args, tools)``: ``tools`` are the suite's tools (None when not known)
_Factory = Callable[[Judge | None, dict[str, Any], Sequence[ToolSpec] | None], Any]


def _rubric(task: str) -> _Factory:
    return lambda judge, args, tools: RubricScorer(_need(judge), task, **args)


def _need(judge: Judge | None) -> Judge:
    assert judge is not None
    return judge


#: how each scorer of :data:`~agentgauge.judges.SCORER_INFO` is built
SCORERS: Final[dict[str, _Factory]] = {
    "equivalence": lambda j, a, t: EquivalenceScorer(_need(j), **a),
    "response_quality": _rubric("response_quality"),
    "relevance": _rubric("relevance"),
    "coherence": _rubric("coherence"),
    "fluency": _rubric("fluency"),
    "groundedness": lambda j, a, t: GroundednessScorer(_need(j), **a),
    "behavior_judge": lambda j, a, t: BehaviorJudgeScorer(_need(j), tools=t, **a),
    "numeric_grounding": lambda j, a, t: NumericGroundingScorer(**a),
    "similarity": lambda j, a, t: SimilarityScorer(**a),
    "instruction_following": lambda j, a, t: InstructionFollowingScorer(**a),
    "task_completion": lambda j, a, t: TaskCompletionScorer(
        j if a.pop("use_judge", True) else None, **a
    ),
    "safety": lambda j, a, t: SafetyScorer(j if a.pop("use_judge", True) else None, **a),
    "assert": lambda j, a, t: AssertScorer(**a),
    "rubric": lambda j, a, t: SuiteRubricScorer(_need(j), **a),
    "user_fidelity": lambda j, a, t: UserFidelityScorer(_need(j), **a),
}


def build_scorers(
    refs: Sequence[ScorerRef],
    *,
    judge_spec: str | None = None,
    judge_config: JudgeConfig = JudgeConfig(),
    judges: Mapping[str, Judge] | None = None,
    tools: Sequence[ToolSpec] | None = None,
) -> list[Any]:
    """Scorer objects for ``refs`` (for ``RunConfig.extra_scorers``).

    ``judge_spec`` is the default judge (``--judge``, else the suite's ``defaults.judge``); a
    ref's own ``judge`` overrides it. Judges are shared between scorers with the same spec.
    ``judges`` maps specs to ready judges (tests pass mock judges here). ``tools`` are the
    suite's tools: ``behavior_judge`` shows the judge the tools each case offers.

    A ``python:file.py:fn`` scorer is imported here: a suite's must have passed the
    suite-code policy first (the runner's ``with_suite_scorers`` does), which also refuses a
    module named by a suite; one the caller names itself may be ``python:package.module:fn``.

    Every entry is checked against the catalog first (:func:`scorer_ref_issues`, the check
    ``agentgauge validate`` makes), so a bad name or argument fails here, before any judge is
    built, with every problem listed.
    """
    problems = [
        f"{format_path(('scorers', i, *issue.path))}: {issue.message}"
        for i, ref in enumerate(refs)
        for issue in scorer_ref_issues(ref)
    ]
    if problems:
        raise UserError(problems[0], problems=problems)
    made: dict[str, Judge] = dict(judges or {})
    scorers: list[Any] = []
    for i, ref in enumerate(refs):
        where = f"scorers[{i}] ({ref.scorer})"
        if ref.scorer.startswith(PYTHON_PREFIX):  # a check of one's own: args go to its context
            scorers.append(PythonScorer(ref.scorer, args=ref.args, cases=ref.cases))
            continue
        factory = SCORERS[ref.scorer]
        spec = ref.judge or judge_spec
        judge: Judge | None = None
        if ref.scorer in NEEDS_JUDGE and not spec:
            raise UserError(f"{where}: needs a judge: pass --judge SPEC or set defaults.judge")
        if spec and (ref.scorer in NEEDS_JUDGE or ref.scorer in MAY_USE_JUDGE):
            if spec not in made:
                made[spec] = Judge.from_config(replace(judge_config, spec=spec))
            judge = _sampled(made, spec, ref)
        args = dict(ref.args)
        if ref.cases:
            args["cases"] = list(ref.cases)
        try:
            scorers.append(factory(judge, args, tools))
        except TypeError as exc:
            raise UserError(f"{where}: bad args: {exc}") from None
        except ValueError as exc:
            raise UserError(f"{where}: bad args: {exc}") from None
    return scorers


def _sampled(made: dict[str, Judge], spec: str, ref: ScorerRef) -> Judge:
    """The judge of ``spec`` with the ref's own ``judge_samples`` / ``judge_agreement`` (a judge
    on the same provider, made once per setting); the shared one when the ref sets neither."""
    base = made[spec]
    samples = ref.judge_samples or base.config.samples
    agreement = ref.judge_agreement or base.config.agreement
    if (samples, agreement) == (base.config.samples, base.config.agreement):
        return base
    key = f"{spec}\x00samples={samples}\x00agreement={agreement}"
    if key not in made:
        made[key] = Judge(base.provider, replace(base.config, samples=samples, agreement=agreement))
    return made[key]


def scorers_for_suite(
    suite: Suite,
    *,
    judge: str | None = None,
    config: JudgeConfig = JudgeConfig(),
    code: SuiteCodePolicy | None = None,
    judge_by: str | None = None,
) -> list[Any]:
    """The extra scorers a run of ``suite`` uses (what ``agentgauge run --judge`` wires in).

    The suite's ``scorers:`` section when it has one (``judge`` or ``defaults.judge`` is the
    default judge); otherwise, when a judge is given, the semantic-equivalence fallback alone.

    The suite is data: its judges and ``python:`` scorers pass the suite policy first (``code``;
    None: the policy of a suite in the current folder, the opt-ins from the environment and
    the user's config file), so a judge that would import code or send the user's key to an
    endpoint the suite names is refused (SuiteCodeRefused) before anything is built. ``judge``
    is the caller's own word and is not checked, unless ``judge_by`` says which file named it
    (``runs/x/run.json:8: judge`` on resume): then it is checked like the suite's.
    """
    policy = code if code is not None else SuiteCodePolicy.for_suite(None)
    suite = with_checked_judges(suite, policy, judge_given=judge is not None)
    if judge is not None and judge_by is not None:
        try:
            judge = policy.check_spec(judge, "judge", named_by=judge_by)
        except SuiteCodeRefused as err:
            raise type(err)(
                f"{judge_by}: {err} (to use a judge of your own, give --judge SPEC)"
            ) from None
    spec = judge or suite.defaults.judge
    d = suite.defaults
    if config.samples == 1 and d.judge_samples != 1:
        config = replace(config, samples=d.judge_samples)
    if d.judge_agreement != JudgeConfig.agreement:
        config = replace(config, agreement=d.judge_agreement)
    if suite.scorers:
        return build_scorers(suite.scorers, judge_spec=spec, judge_config=config, tools=suite.tools)
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
