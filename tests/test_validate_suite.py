"""``validate_suite``: what ``agentgauge validate`` prints, as one library call."""

from __future__ import annotations

from pathlib import Path

from agentgauge.runner import ValidateConfig, validate_suite

QUICKSTART = Path(__file__).resolve().parents[1] / "examples" / "quickstart"


def test_the_quickstart_validates_and_audits_clean() -> None:
    v = validate_suite(QUICKSTART, ValidateConfig(mutate=True))
    assert not v.failed(strict=False)
    assert v.audit is not None
    assert v.audit.cannot_fail == []


def test_a_case_that_cannot_fail_fails_only_with_the_audit(tmp_path: Path) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: weak\n"
        "tools:\n  - {name: lookup, description: Find, parameters: {type: object}}\n"
        "cases:\n  - {id: anything-goes, input: hi, expect: {reference: It is sunny.}}\n"
    )
    plain = validate_suite(suite)
    assert plain.audit is None
    audited = validate_suite(suite, ValidateConfig(mutate=True))
    assert audited.audit is not None
    assert [c.case_id for c in audited.audit.cannot_fail] == ["anything-goes"]
    assert audited.failed(strict=False)
    assert any(f.code == "cannot-fail" for f in audited.audit_findings)


def test_refused_suite_code_is_an_error_finding_and_nothing_is_imported(tmp_path: Path) -> None:
    (tmp_path / "fakes.py").write_text(
        "open(__file__ + '.IMPORTED', 'w').close()\ndef f(**kw):\n    return {}\n"
    )
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "name: code\n"
        "tools:\n  - name: lookup\n    description: Find\n    parameters: {type: object}\n"
        "    simulation: {function: 'subprocess:getoutput'}\n"
        "  - name: local\n    description: Here\n    parameters: {type: object}\n"
        "    simulation: {function: 'fakes.py:f'}\n"
        "cases:\n  - {id: a, input: hi, expect: {tool_calls: [{name: lookup}]}}\n"
    )
    v = validate_suite(suite, ValidateConfig(allow_suite_code=False))
    errors = [f for f in v.check.findings if f.code == "suite-code" and f.severity == "error"]
    assert errors
    assert all(f.line for f in errors)
    assert v.failed(strict=False)
    assert {u.ref.spec for u in v.code} == {"subprocess:getoutput", "fakes.py:f"}
    assert not (tmp_path / "fakes.py.IMPORTED").exists()
