"""LLM-as-judge scoring: structured verdicts, injection-resistant prompts, calibration.

```python
from agentgauge.judges import Judge, JudgeConfig, build_scorers

judge = Judge.from_config(JudgeConfig(spec="openai:gpt-4o-mini"))
verdict = await judge.evaluate("equivalence_answer",
                               {"question": q, "reference": ref, "agent_output": reply})
```

The scorers (``EquivalenceScorer``, ``GroundednessScorer``, ...) plug into
``RunConfig.extra_scorers``; suites list them by name in ``scorers:`` (see docs/judges.md).
"""

from ._calibration import (
    CalibrationReport,
    LabelledExample,
    TaskAgreement,
    calibrate,
    cohen_kappa,
    read_labels,
    weighted_kappa,
)
from ._checks import (
    InstructionFollowingScorer,
    NumericGroundingScorer,
    SafetyScorer,
    SimilarityScorer,
    TaskCompletionScorer,
    check_format,
)
from ._judge import Judge, JudgeConfig, JudgeError, JudgeResult, resolve_judge
from ._registry import SCORERS, build_scorers, default_judge_scorers, scorers_for_suite
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
from ._transcript import JUDGE_ERROR, is_judge_error

__all__ = [
    "BEHAVIOR_LABELS",
    "JUDGE_ERROR",
    "SCORERS",
    "TASKS",
    "BehaviorJudgeScorer",
    "CalibrationReport",
    "Claim",
    "EquivalenceScorer",
    "GroundednessScorer",
    "InstructionFollowingScorer",
    "Judge",
    "JudgeConfig",
    "JudgeError",
    "JudgeResult",
    "JudgeScorer",
    "JudgeTask",
    "LabelledExample",
    "NumericGroundingScorer",
    "RubricScorer",
    "RuleJudge",
    "SafetyScorer",
    "SimilarityScorer",
    "TaskAgreement",
    "TaskCompletionScorer",
    "Template",
    "build_scorers",
    "calibrate",
    "check_format",
    "cohen_kappa",
    "default_judge_scorers",
    "escape_fences",
    "get_task",
    "is_judge_error",
    "load_template",
    "read_labels",
    "render",
    "resolve_judge",
    "scorers_for_suite",
    "weighted_kappa",
]
