"""Running the quickstart suite through a framework adapter against the loopback fake model."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from quickstart_model import QUICKSTART, quickstart_server

from agentgauge.io import iter_results, load_suite
from agentgauge.providers import resolve_provider
from agentgauge.runner import RunConfig, RunOutcome, run_suite
from agentgauge.schema import CaseResult


@pytest.fixture(scope="module")
def fake_server() -> Iterator[str]:
    """The oracle model on 127.0.0.1 (one per test module)."""
    with quickstart_server() as server:
        yield server.base_url


@pytest.fixture
def fake_model(fake_server: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The environment the example agents read their model client from."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake_server)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    monkeypatch.setenv("AGENT_MODEL", "fake-quickstart")
    return fake_server


def run_quickstart(spec: str, out: Path, **config: Any) -> tuple[RunOutcome, dict[str, CaseResult]]:
    suite = load_suite(QUICKSTART / "suite.yaml")
    provider = resolve_provider(spec)
    cfg = RunConfig(cache=False, progress=False, suite_path=str(QUICKSTART), **config)
    outcome = run_suite(suite, cfg, out, provider=provider)
    return outcome, {r.case_id: r for r in iter_results(out)}


def tool_results(result: CaseResult) -> list[Any]:
    return [e.result for e in result.trace if e.kind == "tool"]
