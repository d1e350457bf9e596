"""The mutation audit on worlds: every transcript is played against a fresh world, and turns
that check the state get state mutants (a write skipped, a wrong value, an extra write) — a state
check that cannot tell them from the goal is reported."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from world_helpers import CANCEL_A1, shop_suite

from agentgauge._suite_code import SuiteCodePolicy
from agentgauge.mutation import AuditConfig, audit_case, audit_findings, audit_suite


def verdicts(case: dict[str, Any], **kw: Any) -> dict[str, bool | None]:
    suite = shop_suite([case])
    audit = audit_case(suite.cases[0], suite, AuditConfig(**kw))
    assert audit.reference.passed is not False, audit.reference.explanation
    out: dict[str, bool | None] = {}
    for v in audit.verdicts:
        out[v.axis] = bool(out.get(v.axis)) or v.passed if v.passed is not None else out.get(v.axis)
    return out


def test_checks_without_unchanged_let_an_extra_write_through() -> None:
    checks = CANCEL_A1["expect"]["state"]["checks"]
    case = {**CANCEL_A1, "expect": {**CANCEL_A1["expect"], "state": {"checks": checks}}}
    got = verdicts(case)
    assert got["skip_write"] is False  # the status check catches the skipped write
    assert got["wrong_write"] is False
    assert got["extra_write"] is True  # nothing says the other orders must stay as they were


def test_checks_with_unchanged_catch_every_state_mutant() -> None:
    got = verdicts(CANCEL_A1)
    assert (got["skip_write"], got["wrong_write"], got["extra_write"]) == (False, False, False)
    assert got["no_call"] is False  # no call: nothing written, the state check fails too


def test_a_state_check_that_cannot_fail_is_reported() -> None:
    weak = {
        "id": "weak",
        "input": "Cancel A1",
        "expect": {
            "tool_calls": [{"name": "cancel_order", "arguments": {"order_id": "A1"}}],
            "state": {"checks": [{"path": "orders.A1", "absent": False}]},
        },
    }
    suite = shop_suite([weak])
    audit = audit_suite(suite)
    [case] = audit.cases
    assert {"skip_write", "wrong_write", "extra_write"} <= set(case.surviving_axes)
    messages = [f.message for f in audit_findings(audit)]
    assert any("(skip_write)" in m and "orders.A1.status skipped" in m for m in messages), messages


def test_a_case_graded_by_its_state_alone_audits_clean() -> None:
    by_state = {
        "id": "by-state",
        "input": "Cancel A1 and send A3 to 2 Pine Ave.",
        "expect": {
            "state": {
                "same_as_reference": True,
                "reference": [
                    {"name": "cancel_order", "arguments": {"order_id": "A1"}},
                    {"name": "update_address",
                     "arguments": {"order_id": "A3", "address": "2 Pine Ave"}},
                ],
            }
        },
    }  # fmt: skip
    suite = shop_suite([by_state])
    [case] = audit_suite(suite).cases
    assert case.reference.passed is True, case.reference.explanation
    assert case.survivors == [], [(v.axis, v.detail) for v in case.survivors]
    axes = {v.axis for v in case.verdicts}
    assert {"no_call", "drop_call", "skip_write", "wrong_write", "extra_write"} <= axes


def test_a_python_world_is_audited_only_with_the_opt_in(tmp_path: Path) -> None:
    (tmp_path / "shop.py").write_text(
        "class Shop:\n"
        "    def __init__(self, state):\n"
        "        self.orders = state['orders']\n"
        "    def cancel_order(self, order_id):\n"
        "        self.orders[order_id]['status'] = 'cancelled'\n"
        "        return {'ok': True}\n"
    )
    from world_helpers import STATE

    suite = shop_suite([CANCEL_A1], world={"class": "shop.py:Shop", "state": STATE})
    refused = audit_suite(suite, AuditConfig(code=SuiteCodePolicy(root=tmp_path, allowed=False)))
    [case] = refused.cases
    assert case.reference.passed is None
    assert "--allow-suite-code" in case.reference.explanation
    assert all(v.passed is None for v in case.verdicts if v.axis.endswith("_write"))
    allowed = audit_suite(suite, AuditConfig(code=SuiteCodePolicy(root=tmp_path.resolve(),
                                                                  allowed=True)))  # fmt: skip
    [ok] = allowed.cases
    assert ok.reference.passed is True, ok.reference.explanation
    assert {v.axis: v.passed for v in ok.verdicts if v.axis.endswith("_write")} == {
        "skip_write": False, "wrong_write": False, "extra_write": False}  # fmt: skip
