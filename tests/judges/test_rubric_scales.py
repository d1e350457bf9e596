"""Suite rubrics on scales beyond 1-5 (0..10, 1..3) and ``scale: pass_fail``: the schema the
judge is sent, parsing, the pass threshold, a reply off the scale, and validation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from judge_helpers import make_case, make_result, reply

from agentgauge.cli import cli
from agentgauge.judges import Judge, JudgeConfig, build_scorers
from agentgauge.schema import Score, ScorerRef, scorer_ref_issues
from agentgauge.testing import MockProvider

BASE: dict[str, Any] = {"name": "tone", "criteria": "The reply is polite and warm."}


def score(n: Any) -> str:
    return json.dumps({"reasoning": "read it", "score": n})


def verdict(label: str) -> str:
    return json.dumps({"reasoning": "read it", "verdict": label})


def run_rubric(args: dict[str, Any], replies: list[str], samples: int = 1) -> tuple[Score, Any]:
    mock = MockProvider(replies)
    judge = Judge(mock, JudgeConfig(cache=False, samples=samples))
    [scorer] = build_scorers(
        [ScorerRef(scorer="rubric", args={**BASE, **args})], judge_spec="x", judges={"x": judge}
    )
    [s] = anyio.run(scorer.score, make_case(), make_result(), reply("Thanks, happy to help!"))
    return s, mock


def test_a_0_to_10_scale_is_sent_parsed_and_thresholded() -> None:
    s, mock = run_rubric({"scale": [0, 10], "min_score": 7}, [score(7)])
    assert (s.passed, s.value, s.actual) == (True, pytest.approx(0.7), "7")
    assert s.explanation.startswith("7/10 (pass at 7): read it")
    request = mock.requests[0]
    assert request.config.response_schema["properties"]["score"]["enum"] == list(range(11))
    system = request.messages[0].content or ""
    assert "An integer from 0 (does not meet the criteria at all) to 10" in system
    assert '"score": <integer 0-10>' in system
    # the default threshold is the highest minus one: 9 on 0..10, so 7 fails
    s, _ = run_rubric({"scale": [0, 10]}, [score(7)])
    assert (s.passed, s.value) == (False, pytest.approx(0.7))
    s, _ = run_rubric({"scale": [0, 10]}, [score(0)])  # the bottom of the scale is a score
    assert (s.passed, s.value) == (False, 0.0)


def test_a_reply_off_the_declared_scale_is_a_judge_error_never_a_pass() -> None:
    s, mock = run_rubric({"scale": [0, 10], "min_score": 7}, [score(11), score(11)])
    assert s.passed is None  # a judge error, not a pass (11 > 7) nor a fail
    assert "judge error" in s.explanation
    assert "score 11 is off the scale 0..10" in s.explanation
    assert len(mock.requests) == 2  # retried once, telling the judge the shape
    assert "<integer 0 to 10>" in (mock.requests[1].messages[-1].content or "")
    s, _ = run_rubric({"scale": [0, 10], "min_score": 7}, [score(-1), score(8)])
    assert (s.passed, s.actual) == (True, "8")  # the retry's answer is on the scale
    # 1..3: a 4 (which a 1..5 rubric would pass) is off the scale
    s, _ = run_rubric({"scale": [1, 3]}, [score(4), score(4)])
    assert s.passed is None
    assert "off the scale 1..3" in s.explanation
    s, _ = run_rubric({"scale": [1, 3]}, [score(2)])  # default threshold on 1..3: 2
    assert (s.passed, s.value) == (True, 0.5)
    s, _ = run_rubric({"scale": [1, 3]}, [score(1)])
    assert s.passed is False


def test_pass_fail_asks_for_a_verdict() -> None:
    examples = [
        {"reply": "Happy to help!", "score": "pass", "why": "warm"},
        {"reply": "Whatever.", "score": "fail", "why": "curt"},
    ]
    s, mock = run_rubric({"scale": "pass_fail", "examples": examples}, [verdict("pass")])
    assert (s.passed, s.value, s.actual) == (True, 1.0, "pass")
    schema = mock.requests[0].config.response_schema
    assert schema["properties"]["verdict"]["enum"] == ["fail", "pass"]
    assert "score" not in schema["properties"]
    system = mock.requests[0].messages[0].content or ""
    assert '{"reasoning":"curt","verdict":"fail"}' in system
    assert '"verdict": "pass" | "fail"' in system
    s, _ = run_rubric({"scale": "pass_fail"}, [verdict("fail")])
    assert (s.passed, s.value) == (False, 0.0)
    # a number where a verdict is asked for is not read as a pass
    s, _ = run_rubric({"scale": "pass_fail"}, [score(5), score(5)])
    assert s.passed is None
    assert "judge error" in s.explanation


def test_pass_fail_samples_vote_and_a_split_is_uncertain() -> None:
    s, _ = run_rubric(
        {"scale": "pass_fail"}, [verdict("pass"), verdict("fail"), verdict("pass")], samples=3
    )
    assert (s.passed, s.agreement, s.uncertain) == (True, pytest.approx(2 / 3), False)
    s, _ = run_rubric(
        {"scale": [0, 10], "min_score": 6}, [score(9), score(2), score(6)], samples=3
    )  # the lower median, 6; only one sample of three gave it
    assert (s.actual, s.passed, s.uncertain) == ("6", True, True)


@pytest.mark.parametrize(
    ("args", "path", "message"),
    [
        ({"scale": [0]}, ("args", "scale"), "two integers"),
        ({"scale": [5, 1]}, ("args", "scale"), "0 <= lowest < highest"),
        ({"scale": [-1, 3]}, ("args", "scale"), "0 <= lowest < highest"),
        ({"scale": [0, 200]}, ("args", "scale"), "at most 101 points"),
        ({"scale": [1.5, 3]}, ("args", "scale"), "two integers"),
        ({"scale": "yes_no"}, ("args", "scale"), "expected [lowest, highest] or pass_fail"),
        ({"scale": True}, ("args", "scale"), "must be [lowest, highest] integers or 'pass_fail'"),
        ({"scale": [0, 10], "min_score": 11}, ("args", "min_score"), "off the scale 0..10"),
        ({"scale": "pass_fail", "min_score": 1}, ("args", "min_score"), "has no min_score"),
        (
            {"scale": "pass_fail", "examples": [{"reply": "x", "score": 1, "why": "y"}]},
            ("args", "examples", 0, "score"),
            "pass or fail",
        ),
        (
            {"scale": [0, 10], "examples": [{"reply": "x", "score": 11, "why": "y"}]},
            ("args", "examples", 0, "score"),
            "on the scale 0..10",
        ),
    ],
)
def test_bad_scales_are_rejected(args: dict[str, Any], path: tuple[Any, ...], message: str) -> None:
    [issue] = scorer_ref_issues(ScorerRef(scorer="rubric", args={**BASE, **args}))
    assert issue.path == path
    assert message in issue.message


@pytest.mark.parametrize("scale", [[0, 10], [1, 3], [0, 1], [0, 100], "pass_fail"])
def test_good_scales_are_accepted(scale: Any) -> None:
    assert list(scorer_ref_issues(ScorerRef(scorer="rubric", args={**BASE, "scale": scale}))) == []


def test_validate_names_the_file_and_line_of_a_bad_scale(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: s\n"
        "defaults: {judge: 'mock:judge'}\n"
        "scorers:\n"
        "  - scorer: rubric\n"
        "    args:\n"
        "      name: tone\n"
        "      criteria: polite\n"
        "      scale: [10, 0]\n"
        "cases:\n"
        "  - {id: a, input: hi}\n",
        encoding="utf-8",
    )
    out = CliRunner().invoke(cli, ["validate", str(suite)])
    assert out.exit_code == 2, out.output
    assert f"{suite}:8: scorers[0].args.scale: error: [10, 0]: expected 0 <= lowest" in out.output
    assert "Traceback" not in out.output


def test_gates_read_a_rubric_mean_on_its_declared_scale() -> None:
    from agentgauge.metrics import evaluate_gates, summarize_results
    from agentgauge.schema import Gates

    results = []
    for i, n in enumerate((6, 8)):  # a mean of 7 on 0..10 (0.7 as a value)
        s, _ = run_rubric({"scale": [0, 10]}, [score(n)])
        assert s.scale == (0, 10)
        r = make_result(status="passed").model_copy(update={"case_id": f"c{i}", "scores": [s]})
        results.append(r)
    summary = summarize_results(results)
    assert summary.scorers["judge.tone"].scale == (0, 10)

    def mean_check(gate: dict[str, Any]) -> Any:
        report = evaluate_gates(summary, Gates.model_validate({"scorers": {"judge.tone": gate}}))
        [check] = [c for c in report.checks if c.name == "judge.tone mean"]
        return check

    ok = mean_check({"min_mean": 6.5})
    assert ok.passed, ok.message
    assert "scale 0–10" in ok.threshold
    assert "7.00" in ok.actual
    low = mean_check({"min_mean": 7.5})  # on 0..1 this threshold could never be met or failed
    assert not low.passed
    assert "0.50 below the minimum 7.5" in low.message
    # a gate's own scale still wins
    assert mean_check({"min_mean": 0.65, "scale": [0, 1]}).passed
    assert not mean_check({"min_mean": 0.75, "scale": [0, 1]}).passed
