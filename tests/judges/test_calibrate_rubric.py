"""Calibrating a suite's own rubric: ``task: rubric:NAME`` lines with ``--suite``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import orjson
import pytest
from click.testing import CliRunner

from agentgauge.cli import cli
from agentgauge.errors import UserError
from agentgauge.judges import Judge, JudgeConfig, calibrate, read_labels
from agentgauge.judges._calibration import suite_rubrics
from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.schema import Message

LABELS = Path(__file__).resolve().parent / "labels"
SUITE = LABELS / "rubric_suite.yaml"
APOLOGY = LABELS / "rubric_apology.jsonl"


class ApologyRule:
    """Scores a reply 1 + (apologises) + (names a next step), from the fenced agent output;
    records the system messages it was sent."""

    name = "test:apology-rule"

    def __init__(self, constant: int | None = None) -> None:
        self.constant = constant
        self.systems: list[str] = []

    async def generate(self, request: ModelRequest) -> ModelResponse:
        self.systems.append(request.messages[0].content or "")
        user = request.messages[1].content or ""
        reply = re.search(r"<agent_output id=\"\w+\">\n(.*?)\n</agent_output>", user, re.DOTALL)
        text = (reply.group(1) if reply else "").lower()
        sorry = any(w in text for w in ("sorry", "apolog"))
        step = any(w in text for w in ("you can", "please use", "can."))
        score = self.constant or 1 + sorry + step
        body = orjson.dumps({"reasoning": "rule", "score": score}).decode()
        return ModelResponse(message=Message(role="assistant", content=body))


def _calibrate(provider: ApologyRule):  # type: ignore[no-untyped-def]
    judge = Judge(provider, JudgeConfig(cache=False))  # type: ignore[arg-type]
    rubrics = suite_rubrics(SUITE, judge)
    examples = read_labels(APOLOGY, rubrics)
    return anyio.run(lambda: calibrate(judge, examples, rubrics=rubrics))


def test_a_suite_rubric_is_calibrated_on_its_own_scale_with_its_own_prompt() -> None:
    provider = ApologyRule()
    report = _calibrate(provider)
    (t,) = report.tasks
    assert t.task == "rubric:apology"
    assert t.labels == ("1", "2", "3")
    assert t.n == 12
    assert t.errors == 0
    # the rule misses one case: "Refunds are handled by the billing team" (a next step it
    # does not recognise)
    assert t.agreement == pytest.approx(11 / 12)
    assert t.disagreements == ("ap08: human 2, judge 1",)
    assert t.weighted_kappa is not None
    assert t.weighted_kappa > 0.9
    assert report.low_agreement(0.6) == []
    # the judge read the suite's rubric: its criteria and annotated examples
    assert "offers a concrete next step" in provider.systems[0]
    assert "Apologises and names where to go." in provider.systems[0]
    assert "[agentgauge judge task: rubric.apology v" in provider.systems[0]


def test_a_judge_that_ignores_the_rubric_is_flagged() -> None:
    report = _calibrate(ApologyRule(constant=3))
    (t,) = report.tasks
    assert t.agreement == pytest.approx(4 / 12)
    assert t.weighted_kappa == pytest.approx(0.0)
    (warning,) = report.low_agreement(0.6)
    assert warning.startswith("rubric:apology: kappa 0.000 is below 0.6")


def test_rubric_lines_without_the_suite_or_with_an_unknown_name_are_one_line_errors(
    tmp_path: Path,
) -> None:
    with pytest.raises(
        UserError, match=r"rubric_apology.jsonl:1: task 'rubric:apology' is a suite"
    ):
        read_labels(APOLOGY)
    judge = Judge(ApologyRule(), JudgeConfig(cache=False))  # type: ignore[arg-type]
    rubrics = suite_rubrics(SUITE, judge)
    wrong = tmp_path / "labels.jsonl"
    line = {"task": "rubric:tone", "inputs": {"agent_output": "x"}, "label": 1}
    wrong.write_text(json.dumps(line) + "\n")
    with pytest.raises(
        UserError, match=r"labels.jsonl:1: .*no such rubric \(its rubrics: rubric:apology\)"
    ):
        read_labels(wrong, rubrics)
    line = {"task": "rubric:apology", "inputs": {"agent_output": "x"}, "label": 4}
    wrong.write_text(json.dumps(line) + "\n")
    with pytest.raises(UserError, match=r"labels.jsonl:1: label 4 must be an integer 1-3"):
        read_labels(wrong, rubrics)


def test_calibrate_cli_takes_the_suite_and_refuses_rubric_lines_without_it() -> None:
    runner = CliRunner()
    base = ["calibrate", "--labels", str(APOLOGY), "--judge", "mock:judge", "--no-cache"]
    bad = runner.invoke(cli, base)
    assert bad.exit_code == 2
    assert "give the suite that defines it (--suite SUITE)" in bad.output
    assert "Traceback" not in bad.output
    ok = runner.invoke(cli, [*base, "--suite", str(SUITE), "--json"])
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.output)
    assert data["tasks"][0]["task"] == "rubric:apology"
    assert data["tasks"][0]["labels"] == ["1", "2", "3"]


class ScaleRule:
    """pass_fail rubric 'polite': pass when the reply says please; 0..10 rubric 'detail': the
    reply's word count, at most 10."""

    name = "test:scale-rule"

    async def generate(self, request: ModelRequest) -> ModelResponse:
        system = request.messages[0].content or ""
        user = request.messages[1].content or ""
        reply = re.search(r"<agent_output id=\"\w+\">\n(.*?)\n</agent_output>", user, re.DOTALL)
        text = reply.group(1) if reply else ""
        if "rubric.polite" in system:
            answer: dict[str, object] = {"verdict": "pass" if "please" in text.lower() else "fail"}
        else:
            answer = {"score": min(10, len(text.split()))}
        body = orjson.dumps({"reasoning": "rule", **answer}).decode()
        return ModelResponse(message=Message(role="assistant", content=body))


SCALES_SUITE = """\
name: scales
tools: []
scorers:
  - scorer: rubric
    args: {name: polite, criteria: The reply is polite., scale: pass_fail}
  - scorer: rubric
    args: {name: detail, criteria: The reply gives detail., scale: [0, 10]}
cases:
  - {id: c1, input: hi}
"""


def test_pass_fail_and_zero_to_ten_rubrics_are_calibrated_on_their_own_labels(
    tmp_path: Path,
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SCALES_SUITE)
    lines = [
        ("rubric:polite", "Please wait a moment.", "pass"),
        ("rubric:polite", "Wait.", "fail"),
        ("rubric:polite", "Could you please hold on?", "pass"),
        ("rubric:polite", "Thank you for waiting.", "pass"),  # the rule misses this one
        ("rubric:detail", "Yes.", 1),
        ("rubric:detail", "It opens at nine and closes at six.", 8),
        ("rubric:detail", "one two three four five six seven eight nine ten eleven", 10),
    ]
    labels = tmp_path / "labels.jsonl"
    labels.write_text(
        "".join(
            json.dumps({"task": t, "inputs": {"agent_output": o}, "label": lab}) + "\n"
            for t, o, lab in lines
        )
    )
    judge = Judge(ScaleRule(), JudgeConfig(cache=False))  # type: ignore[arg-type]
    rubrics = suite_rubrics(suite, judge)
    report = anyio.run(lambda: calibrate(judge, read_labels(labels, rubrics), rubrics=rubrics))
    detail, polite = report.tasks
    assert polite.labels == ("fail", "pass")
    assert polite.weighted_kappa is None
    assert polite.agreement == pytest.approx(3 / 4)
    assert polite.disagreements == ("3: human pass, judge fail",)
    assert detail.labels == tuple(str(x) for x in range(11))
    assert detail.agreement == 1.0
    assert detail.weighted_kappa == pytest.approx(1.0)
    for task, label, message in (
        ("rubric:polite", 7, r"label 7 is not one of \['fail', 'pass'\]"),
        ("rubric:detail", 11, r"label 11 must be an integer 0-10"),
    ):
        labels.write_text(
            json.dumps({"task": task, "inputs": {"agent_output": "x"}, "label": label}) + "\n"
        )
        with pytest.raises(UserError, match=message):
            read_labels(labels, rubrics)
