"""Lint of a suite's modules: section: a retrieval / fallback tool the suite does not have, and
module labels nothing can observe (docs/metrics.md#module-metrics)."""

from __future__ import annotations

from typing import Any

from agentgauge.schema import Suite
from agentgauge.suites import lint_suite

TOOLS = [{"name": "search_kb", "parameters": {"type": "object", "properties": {}}}]


def _codes(data: dict[str, Any]) -> list[tuple[str, str | None]]:
    findings = lint_suite(Suite.model_validate({"name": "s", "tools": TOOLS, **data}))
    return [
        (f.code, f.field)
        for f in findings
        if f.code in ("unknown-module-tool", "module-unobservable")
    ]


CASE = {"id": "a", "input": "q", "labels": {"knowledge": ["k1"], "fallback": False}}


def test_a_module_tool_the_suite_does_not_have_is_reported() -> None:
    modules = {
        "retrieval": {"tools": ["search_kb", "serach_kb"]},
        "fallback": {"tools": ["handoff"]},
    }
    codes = _codes({"cases": [CASE], "modules": modules})
    assert ("unknown-module-tool", "modules.retrieval.tools[1]") in codes
    assert ("unknown-module-tool", "modules.fallback.tools[0]") in codes
    assert ("unknown-module-tool", "modules.retrieval.tools[0]") not in codes


def test_module_labels_nothing_can_observe_are_reported() -> None:
    codes = _codes({"cases": [CASE]})
    assert [c for c, _ in codes] == ["module-unobservable", "module-unobservable"]
    fine = {"retrieval": {"tools": ["search_kb"]}, "fallback": {"replies": ["a person"]}}
    assert _codes({"cases": [CASE], "modules": fine}) == []
