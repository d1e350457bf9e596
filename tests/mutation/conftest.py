"""Fixtures of the mutation tests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def lax_scoring(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deliberately weak scorer: any transcript with a tool call passes (names, order and
    counts are not looked at), to show the axes such a check could never fail on are found."""
    from agentgauge.scoring import CaseScore

    def lax(case: Any, turns: Any, tools: Any, config: Any) -> CaseScore:
        called = any(m.tool_calls for turn in turns for m in turn)
        return CaseScore(status="passed" if called else "failed", score=float(called))

    monkeypatch.setattr("agentgauge.mutation._audit.score_case", lax)
