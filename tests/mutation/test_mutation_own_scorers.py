"""The audit runs a suite's own ``python:`` scorers when the user allows suite code: a check of
one's own that fails every transcript (or crashes) is found like a built-in one, and one that
catches a wrong transcript counts. Without the opt-in it is listed as skipped, never imported.
Before, the audit never ran them: a broken own check looked clean."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge._suite_code import SuiteCodePolicy
from agentgauge.mutation import AuditConfig, audit_suite
from agentgauge.suites import load_suite

SUITE = """\
name: own-checks
tools:
  - name: price
    description: Price of an item.
    parameters: {type: object, properties: {item: {type: string}}, required: [item]}
    simulation: {result: {item: lamp, usd: 42}}
scorers:
  - scorer: python:checks.py:SCORER
cases:
  - id: lamp
    input: How much is the lamp?
    expect:
      tool_calls: [{name: price, arguments: {item: lamp}}]
      reference: "The lamp costs 42 dollars."
"""

CHECKS = """\
from pathlib import Path

from agentgauge.judges import ScoreResult

Path(__file__).with_name("imported").write_text("yes")


def never(ctx):
    return ScoreResult(passed=False, explanation="this check fails everything")


def quotes_price(ctx):
    ok = "42" in ctx.reply and "lamp" in ctx.reply
    return ScoreResult(passed=ok, explanation="price quoted" if ok else "no price in the reply")


def crashes(ctx):
    raise RuntimeError("boom")
"""


def _suite(tmp_path: Path, scorer: str) -> Path:
    (tmp_path / "checks.py").write_text(CHECKS, encoding="utf-8")
    path = tmp_path / "suite.yaml"
    path.write_text(SUITE.replace("checks.py:SCORER", scorer), encoding="utf-8")
    return path


def _audit(path: Path, allow: bool):  # type: ignore[no-untyped-def]
    code = SuiteCodePolicy.for_suite(path, allow)
    return audit_suite(load_suite(path), AuditConfig(code=code))


def test_an_own_check_that_fails_everything_is_found_with_the_opt_in(tmp_path: Path) -> None:
    path = _suite(tmp_path, "checks.py:never")
    audit = _audit(path, allow=True)
    assert [c.case_id for c in audit.reference_failures] == ["lamp"]
    assert "this check fails everything" in audit.cases[0].reference.explanation  # type: ignore[union-attr]
    assert audit.skipped_scorers == ()


def test_without_the_opt_in_an_own_check_is_listed_and_never_imported(tmp_path: Path) -> None:
    path = _suite(tmp_path, "checks.py:never")
    audit = _audit(path, allow=False)
    assert audit.reference_failures == []
    [skipped] = audit.skipped_scorers
    assert skipped.scorer == "python:checks.py:never"
    assert "--allow-suite-code" in skipped.reason
    assert not (tmp_path / "imported").exists()


def test_an_own_check_outside_the_suite_folder_is_not_run_even_with_the_opt_in(
    tmp_path: Path,
) -> None:
    inner = tmp_path / "suite"
    inner.mkdir()
    path = _suite(inner, "../checks.py:never")
    (tmp_path / "checks.py").write_text(CHECKS, encoding="utf-8")
    audit = _audit(path, allow=True)
    [skipped] = audit.skipped_scorers
    assert skipped.reason.startswith("not run: ")
    assert not (tmp_path / "imported").exists()
    assert not (inner / "imported").exists()
    assert audit.reference_failures == []


def test_a_crashing_own_check_leaves_its_transcripts_undecided(tmp_path: Path) -> None:
    audit = _audit(_suite(tmp_path, "checks.py:crashes"), allow=True)
    ref = audit.cases[0].reference
    assert ref is not None
    assert ref.passed is None
    assert "scorer 'crashes' crashed: RuntimeError: boom" in ref.explanation


@pytest.mark.parametrize("allow", [True, False])
def test_a_working_own_check_keeps_the_audit_clean(tmp_path: Path, allow: bool) -> None:
    audit = _audit(_suite(tmp_path, "checks.py:quotes_price"), allow=allow)
    assert audit.reference_failures == []
    assert not audit.failed
