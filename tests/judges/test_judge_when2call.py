"""When2Call's four ready responses per row, labelled by the judge path with the mock judge
(and by the deterministic classifier): the evaluation script works and is accurate."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import anyio
import pytest

from agentgauge.judges import Judge, JudgeConfig, RuleJudge

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "eval_judge_when2call.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_judge_when2call", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


@pytest.mark.shared_data
def test_when2call_behaviour_accuracy(shared_data: Path) -> None:
    data = shared_data / "when2call" / "when2call_test_llm_judge.jsonl"
    if not data.is_file():
        pytest.skip("When2Call data absent")
    ev = _load()
    judge = Judge(RuleJudge(), JudgeConfig(cache=False))
    tally = anyio.run(ev.evaluate_judge, judge, data, 40)
    assert sum(tally.pairs.values()) == 160
    assert tally.errors == 0
    assert tally.accuracy("tool_call") == 1.0
    assert tally.overall() >= 0.85
    classifier = ev.evaluate_classifier(data, 40)
    if classifier is not None:
        assert classifier.overall() >= 0.85
