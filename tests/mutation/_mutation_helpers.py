"""Helpers of the mutation tests: small suites built in memory."""

from __future__ import annotations

from typing import Any

from agentgauge.mutation import AuditConfig, CaseAudit, audit_suite
from agentgauge.schema import Suite
from agentgauge.scoring import ScoringConfig

TOOLS: list[dict[str, Any]] = [
    {
        "name": "a",
        "parameters": {
            "type": "object",
            "properties": {
                "x": {"type": "integer"},
                "h": {
                    "type": "object",
                    "default": {},
                    "properties": {"k": {"type": "string", "default": "v"}},
                },
            },
            "required": ["x"],
        },
    },
    {
        "name": "b",
        "parameters": {
            "type": "object",
            "properties": {"y": {"type": "string"}},
            "required": ["y"],
        },
    },
]


def audit(*cases: dict[str, Any], mode: str = "default", **suite: Any) -> dict[str, CaseAudit]:
    """Audit ``cases`` (over TOOLS) and index the result by case id."""
    built = Suite.model_validate({"name": "t", "tools": TOOLS, "cases": list(cases), **suite})
    config = AuditConfig(scoring=ScoringConfig(mode=mode))  # type: ignore[arg-type]
    return {c.case_id: c for c in audit_suite(built, config).cases}


def axis(case: CaseAudit, name: str) -> list[bool | None]:
    """What the scorers said about the mutants of one axis (True: the wrong transcript passed)."""
    got = [v.passed for v in case.verdicts if v.axis == name]
    assert got, f"no {name} mutant was built for {case.case_id}"
    return got
