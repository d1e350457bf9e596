"""The mutation audit over every importer's output on the real datasets (skipped when
../shared/data is absent). Each source is sampled (at most 200 cases, seeded) to keep the
test short; docs/mutation.md has the full counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.io.importers import import_suite
from agentgauge.mutation import AuditConfig, audit_case, audit_suite

pytestmark = pytest.mark.shared_data

SAMPLE = AuditConfig(sample=200, seed=17)

#: (importer, source path under shared/data)
SOURCES = [
    ("when2call", "when2call/when2call_test_llm_judge.jsonl"),
    ("acebench", "acebench"),
    ("tooltalk", "tooltalk"),
    *(
        ("bfcl", f"bfcl-v4/BFCL_v4_{c}.json")
        for c in (
            "simple_python",
            "multiple",
            "parallel",
            "parallel_multiple",
            "irrelevance",
            "live_simple",
            "live_multiple",
            "live_parallel",
            "live_parallel_multiple",
            "live_relevance",
            "live_irrelevance",
        )
    ),
]


@pytest.mark.parametrize(("fmt", "source"), SOURCES, ids=[s for _, s in SOURCES])
def test_every_source_audits(shared_data: Path, fmt: str, source: str) -> None:
    suite = import_suite(fmt, [shared_data / source])
    got = audit_suite(suite, SAMPLE)
    assert len(got.cases) == min(200, len(suite.cases))
    for case in got.cases:
        # every case gets wrong transcripts, and the scorers decided each of them
        assert case.verdicts, case.case_id
        assert all(v.passed is not None for v in case.verdicts), case.case_id
        assert case.reference.passed is not None, (case.case_id, case.reference.explanation)
    # the public benchmarks' cases can all fail on something
    assert got.cannot_fail == []


def test_bfcl_cases_no_agent_can_pass(shared_data: Path) -> None:
    # BFCL's own ground truth lists no acceptable value for two required arguments
    suite = import_suite("bfcl", [shared_data / "bfcl-v4" / "BFCL_v4_live_simple.json"])
    case = next(c for c in suite.cases if c.id == "live_simple_106-63-0")
    got = audit_case(case, suite)
    assert got.reference.passed is False
    assert "accepts no value" in got.reference.explanation


def test_bfcl_references_pass(shared_data: Path) -> None:
    suite = import_suite("bfcl", [shared_data / "bfcl-v4" / "BFCL_v4_simple_python.json"])
    got = audit_suite(suite, SAMPLE)
    assert got.reference_failures == []
    assert got == audit_suite(suite, SAMPLE)  # deterministic
