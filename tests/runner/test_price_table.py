"""The price table: known models, dated names, free local agents, unknown models."""

from __future__ import annotations

from pathlib import Path

import pytest
from runner_helpers import agent, make_suite

from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, cost_usd, run_suite
from agentgauge.schema import Usage

MILLION = Usage(input_tokens=1_000_000, output_tokens=1_000_000)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o-mini", 0.75),
        ("openai:gpt-4o-mini", 0.75),
        ("gpt-4o-mini-2024-07-18", 0.75),
        ("gpt-4o", 12.5),
        ("claude-3-5-haiku-20241022", 4.8),
        ("local:smollm2", 0.0),
        ("mock:", 0.0),
        ("some-unknown-model", None),
    ],
)
def test_cost_per_model(model: str, expected: float | None) -> None:
    cost = cost_usd(model, MILLION)
    assert cost == (pytest.approx(expected) if expected is not None else None)


def test_mock_agent_costs_nothing_and_unknown_has_no_cost(tmp_path: Path) -> None:
    suite = make_suite([{"id": "a", "input": "hi"}])
    cfg = RunConfig(progress=False, cache=False)
    run_suite(suite, cfg, tmp_path / "m", provider=agent("ok", name="mock:x"))
    [r] = list(iter_results(tmp_path / "m"))
    assert r.cost_usd == 0.0
    run_suite(suite, cfg, tmp_path / "u", provider=agent("ok", name="openai:mystery"))
    [r] = list(iter_results(tmp_path / "u"))
    assert r.cost_usd is None
    assert r.trace[0].cost_usd is None
