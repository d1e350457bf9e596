"""Running the quickstart suite through a framework adapter against the loopback fake model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quickstart_model import QUICKSTART

from agentgauge.io import iter_results, load_suite
from agentgauge.providers import resolve_provider
from agentgauge.runner import RunConfig, RunOutcome, run_suite
from agentgauge.schema import CaseResult


def run_quickstart(spec: str, out: Path, **config: Any) -> tuple[RunOutcome, dict[str, CaseResult]]:
    suite = load_suite(QUICKSTART / "suite.yaml")
    provider = resolve_provider(spec)
    cfg = RunConfig(cache=False, progress=False, suite_path=str(QUICKSTART), **config)
    outcome = run_suite(suite, cfg, out, provider=provider)
    return outcome, {r.case_id: r for r in iter_results(out)}


def tool_results(result: CaseResult) -> list[Any]:
    return [e.result for e in result.trace if e.kind == "tool"]
