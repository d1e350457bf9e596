"""Runner tests score with a stand-in scorer: they test the runner, not the scoring engine."""

from __future__ import annotations

import pytest
from runner_helpers import simple_score


@pytest.fixture(autouse=True)
def _stand_in_scorer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("agentgauge.scoring.score_case", simple_score)
