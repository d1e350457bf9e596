"""Judging that does not flake: k samples per question, majority verdict, the spread recorded,
and an uncertain verdict when the samples agree too little (a scripted judge that disagrees
with itself)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from judge_helpers import call_then_reply, make_case, make_result, reply

from agentgauge.judges import Judge, JudgeConfig, build_scorers, scorers_for_suite
from agentgauge.judges._checks import TaskCompletionScorer
from agentgauge.judges._scorers import EquivalenceScorer, RubricScorer
from agentgauge.metrics import summarize_results
from agentgauge.schema import ScorerRef, Suite
from agentgauge.testing import MockProvider

ANSWER = {"question": "Capital of France?", "reference": "Paris", "agent_output": "Paris."}


def verdict(label: str) -> str:
    return f'{{"reasoning": "because", "verdict": "{label}"}}'


def rating(n: int) -> str:
    return f'{{"reasoning": "because", "score": {n}}}'


def judge(replies: list[Any], samples: int, agreement: float = 2 / 3) -> tuple[Judge, MockProvider]:
    mock = MockProvider(replies)
    return Judge(mock, JudgeConfig(cache=False, samples=samples, agreement=agreement)), mock


def test_each_sample_has_its_own_seed_at_temperature_0() -> None:
    j, mock = judge([verdict("equivalent")] * 3, 3)
    r = anyio.run(j.evaluate, "equivalence_answer", ANSWER)
    assert [q.config.seed for q in mock.requests] == [0, 1, 2]
    assert {q.config.temperature for q in mock.requests} == {0.0}
    assert (r.agreement, r.uncertain, r.samples) == (1.0, False, 3)


@pytest.mark.parametrize(
    ("labels", "winner", "agreement", "uncertain"),
    [
        (["equivalent", "different", "equivalent"], "equivalent", 2 / 3, False),
        (["equivalent", "different"], "different", 1 / 2, True),  # a tie: the failing label
        (["equivalent"] * 4 + ["different"], "equivalent", 4 / 5, False),
        (["equivalent"] * 3 + ["different"] * 2, "equivalent", 3 / 5, True),
    ],
)
def test_majority_and_agreement(
    labels: list[str], winner: str, agreement: float, uncertain: bool
) -> None:
    j, _ = judge([verdict(x) for x in labels], len(labels))
    r = anyio.run(j.evaluate, "equivalence_answer", ANSWER)
    assert r.verdict == winner
    assert r.agreement == pytest.approx(agreement)
    assert r.uncertain is uncertain


def test_a_failed_sample_counts_against_agreement() -> None:
    # the second sample is malformed twice: 2 of 3 asked agree, but only 1 sample is valid
    j, _ = judge([verdict("equivalent"), "x", "y", verdict("equivalent")], 3)
    r = anyio.run(j.evaluate, "equivalence_answer", ANSWER)
    assert r.votes == ("equivalent", "equivalent")
    assert r.agreement == pytest.approx(2 / 3)
    assert len(r.sample_errors) == 1


def test_the_threshold_is_configurable() -> None:
    labels = ["equivalent", "different", "equivalent"]
    strict, _ = judge([verdict(x) for x in labels], 3, agreement=1.0)
    assert anyio.run(strict.evaluate, "equivalence_answer", ANSWER).uncertain


def test_score_records_agreement_uncertainty_and_the_spread() -> None:
    j, _ = judge([rating(5), rating(1), rating(3)], 3)
    scorer = RubricScorer(j, "relevance")
    [s] = anyio.run(scorer.score, make_case(), make_result(text="Paris."), reply("Paris."))
    assert s.passed is False  # the majority (lower median) verdict: 3 < 4
    assert s.uncertain is True
    assert s.agreement == pytest.approx(1 / 3)
    assert "votes 5, 1, 3" in s.explanation
    assert "agreement 1/3" in s.explanation
    assert "uncertain" in s.explanation
    # samples that agree: a sure score with its agreement
    sure, _ = judge([rating(5)] * 3, 3)
    [t] = anyio.run(
        RubricScorer(sure, "relevance").score, make_case(), make_result(text="x"), reply("x")
    )
    assert (t.passed, t.uncertain, t.agreement) == (True, False, 1.0)
    assert "agreement 3/3" in t.explanation
    assert "uncertain" not in t.explanation


def test_one_sample_records_nothing_extra() -> None:
    j, _ = judge([rating(5)], 1)
    [s] = anyio.run(
        RubricScorer(j, "relevance").score, make_case(), make_result(text="x"), reply("x")
    )
    assert (s.agreement, s.uncertain) == (None, False)


def test_uncertain_scores_are_counted_in_the_summary() -> None:
    j, _ = judge([rating(5), rating(1), rating(5), rating(5), rating(5), rating(5)], 3)
    scorer = RubricScorer(j, "relevance")
    results = []
    for i in range(2):
        r = make_result(text="x").model_copy(update={"case_id": f"c{i}"})
        r.scores = anyio.run(scorer.score, make_case(id=f"c{i}"), r, reply("x"))
        results.append(r)
    stats = summarize_results(results).scorers["judge.relevance"]
    # c0: 5, 1, 5 -> 5 with agreement 2/3 (sure); c1: 5, 5, 5 (sure)
    assert stats.uncertain == 0
    k, _ = judge([rating(5), rating(1)], 2)
    r = make_result(text="x").model_copy(update={"case_id": "c2"})
    r.scores = anyio.run(RubricScorer(k, "relevance").score, make_case(id="c2"), r, reply("x"))
    stats = summarize_results([*results, r]).scorers["judge.relevance"]
    assert (stats.uncertain, stats.uncertain_passed, stats.uncertain_cases) == (1, 0, ["c2"])


def test_judge_samples_per_scorer_and_suite_wide() -> None:
    base = Judge(MockProvider([]), JudgeConfig(cache=False))
    refs = [
        ScorerRef(scorer="relevance"),
        ScorerRef(scorer="coherence", judge_samples=3),
        ScorerRef(scorer="fluency", judge_samples=3, judge_agreement=1.0),
        ScorerRef(scorer="equivalence", judge_samples=3),
    ]
    built = build_scorers(refs, judge_spec="mock:x", judges={"mock:x": base})
    configs = [(s.judge.config.samples, s.judge.config.agreement) for s in built]
    assert configs == [(1, 2 / 3), (3, 2 / 3), (3, 1.0), (3, 2 / 3)]
    assert built[0].judge is base
    assert built[1].judge is built[3].judge  # one judge per setting
    assert built[1].judge.provider is base.provider
    suite = Suite.model_validate(
        {
            "name": "s",
            "defaults": {"judge": "mock:judge", "judge_samples": 5, "judge_agreement": 0.8},
            "scorers": [{"scorer": "relevance"}, {"scorer": "coherence", "judge_samples": 1}],
        }
    )
    made = scorers_for_suite(suite, config=JudgeConfig(cache=False))
    assert [(s.judge.config.samples, s.judge.config.agreement) for s in made] == [
        (5, 0.8),
        (1, 0.8),
    ]
    no_scorers = suite.model_copy(update={"scorers": []})
    [eq] = scorers_for_suite(no_scorers, config=JudgeConfig(cache=False))
    assert isinstance(eq, EquivalenceScorer)
    assert eq.judge.config.samples == 5


def test_bad_sample_settings_are_rejected() -> None:
    with pytest.raises(ValueError, match="agreement"):
        JudgeConfig(agreement=0)
    with pytest.raises(ValueError, match="judge_samples"):
        ScorerRef.model_validate({"scorer": "relevance", "judge_samples": 0})


def test_task_completion_marks_a_split_judge_uncertain() -> None:
    case = make_case(expect={"tool_calls": [{"name": "book_table", "arguments": {}}]})
    turns = call_then_reply("book_table", {}, '{"ref": "Q7"}', "Booked, reference Q7.")
    split, _ = judge(
        [
            '{"reasoning": "r", "verdict": "confirmed"}',
            '{"reasoning": "r", "verdict": "not_confirmed"}',
        ],
        2,
    )
    [s] = anyio.run(TaskCompletionScorer(split).score, case, make_result(), turns)
    assert s.passed is False  # the tie goes to the failing label
    assert (s.uncertain, s.agreement) == (True, 0.5)
    sure, _ = judge(['{"reasoning": "r", "verdict": "confirmed"}'] * 2, 2)
    [t] = anyio.run(TaskCompletionScorer(sure).score, case, make_result(), turns)
    assert (t.passed, t.uncertain, t.agreement) == (True, False, 1.0)
