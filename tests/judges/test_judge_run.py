"""Judges wired into a run: ``agentgauge run --judge`` and a suite's ``scorers:`` section."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.io import iter_results
from agentgauge.judges import (
    EquivalenceScorer,
    GroundednessScorer,
    Judge,
    JudgeConfig,
    RuleJudge,
    SimilarityScorer,
    build_scorers,
    scorers_for_suite,
)
from agentgauge.runner import read_record
from agentgauge.schema import ScorerRef, Suite

SCRIPT = [
    {"calls": [{"name": "get_weather", "arguments": {"city": "NYC"}}]},
    {"text": "It is 20 degrees in New York."},
    {"text": "The capital of France is Paris."},
]

SUITE = """\
name: judged
tools:
  - name: get_weather
    description: weather in a city
    parameters: {type: object, properties: {city: {type: string}}, required: [city]}
    simulation: {result: {temp_c: 20}}
cases:
  - id: weather-ny
    input: What's the weather in New York?
    expect: {tool_calls: [{name: get_weather, arguments: {city: New York}}]}
  - id: capital
    input: What is the capital of France?
    expect: {behavior: answer, reference: Paris, response_contains: [Lyon]}
"""


def _write(tmp_path: Path, suite: str) -> tuple[Path, Path]:
    suite_path = tmp_path / "suite.yaml"
    suite_path.write_text(suite)
    script = tmp_path / "agent.jsonl"
    script.write_text("".join(json.dumps(x) + "\n" for x in SCRIPT))
    return suite_path, script


def test_run_with_judge_turns_exact_match_failures_into_semantic_passes(tmp_path: Path) -> None:
    suite_path, script = _write(tmp_path, SUITE)
    run_dir = tmp_path / "run"
    args = [
        "run",
        str(suite_path),
        "--agent",
        f"mock:{script}",
        "-o",
        str(run_dir),
        "--max-concurrency",
        "1",
        "--no-progress",
    ]
    res = CliRunner().invoke(cli, [*args, "--judge", "mock:judge"], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    results = {r.case_id: r for r in iter_results(run_dir)}
    weather = results["weather-ny"]
    assert weather.status == "passed", weather.explanation
    assert "passed on semantic equivalence" in weather.explanation
    assert any(s.name == "judge.equivalence" and s.passed for s in weather.scores)
    assert read_record(run_dir).judge == "mock:judge"


def test_suite_scorers_section(tmp_path: Path) -> None:
    suite = (
        SUITE
        + """\
defaults: {judge: "mock:judge"}
scorers:
  - scorer: numeric_grounding
  - scorer: relevance
    cases: [capital]
"""
    )
    suite_path, script = _write(tmp_path, suite)
    run_dir = tmp_path / "run"
    res = CliRunner().invoke(
        cli,
        [
            "run",
            str(suite_path),
            "--agent",
            f"mock:{script}",
            "-o",
            str(run_dir),
            "--max-concurrency",
            "1",
            "--no-progress",
        ],
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    results = {r.case_id: r for r in iter_results(run_dir)}
    names = {r: [s.name for s in results[r].scores] for r in results}
    assert "numeric_grounding" in names["weather-ny"]
    assert "judge.relevance" not in names["weather-ny"]
    assert "judge.relevance" in names["capital"]


def test_build_scorers_by_name() -> None:
    judge = Judge(RuleJudge(), JudgeConfig(cache=False))
    refs = [
        ScorerRef(scorer="equivalence"),
        ScorerRef(scorer="groundedness", args={"min_score": 3}),
        ScorerRef(scorer="similarity", args={"threshold": 0.5}, cases=["rag_*"]),
    ]
    made = build_scorers(refs, judge_spec="mock:judge", judges={"mock:judge": judge})
    assert [type(s) for s in made] == [EquivalenceScorer, GroundednessScorer, SimilarityScorer]
    assert made[1].min_score == 3
    assert made[2].cases == ("rag_*",)


@pytest.mark.parametrize(
    ("ref", "problem"),
    [
        (ScorerRef(scorer="vibes"), r"scorers\[0\]\.scorer: unknown scorer 'vibes'"),
        (ScorerRef(scorer="groundedness"), "needs a judge"),
        (
            ScorerRef(scorer="similarity", args={"treshold": 1}),
            r"scorers\[0\]\.args\.treshold: .* no argument 'treshold' \(did you mean 'threshold'",
        ),
    ],
)
def test_build_scorers_problems(ref: ScorerRef, problem: str) -> None:
    with pytest.raises(UserError, match=problem):
        build_scorers([ref])


def test_scorers_for_suite_defaults() -> None:
    suite = Suite(name="s")
    assert scorers_for_suite(suite) == []
    [only] = scorers_for_suite(suite, judge="mock:judge", config=JudgeConfig(cache=False))
    assert isinstance(only, EquivalenceScorer)
