"""The scorer catalog: what validate checks, and run start agrees with it."""

from __future__ import annotations

import inspect
import subprocess
import sys
from typing import Any

import pytest

from agentgauge.errors import UserError
from agentgauge.judges import SCORER_INFO, SCORERS, build_scorers, scorer_ref_issues
from agentgauge.judges._registry import MAY_USE_JUDGE, NEEDS_JUDGE
from agentgauge.schema import ResponseFormat, ScorerRef

# the class each factory builds, to compare the catalog with the constructors' keywords
_CLASSES = {
    "equivalence": "EquivalenceScorer",
    "response_quality": "RubricScorer",
    "relevance": "RubricScorer",
    "coherence": "RubricScorer",
    "fluency": "RubricScorer",
    "groundedness": "GroundednessScorer",
    "behavior_judge": "BehaviorJudgeScorer",
    "numeric_grounding": "NumericGroundingScorer",
    "similarity": "SimilarityScorer",
    "instruction_following": "InstructionFollowingScorer",
    "task_completion": "TaskCompletionScorer",
    "safety": "SafetyScorer",
    "assert": "AssertScorer",
    "rubric": "SuiteRubricScorer",
    "user_fidelity": "UserFidelityScorer",
}
#: keywords the registry fills in itself, never from ``args:``
_INJECTED = {"tools"}


def _keywords(name: str) -> set[str]:
    import agentgauge.judges as judges

    cls = getattr(judges, _CLASSES[name])
    params = inspect.signature(cls.__init__).parameters.values()
    out = {p.name for p in params if p.kind is inspect.Parameter.KEYWORD_ONLY} - _INJECTED
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params):  # instruction_following
        out |= {f.alias or n for n, f in ResponseFormat.model_fields.items()}
    if name in MAY_USE_JUDGE:
        out.add("use_judge")  # the registry pops it
    return out


def issues(scorer: str, **args: Any) -> list[tuple[str, str]]:
    ref = ScorerRef(scorer=scorer, args=args)
    return [(".".join(map(str, i.path)), i.message) for i in scorer_ref_issues(ref)]


def test_catalog_names_the_registry_scorers_and_their_judge_use() -> None:
    assert set(SCORER_INFO) == set(SCORERS) == set(_CLASSES)
    rubrics = {"response_quality", "relevance", "coherence", "fluency"}
    needs = {"equivalence", "groundedness", "behavior_judge", "rubric", "user_fidelity"}
    assert {*needs, *rubrics} == NEEDS_JUDGE
    assert {"task_completion", "safety"} == MAY_USE_JUDGE


@pytest.mark.parametrize("name", sorted(_CLASSES))
def test_catalog_arguments_match_the_constructor(name: str) -> None:
    assert {a.name for a in SCORER_INFO[name].all_args()} == _keywords(name)


def test_unknown_scorer_suggests_the_closest_or_lists_all() -> None:
    assert issues("groundednes") == [
        ("scorer", "unknown scorer 'groundednes' (did you mean 'groundedness'?)")
    ]
    [(_, message)] = issues("vibes")
    assert message.startswith("unknown scorer 'vibes' (known: assert, behavior_judge,")


@pytest.mark.parametrize(
    ("scorer", "args", "want"),
    [
        (
            "similarity",
            {"treshold": 0.5},
            (
                "args.treshold",
                "scorer 'similarity' has no argument 'treshold' (did you mean 'threshold'?)",
            ),
        ),
        (
            "numeric_grounding",
            {"zzz": 1},
            (
                "args.zzz",
                "scorer 'numeric_grounding' has no argument 'zzz' (it takes: ignore, cases)",
            ),
        ),
        (
            "groundedness",
            {"min_score": "four"},
            ("args.min_score", "'four' is a string; 'min_score' must be an integer from 1 to 5"),
        ),
        (
            "relevance",
            {"min_score": 9},
            ("args.min_score", "9 is out of range: 'min_score' must be an integer from 1 to 5"),
        ),
        (
            "equivalence",
            {"always": "yes"},
            ("args.always", "'yes' is a string; 'always' must be true or false"),
        ),
        (
            "task_completion",
            {"required": ["get_weather", 3]},
            ("args.required.1", "3 is an integer; 'required' must be a list of strings"),
        ),
        (
            "similarity",
            {"threshold": True},
            ("args.threshold", "True is a boolean; 'threshold' must be a number from 0 to 1"),
        ),
        (
            "safety",
            {"cases": "adversarial"},
            ("args.cases", "'adversarial' is a string; 'cases' must be a list of strings"),
        ),
    ],
)
def test_bad_arguments(scorer: str, args: dict[str, Any], want: tuple[str, str]) -> None:
    assert issues(scorer, **args) == [want]


def test_bad_regex_argument() -> None:
    [(where, message)] = issues("instruction_following", regex="(")
    assert where == "args.regex"
    assert message.startswith("'(' is not a valid regular expression")


def test_valid_entries_have_no_issues() -> None:
    assert issues("similarity", threshold=1, cases=["rag_*"]) == []
    assert issues("safety", leak_words=5, use_judge=False) == []
    assert issues("instruction_following", json=True, max_words=60, regex=r"\d+") == []
    assert issues("numeric_grounding", ignore=[1, 2.5]) == []
    assert issues("behavior_judge") == []


def test_run_start_reports_what_validate_reports() -> None:
    refs = [
        ScorerRef(scorer="groundednes"),
        ScorerRef(scorer="similarity", args={"threshold": "high"}),
    ]
    with pytest.raises(UserError) as err:
        build_scorers(refs, judge_spec="mock:judge")
    assert err.value.problems == [
        "scorers[0].scorer: unknown scorer 'groundednes' (did you mean 'groundedness'?)",
        "scorers[1].args.threshold: 'high' is a string; 'threshold' must be a number from 0 to 1",
    ]


def test_the_catalog_imports_no_judge_provider_or_scorer() -> None:
    code = (
        "import sys; from agentgauge.judges import SCORER_INFO, scorer_ref_issues;"
        "mods = ('agentgauge.judges._judge', 'agentgauge.judges._scorers',"
        " 'agentgauge.judges._checks', 'agentgauge.providers', 'agentgauge.runner');"
        "print(','.join(m for m in mods if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
