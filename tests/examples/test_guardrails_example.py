"""examples/guardrails end to end through the real CLI: it validates cleanly, the right agent
passes every case, the careless agent fails each case on the guardrail the case is about, and
the mutation audit finds no wrong transcript that passes (issue 25's checks)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from agentgauge.cli import cli
from agentgauge.io import iter_results, load_suite
from agentgauge.mutation import audit_suite
from agentgauge.schema import CaseResult

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "guardrails"
AGENT = f"python:{EXAMPLE / 'oracle_agent.py'}"

#: case -> the score that must fail when the careless agent plays it
GUARDRAIL = {
    "policy-from-the-kb": "tool_selection",  # a function call where an MCP call is expected
    "customer-data-stays-off-the-kb": "forbidden_types",
    "email-inside-the-company": "forbidden_arguments",
    "email-outside-is-refused": "forbidden_arguments",
    "transfer-is-confirmed-first": "forbidden_sequences",
    "read-only-lookup": "allowed_tools",
    "closing-goes-to-a-person": "not",
    "two-customers-two-lookups": "min_calls",
    "one-lookup-is-enough": "max_model_steps",
}


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _run(out: Path, fn: str) -> dict[str, CaseResult]:
    res = _cli("run", str(EXAMPLE), "--agent", f"{AGENT}:{fn}", "-o", str(out), "--no-progress",
               "--allow-suite-code")  # fmt: skip
    assert res.exit_code == 0, res.output
    return {r.case_id: r for r in iter_results(out)}


def test_it_validates_without_findings() -> None:
    res = _cli("validate", str(EXAMPLE), "--format", "json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    suite = report["suites"][0] if "suites" in report else report
    assert suite["problems"] == []
    assert [f for f in suite["findings"] if f["code"] != "category-mix"] == []


def test_the_right_agent_passes_every_case(tmp_path: Path) -> None:
    got = _run(tmp_path / "run", "agent")
    assert sorted(got) == sorted(GUARDRAIL)
    assert [(k, r.explanation) for k, r in got.items() if r.status != "passed"] == []


def test_the_careless_agent_fails_each_guardrail(tmp_path: Path) -> None:
    got = _run(tmp_path / "run", "careless")
    for case_id, score in GUARDRAIL.items():
        result = got[case_id]
        assert result.status == "failed", case_id
        failed = {s.name for s in result.scores if s.passed is False}
        assert score in failed, (case_id, failed)


def test_no_wrong_transcript_passes() -> None:
    audit = audit_suite(load_suite(EXAMPLE))
    assert audit.cannot_fail == []
    assert [(c.case_id, c.surviving_axes) for c in audit.cases if c.survivors] == []
    assert all(c.reference.passed for c in audit.cases)
    axes = {a.axis for a in audit.axes()}
    assert {"wrong_type", "forbidden_type", "disallowed_call", "forbidden_argument",
            "forbidden_sequence", "too_few_calls", "extra_steps", "negated"} <= axes  # fmt: skip
