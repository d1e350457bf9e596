"""LLM-as-judge scoring: structured verdicts, injection-resistant prompts, calibration.

```python
from agentgauge.judges import Judge, JudgeConfig, build_scorers

judge = Judge.from_config(JudgeConfig(spec="openai:gpt-4o-mini"))
verdict = await judge.evaluate("equivalence_answer",
                               {"question": q, "reference": ref, "agent_output": reply})
```

The scorers (``EquivalenceScorer``, ``GroundednessScorer``, ...) plug into
``RunConfig.extra_scorers``; suites list them by name in ``scorers:`` (see docs/judges.md).
``SCORER_INFO`` describes each one's judge use and arguments without building it.

Names are imported on first use, so importing the package (as ``agentgauge validate`` does to
check scorer names) loads no judge, provider or scorer module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..errors import JudgeError
    from ..schema import SCORER_INFO, ScorerInfo, scorer_ref_issues
    from ..scoring import (
        JUDGE_ERROR,
        NumericGroundingScorer,
        SafetyScorer,
        SimilarityScorer,
        is_judge_error,
    )
    from ._assertions import AssertScorer
    from ._calibration import (
        CalibrationReport,
        LabelledExample,
        TaskAgreement,
        calibrate,
        calibrate_file,
        cohen_kappa,
        read_labels,
        weighted_kappa,
    )
    from ._checks import (
        InstructionFollowingScorer,
        TaskCompletionScorer,
        check_format,
    )
    from ._custom import PythonScorer, ScorerContext, ScoreResult
    from ._judge import Judge, JudgeConfig, JudgeResult, resolve_judge
    from ._pairwise import (
        PairwiseCase,
        PairwiseComparison,
        PairwiseConfig,
        compare_pairwise,
        compare_runs_pairwise,
    )
    from ._progress import JudgeProgress, ProgressFactory
    from ._registry import SCORERS, build_scorers, default_judge_scorers, scorers_for_suite
    from ._rubric import SuiteRubricScorer
    from ._rulejudge import RuleJudge
    from ._scorers import (
        BEHAVIOR_LABELS,
        BehaviorJudgeScorer,
        EquivalenceScorer,
        GroundednessScorer,
        JudgeScorer,
        RubricScorer,
    )
    from ._tasks import TASKS, Claim, JudgeTask, get_task
    from ._templates import Template, escape_fences, load_template, render
    from ._user import UserFidelityScorer

#: public name -> the private module that defines it
_EXPORTS: dict[str, str] = {
    "CalibrationReport": "._calibration",
    "LabelledExample": "._calibration",
    "TaskAgreement": "._calibration",
    "calibrate": "._calibration",
    "calibrate_file": "._calibration",
    "cohen_kappa": "._calibration",
    "read_labels": "._calibration",
    "weighted_kappa": "._calibration",
    "SCORER_INFO": "agentgauge.schema",
    "ScorerInfo": "agentgauge.schema",
    "scorer_ref_issues": "agentgauge.schema",
    "AssertScorer": "._assertions",
    "PythonScorer": "._custom",
    "ScoreResult": "._custom",
    "ScorerContext": "._custom",
    "SuiteRubricScorer": "._rubric",
    "InstructionFollowingScorer": "._checks",
    "NumericGroundingScorer": "agentgauge.scoring",
    "SafetyScorer": "agentgauge.scoring",
    "SimilarityScorer": "agentgauge.scoring",
    "TaskCompletionScorer": "._checks",
    "UserFidelityScorer": "._user",
    "check_format": "._checks",
    "Judge": "._judge",
    "JudgeConfig": "._judge",
    "JudgeError": "agentgauge.errors",
    "JudgeResult": "._judge",
    "resolve_judge": "._judge",
    "PairwiseCase": "._pairwise",
    "PairwiseComparison": "._pairwise",
    "PairwiseConfig": "._pairwise",
    "compare_pairwise": "._pairwise",
    "compare_runs_pairwise": "._pairwise",
    "JudgeProgress": "._progress",
    "ProgressFactory": "._progress",
    "SCORERS": "._registry",
    "build_scorers": "._registry",
    "default_judge_scorers": "._registry",
    "scorers_for_suite": "._registry",
    "RuleJudge": "._rulejudge",
    "BEHAVIOR_LABELS": "._scorers",
    "BehaviorJudgeScorer": "._scorers",
    "EquivalenceScorer": "._scorers",
    "GroundednessScorer": "._scorers",
    "JudgeScorer": "._scorers",
    "RubricScorer": "._scorers",
    "Claim": "._tasks",
    "JudgeTask": "._tasks",
    "TASKS": "._tasks",
    "get_task": "._tasks",
    "Template": "._templates",
    "escape_fences": "._templates",
    "load_template": "._templates",
    "render": "._templates",
    "JUDGE_ERROR": "agentgauge.scoring",
    "is_judge_error": "agentgauge.scoring",
}

__all__ = [
    "BEHAVIOR_LABELS",
    "JUDGE_ERROR",
    "SCORERS",
    "SCORER_INFO",
    "TASKS",
    "AssertScorer",
    "BehaviorJudgeScorer",
    "CalibrationReport",
    "Claim",
    "EquivalenceScorer",
    "GroundednessScorer",
    "InstructionFollowingScorer",
    "Judge",
    "JudgeConfig",
    "JudgeError",
    "JudgeProgress",
    "JudgeResult",
    "JudgeScorer",
    "JudgeTask",
    "LabelledExample",
    "NumericGroundingScorer",
    "PairwiseCase",
    "PairwiseComparison",
    "PairwiseConfig",
    "ProgressFactory",
    "PythonScorer",
    "RubricScorer",
    "RuleJudge",
    "SafetyScorer",
    "ScoreResult",
    "ScorerContext",
    "ScorerInfo",
    "SimilarityScorer",
    "SuiteRubricScorer",
    "TaskAgreement",
    "TaskCompletionScorer",
    "Template",
    "UserFidelityScorer",
    "build_scorers",
    "calibrate",
    "calibrate_file",
    "check_format",
    "cohen_kappa",
    "compare_pairwise",
    "compare_runs_pairwise",
    "default_judge_scorers",
    "escape_fences",
    "get_task",
    "is_judge_error",
    "load_template",
    "read_labels",
    "render",
    "resolve_judge",
    "scorer_ref_issues",
    "scorers_for_suite",
    "weighted_kappa",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, __all__)
