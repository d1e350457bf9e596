"""examples/retail: a support agent under a written policy, graded by the final state of a
Python world (store.py). The oracle passes every case and the gates; ``hasty``, a wrong agent
that says and calls what the oracle does, passes every call-level check and fails on the state
alone; the mutation audit (state mutants included) is clean; the committed files are what the
generator writes; the back-end refuses what an order system would, and only that."""

from __future__ import annotations

import json
import runpy
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agentgauge.cli import cli
from agentgauge.rundir import iter_results
from agentgauge.schema import CaseResult

RETAIL = Path(__file__).resolve().parents[2] / "examples" / "retail"
CATEGORIES = {"happy_path": 13, "ambiguous": 8, "edge_case": 8, "adversarial": 6,
              "error_recovery": 5}  # fmt: skip
CASES = sum(CATEGORIES.values())


def _cli(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _run(out: Path, agent: str = "agent", *extra: str) -> list[CaseResult]:
    res = _cli(
        "run", str(RETAIL), "--allow-suite-code", "--no-progress", "--no-cache", "-o", str(out),
        "--agent", f"python:{RETAIL / 'oracle_agent.py'}:{agent}", *extra,
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    return list(iter_results(out))


def _summary(run_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run_dir / "summary.json").read_text())
    return data


def _is_state(score_name: str) -> bool:
    return score_name.rsplit(".", 1)[-1] == "state"


def test_retail_validates_cleanly_with_its_category_mix() -> None:
    res = _cli("validate", str(RETAIL), "--allow-suite-code", "--format", "json")
    assert res.exit_code == 0, res.output
    suite = json.loads(res.output)
    suite = suite["suites"][0] if "suites" in suite else suite
    assert [f for f in suite["findings"] if f["severity"] == "error"] == []
    assert suite["problems"] == []
    lines = (RETAIL / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert Counter(json.loads(line)["category"] for line in lines) == CATEGORIES


def test_oracle_passes_every_case_and_the_gates(tmp_path: Path) -> None:
    results = _run(tmp_path / "run", "agent", "--gate")
    assert len(results) == CASES
    assert [(r.case_id, r.explanation) for r in results if r.status != "passed"] == []
    assert all(r.world is not None and r.world.goal_met for r in results)
    assert _summary(tmp_path / "run")["overall"]["goal_completion"]["passed"] == CASES


def test_every_trial_starts_from_a_fresh_store(tmp_path: Path) -> None:
    """Two trials of each case: a store shared between trials would have the order cancelled
    (or the return filed) already in the second, and its state checks would fail."""
    results = _run(tmp_path / "run", "agent", "--trials", "2", "--filter", "cancel-*")
    assert len(results) == 2 * 7
    assert {r.trial for r in results} == {0, 1}
    assert all(r.status == "passed" for r in results), [r.explanation for r in results]


def test_hasty_passes_every_call_check_and_fails_on_the_state(tmp_path: Path) -> None:
    results = _run(tmp_path / "run", "hasty")
    moves = [s for r in results for s in r.scores if not _is_state(s.name)]
    state = [s for r in results for s in r.scores if _is_state(s.name)]
    # every call-level check passes: tools, arguments, behaviour, reply, forbidden tools
    assert [s.explanation for s in moves if s.passed is False] == []
    assert sum(s.passed is True for s in moves) == 220
    # ... and the outcome fails 35 of the 77 state checks, in 31 of the 40 cases
    assert (sum(s.passed is False for s in state), len(state)) == (35, 77)
    failed = {r.case_id for r in results if r.status == "failed"}
    assert len(failed) == 31
    for r in results:
        if r.case_id in failed:
            assert (r.explanation or "").startswith(
                "outcome failed (the state is wrong); moves passed"
            )
    goal = _summary(tmp_path / "run")["overall"]["goal_completion"]
    assert (goal["passed"], goal["n"]) == (9, CASES)
    gate = _cli("gate", str(tmp_path / "run"))
    assert gate.exit_code == 1
    assert "FAIL goal completion" in gate.output


def _without_state(case: dict[str, Any]) -> dict[str, Any]:
    """The case with every ``expect.state`` removed (its own and each turn's)."""
    out = {**case, "expect": {k: v for k, v in case["expect"].items() if k != "state"}}
    if "turns" in case:
        out["turns"] = [
            {**t, "expect": {k: v for k, v in (t.get("expect") or {}).items() if k != "state"}}
            for t in case["turns"]
        ]
    return out


def test_hasty_passes_every_case_once_the_state_checks_are_removed(tmp_path: Path) -> None:
    """The proof that only outcome grading catches hasty: the same 40 cases, the same agent,
    every ``expect.state`` deleted — and every case passes."""
    copy = tmp_path / "retail"
    copy.mkdir()
    for name in ("suite.yaml", "store.py", "store.yaml", "oracle_agent.py", "oracle_plan.json"):
        (copy / name).write_bytes((RETAIL / name).read_bytes())
    lines = (RETAIL / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    stripped = [_without_state(json.loads(line)) for line in lines]
    assert all("state" not in json.dumps(c["expect"]) for c in stripped)
    (copy / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in stripped))
    res = _cli(
        "run", str(copy), "--allow-suite-code", "--no-progress", "--no-cache", "--no-history",
        "-o", str(tmp_path / "run"), "--agent", f"python:{copy / 'oracle_agent.py'}:hasty",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    results = list(iter_results(tmp_path / "run"))
    assert len(results) == CASES
    assert [(r.case_id, r.explanation) for r in results if r.status != "passed"] == []
    assert not any(_is_state(s.name) for r in results for s in r.scores)


ASKER = """
from agentgauge.schema import ToolCall

def agent(messages, tools):
    # a weak agent: asks in its own words, looks the customer up once, then says nothing
    said = [m.content or "" for m in messages if m.role == "assistant" and m.content]
    if not said:
        return "Could you tell me the order id? And the item ids?"
    if messages[-1].role == "user" and "@" in (messages[-1].content or ""):
        return ToolCall(name="find_customer", arguments={"email": "x@example.com"})
    return ""
"""


def test_a_weak_agent_is_graded_never_excused_as_the_users_error(tmp_path: Path) -> None:
    """The scripted users answer the questions agents ask in their own words ("the order id",
    "the item ids") and have a line for a reply they cannot answer (an empty one): the weak
    agent's conversations end as its own failures, not as user errors left out of its rates."""
    agent = tmp_path / "asker.py"
    agent.write_text(ASKER)
    res = _cli(
        "run", str(RETAIL), "--allow-suite-code", "--no-progress", "--no-cache", "--no-history",
        "-o", str(tmp_path / "run"), "--agent", f"python:{agent}:agent", "--filter", "user",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    results = {r.case_id: r for r in iter_results(tmp_path / "run")}
    assert set(results) == {"user-cancel-asks-email", "user-keeps-order", "user-return-which-item"}
    assert {c: r.status for c, r in results.items()} == dict.fromkeys(results, "failed")
    asked = results["user-cancel-asks-email"]
    users = [m.content for m in asked.messages if m.role == "user"]
    assert "W1014" in " ".join(users[1:])  # given when asked for "the order id"


@pytest.mark.parametrize(
    ("case_id", "what"),
    [
        # 1. the change made in the turn that asks for confirmation
        (
            "cancel-user-says-no",
            "final state: orders.W1005.status: expected 'pending', got 'cancelled'",
        ),
        ("user-keeps-order", "orders.W1005.refund: expected absent"),  # a simulated user
        # 2. the change the policy refuses, made while saying it cannot be
        ("window-day-31", "orders.W1008.items"),
        ("someone-elses-order", "orders.W1004.status"),
        # 3. the re-addressed order's address written into the profile too
        ("readdress-order", "customers.C105.default_address.line1"),
    ],
)
def test_each_of_hastys_habits_is_caught_by_the_state(
    tmp_path: Path, case_id: str, what: str
) -> None:
    (result,) = _run(tmp_path / "run", "hasty", "--filter", case_id)
    assert result.status == "failed"
    assert what in (result.explanation or "")
    assert all(s.passed is not False for s in result.scores if not _is_state(s.name))


def test_another_right_choice_passes_a_state_graded_case(tmp_path: Path) -> None:
    """return-which-tee: either of the two identical tees is right; the state checks accept
    the one the oracle does not pick."""
    agent = tmp_path / "other_tee.py"
    agent.write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(RETAIL)!r})\n"
        "import oracle_agent\n"
        "from agentgauge.schema import ToolCall\n\n"
        "def agent(messages, tools):\n"
        "    out = oracle_agent.agent(messages, tools)\n"
        "    if isinstance(out, list):\n"
        "        out = [ToolCall(name=c.name, arguments={**c.arguments, 'item_ids': ['I2']})\n"
        "               if c.name == 'return_items' else c for c in out]\n"
        "    return out\n"
    )
    res = _cli(
        "run", str(RETAIL), "--allow-suite-code", "--no-progress", "--no-cache",
        "-o", str(tmp_path / "run"), "--agent", f"python:{agent}:agent",
        "--filter", "return-which-tee",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    (result,) = iter_results(tmp_path / "run")
    assert result.status == "passed", result.explanation
    assert result.world is not None
    assert result.world.final["orders"]["W1009"]["items"][1]["status"] == "return_requested"  # type: ignore[index,call-overload]


def test_the_mutation_audit_is_clean_with_state_mutants() -> None:
    res = _cli(
        "validate", "--mutate", "--strict", str(RETAIL), "--allow-suite-code", "--format", "json"
    )
    assert res.exit_code == 0, res.output
    suite = json.loads(res.output)
    audit = (suite["suites"][0] if "suites" in suite else suite)["mutation"]
    assert audit["cases"] == CASES
    assert (audit["passed_mutants"], audit["cannot_fail"], audit["reference_failures"]) == (
        0,
        [],
        [],
    )
    axes = audit["axes"]
    assert all(a["passed"] == 0 for a in axes.values())
    # every case gets an extra write; the 29 that write something a skipped and a wrong one
    assert {k: axes[k]["cases"] for k in ("extra_write", "skip_write", "wrong_write")} == {
        "extra_write": CASES, "skip_write": 29, "wrong_write": 29}  # fmt: skip


def test_the_store_is_not_run_without_permission(tmp_path: Path) -> None:
    res = _cli(
        "run", str(RETAIL), "--no-progress", "-o", str(tmp_path / "r"),
        "--agent", f"python:{RETAIL / 'oracle_agent.py'}:agent",
    )  # fmt: skip
    assert res.exit_code == 2
    assert "--allow-suite-code" in res.output


def _forget_modules_in(folder: Path) -> None:
    root = folder.resolve()
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve().is_relative_to(root):
            del sys.modules[name]


def test_committed_cases_and_plan_are_what_the_generator_writes() -> None:
    try:
        generated = runpy.run_path(str(RETAIL / "make_cases.py"), run_name="generator")
    finally:
        _forget_modules_in(RETAIL)
    lines = (RETAIL / "cases.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == generated["CASES"]
    plan = json.loads((RETAIL / "oracle_plan.json").read_text(encoding="utf-8"))
    assert plan == json.loads(json.dumps(generated["PLAN"]))


# ---------------------------------------------------------------- the back-end


@pytest.fixture
def store() -> Any:
    import yaml

    module = runpy.run_path(str(RETAIL / "store.py"))
    state = yaml.safe_load((RETAIL / "store.yaml").read_text(encoding="utf-8"))
    return module["Store"](state), module["StoreError"]


def test_the_store_refuses_what_an_order_system_would(store: Any) -> None:
    shop, error = store
    with pytest.raises(error, match="W1006 is shipped; only a pending order can be cancelled"):
        shop.cancel_order("W1006", "no_longer_needed")
    with pytest.raises(error, match="item I1 of order W1011 is return_requested"):
        shop.return_items("W1011", ["I1"], "card-7070")
    with pytest.raises(error, match="V-TEE-BLK-L is out of stock"):
        shop.exchange_items("W1002", ["I2"], ["V-TEE-BLK-L"], "card-4242")
    with pytest.raises(error, match="must be the order's payment method"):
        shop.return_items("W1013", ["I1"], "gift-7781")  # another customer's gift card
    with pytest.raises(error, match="no customer with email"):
        shop.find_customer("maya.lopes@example.com")
    assert shop.orders["W1006"]["status"] == "shipped"
    assert len(shop.returns) == 1


def test_the_store_computes_refunds_and_leaves_the_policy_to_the_agent(store: Any) -> None:
    shop, _ = store
    filed = shop.return_items("W1015", ["I1", "I2"], "card-9090")
    assert (filed["return_id"], filed["amount"]) == ("RT-1002", 63.0)
    swapped = shop.exchange_items("W1016", ["I1"], ["V-LAMP-BRS"], "card-9090")
    assert swapped["price_difference"] == 10.0
    assert shop.products["P-LAMP"]["variants"]["V-LAMP-BRS"]["stock"] == 1
    # delivered 2026-01-10, outside the 30-day window: the back-end files it anyway, as a
    # support console would; refusing it is the agent's job (window-day-31, past-window-*)
    assert shop.return_items("W1003", ["I1"], "card-4242")["return_id"] == "RT-1003"
