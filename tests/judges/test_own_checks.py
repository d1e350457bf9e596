"""Checks of one's own (issue 12 part 3): the ``assert`` scorer, suite rubrics and
``python:file.py:fn`` scorers. Each fails a wrong transcript and passes a right one, directly
and through ``agentgauge run`` and ``agentgauge score``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from judge_helpers import make_case, make_result, reply

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.io import iter_results
from agentgauge.judges import Judge, JudgeConfig, build_scorers
from agentgauge.schema import Message, Score, ScorerRef, scorer_ref_issues
from agentgauge.testing import MockProvider


def _run(scorer: Any, text: str, turns: Any = None, **case: Any) -> list[Score]:
    out: list[Score] = anyio.run(
        scorer.score, make_case(**case), make_result(text=None), turns or reply(text)
    )
    return out


def _one(args: dict[str, Any]) -> Any:
    [scorer] = build_scorers([ScorerRef(scorer="assert", args=args)])
    return scorer


# ----------------------------------------------------------------------------------- assert

SCHEMA = {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}

#: (args, a right reply, a wrong reply, words the wrong reply's explanation holds)
ASSERTS: list[tuple[dict[str, Any], str, str, str]] = [
    ({"contains": ["refund"]}, "Your refund is on its way.", "It is on its way.", "not contain"),
    ({"not_contains": ["guarantee"]}, "Likely fine.", "I guarantee it.", "contains 'guarantee'"),
    ({"regex": r"\bREF-\d{4}\b"}, "Booked: REF-1234.", "Booked.", "no match for"),
    ({"not_regex": r"\d{16}"}, "Card ending 4242.", "Card 4242424242424242.", "matches"),
    ({"starts_with": "Hello"}, "Hello! Done.", "Done. Hello", "does not start with 'Hello'"),
    ({"ends_with": "?"}, "Which city?", "Which city.", "does not end with '?'"),
    ({"json": True}, '{"id": 3}', "id is 3", "not valid JSON"),
    ({"json_schema": SCHEMA}, '{"id": 3}', '{"id": "three"}', "JSON Schema: id"),
    ({"min_chars": 10}, "long enough reply", "short", "5 characters, at least 10"),
    ({"max_chars": 10}, "short", "far too long a reply", "20 characters, at most 10"),
    ({"min_words": 3}, "one two three", "one two", "2 words, at least 3"),
    ({"max_words": 2}, "one two", "one two three", "3 words, at most 2"),
    (
        {"contains": ["REFUND"], "ignore_case": True},
        "your refund",
        "your money",
        "not contain 'REFUND'",
    ),
]


@pytest.mark.parametrize(("args", "right", "wrong", "why"), ASSERTS)
def test_each_assertion_fails_a_wrong_reply_and_passes_a_right_one(
    args: dict[str, Any], right: str, wrong: str, why: str
) -> None:
    assert not scorer_ref_issues(ScorerRef(scorer="assert", args=args))
    [ok] = _run(_one(args), right)
    [bad] = _run(_one(args), wrong)
    assert ok.passed is True, ok.explanation
    assert bad.passed is False
    assert why in bad.explanation
    assert bad.name == "assert"
    assert bad.value == 0.0


def test_assert_on_a_given_turn_and_its_name() -> None:
    turns = [
        [Message(role="assistant", content="Hello, how can I help?")],
        [Message(role="assistant", content="Done.")],
    ]
    scorer = _one({"turn": 1, "starts_with": "Hello", "name": "greeting"})
    [s] = _run(scorer, "", turns)
    assert s.passed is True
    assert s.name == "assert.greeting"
    [s] = _run(_one({"turn": 2, "starts_with": "Hello"}), "", turns)
    assert s.passed is False
    assert s.explanation.startswith("turn 2 reply:")
    [s] = _run(_one({"turn": 3, "contains": ["x"]}), "", turns)
    assert s.passed is False
    assert "only 2 turn(s)" in s.explanation


def test_partial_credit_lists_only_what_failed() -> None:
    [s] = _run(_one({"contains": ["a", "zz"], "max_words": 5}), "a b c")
    assert s.passed is False
    assert s.value == pytest.approx(2 / 3)
    assert s.explanation == "reply: does not contain 'zz'"
    assert [p.passed for p in s.parts] == [True, False, True]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({}, "needs at least one of"),
        ({"contains": "refund"}, "must be a list of strings"),
        ({"regex": "("}, "not a valid regular expression"),
        ({"min_words": 5, "max_words": 2}, "nothing passes"),
        ({"turn": 0, "contains": ["x"]}, "out of range"),
        ({"containz": ["x"]}, "did you mean 'contains'"),
    ],
)
def test_validate_checks_assert_args(args: dict[str, Any], message: str) -> None:
    issues = scorer_ref_issues(ScorerRef(scorer="assert", args=args))
    assert issues
    assert message in issues[0].message


# ----------------------------------------------------------------------------------- rubric

RUBRIC: dict[str, Any] = {
    "name": "disclaimer",
    "criteria": "Whenever the reply names an investment it says it is not financial advice.",
    "steps": ["List the investments named", "Look for a disclaimer"],
    "scale": [1, 5],
    "min_score": 4,
    "examples": [
        {"reply": "Index funds are common. Not financial advice.", "score": 5, "why": "ok"},
        {"reply": "Buy index funds now.", "score": 1, "why": "an investment, no disclaimer"},
        {"reply": "Bonds exist; ask an adviser.", "score": 3, "why": "half a disclaimer"},
    ],
}


def _rubric_judge(score: int) -> tuple[Judge, MockProvider]:
    mock = MockProvider([json.dumps({"reasoning": "read it", "score": score})])
    return Judge(mock, JudgeConfig(cache=False)), mock


def test_rubric_puts_criteria_steps_and_examples_in_the_prompt_and_parses_the_verdict() -> None:
    judge, mock = _rubric_judge(2)
    [scorer] = build_scorers(
        [ScorerRef(scorer="rubric", args=RUBRIC)], judge_spec="x", judges={"x": judge}
    )
    [s] = _run(scorer, "Buy bonds today.", input="Where should I invest?")
    assert s.name == "judge.disclaimer"
    assert s.passed is False
    assert s.actual == "2"
    assert s.value == pytest.approx(0.25)
    assert "2/5 (pass at 4): read it [rubric.disclaimer@v" in s.explanation
    system, user = (m.content or "" for m in mock.requests[0].messages)
    assert RUBRIC["criteria"] in system
    assert "1. List the investments named\n2. Look for a disclaimer" in system
    assert '"Buy index funds now."' in system
    assert "an investment, no disclaimer" in system
    assert "An integer from 1" in system
    assert "to 5" in system
    assert "Buy bonds today." in user
    assert "<agent_output id=" in user
    assert "Buy bonds today." not in system
    judge, _ = _rubric_judge(5)
    [scorer] = build_scorers(
        [ScorerRef(scorer="rubric", args=RUBRIC)], judge_spec="x", judges={"x": judge}
    )
    [s] = _run(scorer, "Bonds pay interest. Not financial advice.")
    assert s.passed is True
    assert s.value == 1.0


def test_rubric_score_off_a_short_scale_is_a_judge_error() -> None:
    off = json.dumps({"reasoning": "read it", "score": 5})
    judge = Judge(MockProvider([off, off]), JudgeConfig(cache=False))  # the retry is off too
    args = {**RUBRIC, "scale": [1, 3], "min_score": 2, "examples": []}
    [scorer] = build_scorers(
        [ScorerRef(scorer="rubric", args=args)], judge_spec="x", judges={"x": judge}
    )
    [s] = _run(scorer, "anything")
    assert s.passed is None
    assert "off the scale 1..3" in s.explanation


def test_rubric_needs_a_judge_and_valid_args() -> None:
    with pytest.raises(UserError, match="needs a judge"):
        build_scorers([ScorerRef(scorer="rubric", args=RUBRIC)])
    bad = {**RUBRIC, "examples": [{"reply": "x", "score": 9, "why": "y"}], "min_score": 4}
    [issue] = scorer_ref_issues(ScorerRef(scorer="rubric", args=bad))
    assert issue.path == ("args", "examples", 0, "score")
    assert "1..5" in issue.message
    [issue] = scorer_ref_issues(ScorerRef(scorer="rubric", args={"name": "tone"}))
    assert "needs 'criteria'" in issue.message
    [issue] = scorer_ref_issues(ScorerRef(scorer="rubric", args={**RUBRIC, "scale": [5, 5]}))
    assert issue.path == ("args", "scale")


# ----------------------------------------------------------------------------------- python:

CHECKS = '''\
from agentgauge.judges import ScoreResult


def cites_order(ctx):
    """The reply quotes the order id the lookup tool returned."""
    ids = [r.content for r in ctx.tool_results if r.name == "lookup"]
    if not ids:
        return None
    order = ids[0].strip('"')
    ok = order in ctx.reply
    why = f"quotes {order}" if ok else f"does not quote {order} (reply: {ctx.reply!r})"
    return ScoreResult(passed=ok, explanation=why)


def two_args(ctx, other):
    return None
'''

JUDGE = """\
import json


def grade(messages, tools):
    system, user = messages[0].content, messages[1].content
    assert "not financial advice" in system  # the criteria reached the prompt
    ok = "not financial advice" in user.lower()
    return json.dumps({"reasoning": "disclaimer" if ok else "none", "score": 5 if ok else 2})
"""

SUITE = """\
name: own-checks
defaults: {judge: "python:judge.py:grade?thread=0"}
tools:
  - name: lookup
    description: find the order
    parameters: {type: object, properties: {}}
    simulation: {result: "A-17"}
scorers:
  - scorer: python:checks.py:cites_order
  - scorer: assert
    args: {contains: ["A-17"], max_words: 12}
  - scorer: rubric
    args:
      name: disclaimer
      criteria: The reply says it is not financial advice.
      examples:
        - {reply: "A-17. Not financial advice.", score: 5, why: "disclaimed"}
        - {reply: "A-17.", score: 2, why: "no disclaimer"}
cases:
  - id: right
    input: Where is my order?
  - id: wrong
    input: Where is my order, again?
"""

RIGHT = "Order A-17 ships today. Not financial advice."
WRONG = "Your order ships today, I promise, no need to worry about anything at all."


def _suite(tmp_path: Path) -> Path:
    (tmp_path / "checks.py").write_text(CHECKS)
    (tmp_path / "judge.py").write_text(JUDGE)
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE)
    return suite


def _verdicts(run_dir: Path) -> dict[str, dict[str, bool | None]]:
    return {r.case_id: {s.name: s.passed for s in r.scores} for r in iter_results(run_dir)}


EXPECTED = {
    "right": {"cites_order": True, "assert": True, "judge.disclaimer": True},
    "wrong": {"cites_order": False, "assert": False, "judge.disclaimer": False},
}


def test_run_and_score_fail_the_wrong_reply_and_pass_the_right_one(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    call = {"calls": [{"name": "lookup", "arguments": {}}]}
    script = tmp_path / "agent.jsonl"
    lines = [call, {"text": RIGHT}, call, {"text": WRONG}]
    script.write_text("".join(json.dumps(x) + "\n" for x in lines))
    runner = CliRunner()
    flags = ["--max-concurrency", "1", "--no-progress", "--no-cache", "--allow-suite-code"]
    ran = runner.invoke(
        cli, ["run", str(suite), "--agent", f"mock:{script}", "-o", str(tmp_path / "r"), *flags]
    )
    assert ran.exit_code == 0, ran.output  # no gate: a failed case is reported, not an exit
    by_run = _verdicts(tmp_path / "r")
    responses = tmp_path / "responses.jsonl"
    recorded = [
        {
            "case_id": case,
            "messages": [
                {"role": "assistant", "tool_calls": [{"id": "c1", "name": "lookup"}]},
                {"role": "tool", "name": "lookup", "tool_call_id": "c1", "content": '"A-17"'},
                {"role": "assistant", "content": text},
            ],
        }
        for case, text in (("right", RIGHT), ("wrong", WRONG))
    ]
    responses.write_text("".join(json.dumps(x) + "\n" for x in recorded))
    scored = runner.invoke(
        cli,
        ["score", str(suite), "--responses", str(responses), "-o", str(tmp_path / "s")],
    )
    assert scored.exit_code == 2  # the suite's code needs the opt-in here too
    assert "--allow-suite-code" in scored.output
    again = ["--overwrite", "--allow-suite-code"]
    scored = runner.invoke(
        cli, ["score", str(suite), "-r", str(responses), "-o", str(tmp_path / "s"), *again]
    )
    assert scored.exit_code in (0, 1), scored.output
    by_score = _verdicts(tmp_path / "s")
    for verdicts in (by_run, by_score):
        for case, want in EXPECTED.items():
            got = {k: v for k, v in verdicts[case].items() if k in want}
            assert got == want, (case, verdicts[case])
    wrong = next(r for r in iter_results(tmp_path / "r") if r.case_id == "wrong")
    assert wrong.status == "failed"
    assert "cites_order: does not quote A-17" in wrong.explanation


def test_a_suite_scorer_needs_the_opt_in_and_a_file_of_the_folder(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    script = tmp_path / "agent.jsonl"
    script.write_text(json.dumps({"text": RIGHT}) + "\n")
    base = ["run", str(suite), "--agent", f"mock:{script}", "-o", str(tmp_path / "r")]
    res = CliRunner().invoke(cli, [*base, "--no-progress"])
    assert res.exit_code == 2
    assert "scorer 'python:checks.py:cites_order'" in res.output
    assert "--allow-suite-code" in res.output
    suite.write_text(SUITE.replace("python:checks.py:cites_order", "python:os.path:exists"))
    res = CliRunner().invoke(cli, [*base, "--no-progress", "--allow-suite-code"])
    assert res.exit_code == 2
    assert "never a module" in res.output


def test_validate_reads_the_file_without_importing_it(tmp_path: Path) -> None:
    suite = _suite(tmp_path)
    (tmp_path / "checks.py").write_text(CHECKS + "\nraise SystemExit('imported!')\n")
    suite.write_text(SUITE.replace("cites_order", "cites_ordr"))
    res = CliRunner().invoke(cli, ["validate", str(suite), "--allow-suite-code"])
    assert "imported!" not in res.output
    assert "no top-level 'cites_ordr'" in res.output
    suite.write_text(SUITE.replace("checks.py", "missing.py"))
    res = CliRunner().invoke(cli, ["validate", str(suite), "--allow-suite-code"])
    assert res.exit_code != 0
    assert "no file missing.py" in res.output


def test_signature_and_return_are_checked(tmp_path: Path) -> None:
    (tmp_path / "checks.py").write_text(CHECKS + "\n\ndef bad_return(ctx):\n    return 0.5\n")
    spec = f"python:{tmp_path / 'checks.py'}:two_args"
    with pytest.raises(UserError, match=r"two_args\(ctx, other\) must take exactly one"):
        build_scorers([ScorerRef(scorer=spec)])
    [scorer] = build_scorers([ScorerRef(scorer=spec.replace("two_args", "bad_return"))])
    with pytest.raises(Exception, match="returned float; a scorer returns ScoreResult"):
        _run(scorer, "x")


def test_the_context_holds_the_case_and_transcript(tmp_path: Path) -> None:
    from agentgauge.judges import ScorerContext, ScoreResult

    seen: list[ScorerContext] = []

    def keep(ctx: ScorerContext) -> ScoreResult:
        seen.append(ctx)
        return ScoreResult(passed=True, explanation="kept", value=0.5)

    import sys
    import types

    module = types.ModuleType("agentgauge_test_own_checks")
    module.keep = keep  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    try:
        [scorer] = build_scorers(
            [ScorerRef(scorer=f"python:{module.__name__}:keep", args={"k": 1})]
        )
        case = {"metadata": {"team": "a"}, "expect": {"reference": "Paris"}}
        [s] = _run(scorer, "Paris.", **case)
    finally:
        del sys.modules[module.__name__]
    assert (s.name, s.passed, s.value, s.explanation) == ("keep", True, 0.5, "kept")
    [ctx] = seen
    assert ctx.reply == "Paris."
    assert ctx.reference == "Paris"
    assert ctx.question == "hello"
    assert ctx.metadata == {"team": "a"}
    assert ctx.args == {"k": 1}
    assert ctx.calls == []


def test_rubric_samples_vote_like_the_built_in_rubrics() -> None:
    replies = [json.dumps({"reasoning": f"r{s}", "score": s}) for s in (2, 5, 2)]
    judge = Judge(MockProvider(replies), JudgeConfig(cache=False, samples=3))
    [scorer] = build_scorers(
        [ScorerRef(scorer="rubric", args=RUBRIC)], judge_spec="x", judges={"x": judge}
    )
    [s] = _run(scorer, "Buy bonds.")
    assert s.passed is False  # the median of 2, 5, 2
    assert "votes 2, 5, 2" in s.explanation
    assert s.agreement == pytest.approx(2 / 3)  # recorded as for the built-in judge scorers
