"""Deterministic scoring: matchers for tools, arguments, trajectories and behaviours.

Contract (other packages rely on it):

``score_case(case, turns, tools, config) -> CaseScore`` where ``turns[i]`` is the list of messages
the agent produced (assistant turns and the tool results it received, in order) in reply to the
case input (``i == 0``) or to ``case.turns[i - 1]``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._api import BehaviorClassifier, ScoringConfig, failed_case_score, score_case
from ._behavior import classify_behavior
from ._case_score import CaseScore
from ._replies import (
    JUDGE_ERROR,
    agent_calls,
    all_replies,
    final_text,
    is_judge_error,
    judge_error_score,
    question,
    record_judge_error,
    system_prompt,
    tokens,
    tool_messages,
    tool_results_text,
    user_texts,
)
from ._transcript import parse_result
from ._user import holds_value, mentions, user_scores

if TYPE_CHECKING:
    from ._extra import (
        Check,
        NumericGroundingScorer,
        SafetyScorer,
        SimilarityScorer,
        VerdictSource,
        final_expectation,
        longest_shared_run,
    )
    from ._numeric_grounding import check_numeric_grounding, extract_numeric
    from ._similarity import embedding_problem

#: the model-free extra scorers, imported on first use (a run without ``scorers:`` has none)
_EXTRA: dict[str, str] = {
    "Check": "._extra",
    "NumericGroundingScorer": "._extra",
    "SafetyScorer": "._extra",
    "SimilarityScorer": "._extra",
    "VerdictSource": "._extra",
    "final_expectation": "._extra",
    "longest_shared_run": "._extra",
    "check_numeric_grounding": "._numeric_grounding",
    "extract_numeric": "._numeric_grounding",
    "embedding_problem": "._similarity",
}

__all__ = [
    "JUDGE_ERROR",
    "BehaviorClassifier",
    "CaseScore",
    "Check",
    "NumericGroundingScorer",
    "SafetyScorer",
    "ScoringConfig",
    "SimilarityScorer",
    "VerdictSource",
    "agent_calls",
    "all_replies",
    "check_numeric_grounding",
    "classify_behavior",
    "embedding_problem",
    "extract_numeric",
    "failed_case_score",
    "final_expectation",
    "final_text",
    "holds_value",
    "is_judge_error",
    "judge_error_score",
    "longest_shared_run",
    "mentions",
    "parse_result",
    "question",
    "record_judge_error",
    "score_case",
    "system_prompt",
    "tokens",
    "tool_messages",
    "tool_results_text",
    "user_scores",
    "user_texts",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXTRA, __all__)
