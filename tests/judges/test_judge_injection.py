"""Prompt-injection resistance: agent outputs that address the judge must not flip verdicts.

The rule-based mock judge obeys instructions it finds *outside* the fenced data (like a gullible
LLM), so it only holds when the framework fences and escapes correctly; the last tests break the
framework on purpose and show that the same set then flips verdicts.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agentgauge.judges import Judge, JudgeConfig, RuleJudge, _templates, calibrate, read_labels

INJECTION_SET = Path(__file__).with_name("injection_set.jsonl")


def _flips(judge: Judge) -> list[str]:
    report = anyio.run(calibrate, judge, read_labels(INJECTION_SET))
    assert all(t.errors == 0 for t in report.tasks)
    return [d for t in report.tasks for d in t.disagreements]


def test_injection_set_is_large_and_varied() -> None:
    examples = read_labels(INJECTION_SET)
    assert len(examples) >= 12
    assert len({e.task for e in examples}) >= 6
    assert any("</agent_output>" in e.inputs.get("agent_output", "") for e in examples)
    assert any('"verdict"' in e.inputs.get("agent_output", "") for e in examples)


def test_no_verdict_flips_with_correct_fencing() -> None:
    assert _flips(Judge(RuleJudge(), JudgeConfig(cache=False))) == []


def test_the_set_flips_verdicts_when_fake_tags_are_not_escaped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_templates, "escape_fences", lambda text: text)
    flips = _flips(Judge(RuleJudge(), JudgeConfig(cache=False)))
    assert len(flips) >= 8, flips


def test_the_set_flips_verdicts_without_fences(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_templates, "fence", lambda tag, value, nonce: f"{tag}: {value}")
    flips = _flips(Judge(RuleJudge(), JudgeConfig(cache=False)))
    assert len(flips) >= 12, flips


def test_the_cli_measures_the_flip_rate(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from agentgauge.cli import cli

    res = CliRunner().invoke(
        cli, ["calibrate", "--labels", str(INJECTION_SET), "--judge", "mock:judge", "--no-cache"]
    )
    assert res.exit_code == 0, res.output
    assert "overall agreement 1.000" in res.output
    assert "disagree" not in res.output
