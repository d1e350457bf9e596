"""Fixtures for judge tests."""

from __future__ import annotations

import pytest

from agentgauge.judges import Judge, JudgeConfig, RuleJudge


@pytest.fixture
def rule_judge() -> Judge:
    """The deterministic rule-based judge (``mock:judge``), without a cache."""
    return Judge(RuleJudge(), JudgeConfig(cache=False))
