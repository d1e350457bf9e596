"""Deterministic scoring: matchers for tools, arguments, trajectories and behaviours.

Contract (other packages rely on it):

``score_case(case, turns, tools, config) -> CaseScore`` where ``turns[i]`` is the list of messages
the agent produced (assistant turns and the tool results it received, in order) in reply to the
case input (``i == 0``) or to ``case.turns[i - 1]``.
"""

from ._api import BehaviorClassifier, CaseScore, ScoringConfig, score_case
from ._behavior import classify_behavior
from ._offline import ScoreOutcome, load_suite_any, score_responses

__all__ = [
    "BehaviorClassifier",
    "CaseScore",
    "ScoreOutcome",
    "ScoringConfig",
    "classify_behavior",
    "load_suite_any",
    "score_case",
    "score_responses",
]
