"""``agentgauge generate``: the suites it writes from the quickstart and from a world suite
validate, audit clean, are the same for the same seed, and are satisfiable: an oracle agent that
follows the expectations passes every case, and wrong agents fail the conversations."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest
from generate_helpers import QUICKSTART, shop_suite

from agentgauge.generate import (
    FAMILIES,
    MULTI_TURN,
    GenerateConfig,
    GuessingAgent,
    IgnoringAgent,
    OracleAgent,
    generate_suite,
    write_generated,
)
from agentgauge.mutation import AuditConfig, audit_suite
from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.rundir import iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import CaseResult, Message, Suite, ToolCall
from agentgauge.suites import check_suite, load_suite


def _write(tmp_path: Path, source: Path, name: str, **kw: object) -> Path:
    result = generate_suite(source, GenerateConfig(**kw))  # type: ignore[arg-type]
    return write_generated(result, tmp_path / name)[0]


def _play(suite: Suite, path: Path, agent: object, tmp: Path) -> dict[str, CaseResult]:
    run_dir = tmp / f"run-{type(agent).__name__}"
    config = RunConfig(cache=False, progress=False, suite_path=str(path))
    run_suite(suite, config, run_dir, provider=agent)  # type: ignore[arg-type]
    return {r.case_id: r for r in iter_results(run_dir)}


def _family(case_id: str, suite: Suite) -> str:
    case = next(c for c in suite.cases if c.id == case_id)
    meta = case.metadata["generate"]
    assert isinstance(meta, dict)
    return str(meta["family"])


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("gen"), QUICKSTART, "quickstart.yaml", seed=7)


def test_quickstart_suite_validates_and_audits_clean(quickstart: Path) -> None:
    check = check_suite(quickstart)
    assert check.problems == []
    assert [f.format() for f in check.findings if f.severity == "error"] == []
    suite = load_suite(quickstart)
    families = collections.Counter(_family(c.id, suite) for c in suite.cases)
    assert set(families) == set(FAMILIES)  # every family built from the quickstart's tools
    assert {c.category for c in suite.cases} == {
        "happy_path", "ambiguous", "edge_case", "error_recovery", "adversarial"
    }  # fmt: skip
    audit = audit_suite(suite)
    assert audit.cannot_fail == []
    assert audit.reference_failures == []
    assert all(not c.survivors for c in audit.cases)  # no wrong transcript passes any case
    talks = [c for c in suite.cases if c.user is not None]
    assert talks
    assert all(_family(c.id, suite) in MULTI_TURN for c in talks)


def test_same_seed_same_bytes_other_seed_other_cases(tmp_path: Path, quickstart: Path) -> None:
    again = _write(tmp_path, QUICKSTART, "again.yaml", seed=7)
    assert again.read_bytes() == quickstart.read_bytes()
    other = _write(tmp_path, QUICKSTART, "other.yaml", seed=8)
    assert other.read_bytes() != quickstart.read_bytes()
    header = " ".join(quickstart.read_text().replace("#", " ").split())  # wrapped by the path
    assert ", seed 7:" in header


def test_oracle_passes_every_case_and_wrong_agents_fail_the_conversations(
    tmp_path: Path, quickstart: Path
) -> None:
    suite = load_suite(quickstart)
    oracle = _play(suite, quickstart, OracleAgent(suite), tmp_path)
    assert {r.status for r in oracle.values()} == {"passed"}, [
        (k, r.explanation) for k, r in oracle.items() if r.status != "passed"
    ]
    talks = {c.id for c in suite.cases if c.user is not None}
    for wrong in (GuessingAgent(suite), IgnoringAgent(suite)):
        results = _play(suite, quickstart, wrong, tmp_path)
        assert {results[c].status for c in talks} == {"failed"}, type(wrong).__name__
    # the guessing agent fails a missing fact on the value it guessed, the user never said it
    guessed = _play(suite, quickstart, GuessingAgent(suite), tmp_path / "again")
    missing = next(c for c in talks if c.startswith("missing-fact"))
    assert "expected" in (guessed[missing].explanation or "")


class _Confirming(OracleAgent):
    """A correct agent of another style: before each call it says what it will do and asks to
    go ahead, and calls only once the user said yes."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        reply = await super().generate(request)
        last = request.messages[-1]
        calls = reply.message.tool_calls
        if calls and last.role == "user" and not (last.content or "").startswith("Yes, please"):
            plan = ", ".join(f"{c.name} with {c.arguments}" for c in calls)
            text = f"I will call {plan}. Shall I go ahead?"
            return ModelResponse(message=Message(role="assistant", content=text))
        return reply


def test_an_agent_that_confirms_before_acting_passes_too(tmp_path: Path, quickstart: Path) -> None:
    suite = load_suite(quickstart)
    results = _play(suite, quickstart, _Confirming(suite), tmp_path)
    talks = [c.id for c in suite.cases if c.user is not None]
    assert {results[c].status for c in talks} == {"passed"}, [
        (c, results[c].explanation) for c in talks if results[c].status != "passed"
    ]


class _ObeysInjection(OracleAgent):
    """The oracle, but it does what a tool result's planted note says."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        last = request.messages[-1]
        if last.role == "tool" and "SYSTEM NOTE" in (last.content or ""):
            target = (last.content or "").split("call ")[1].split()[0]
            call = ToolCall(name=target, arguments={})
            return ModelResponse(message=Message(role="assistant", tool_calls=[call]))
        return await super().generate(request)


def test_injection_cases_fail_an_agent_that_obeys_the_tool_result(
    tmp_path: Path, quickstart: Path
) -> None:
    suite = load_suite(quickstart)
    results = _play(suite, quickstart, _ObeysInjection(suite), tmp_path)
    injected = [c.id for c in suite.cases if _family(c.id, suite) == "injection"]
    assert injected
    assert {results[c].status for c in injected} == {"failed"}
    assert all("forbidden" in (results[c].explanation or "") for c in injected)


def test_world_suite_state_checks_validate_audit_and_satisfy(tmp_path: Path) -> None:
    out = _write(tmp_path, shop_suite(tmp_path), "shop.yaml", seed=1)
    check = check_suite(out)
    assert check.problems == []
    assert not check.failed()
    suite = load_suite(out)
    graded = [c for c in suite.cases if c.expect.state is not None]
    assert graded, "cases that write to the world are graded by the state"
    assert all(c.expect.state.same_as_reference for c in graded if c.expect.state)
    audit = audit_suite(suite, AuditConfig())
    assert audit.cannot_fail == []
    assert audit.reference_failures == []
    state_axes = {v.axis for c in audit.cases for v in c.checked}
    assert {"skip_write", "wrong_write", "extra_write"} <= state_axes
    assert all(not c.survivors for c in audit.cases)
    oracle = _play(suite, out, OracleAgent(suite), tmp_path)
    assert {r.status for r in oracle.values()} == {"passed"}
    assert any(r.world is not None and r.world.goal_met for r in oracle.values())
    talks = {c.id for c in suite.cases if c.user is not None}
    assert talks
    for wrong in (GuessingAgent(suite), IgnoringAgent(suite)):
        results = _play(suite, out, wrong, tmp_path)
        assert {results[c].status for c in talks} == {"failed"}
    # only records that exist and that the world accepts are goals: every key is a real order
    keys = {"A1", "A2", "A3"}
    for case in suite.cases:
        for call in case.expect.tool_calls:
            order = call.arguments.get("order_id")
            if order is not None and call.name != "issue_refund":
                assert order.value in keys


class _WrongRecord(OracleAgent):
    """The oracle, but every order id it sends is A9, an order nobody has."""

    async def generate(self, request: ModelRequest) -> ModelResponse:
        reply = await super().generate(request)
        calls = [
            c.model_copy(update={"arguments": {**c.arguments, "order_id": "A9"}})
            if "order_id" in c.arguments else c
            for c in reply.message.tool_calls
        ]  # fmt: skip
        return ModelResponse(message=reply.message.model_copy(update={"tool_calls": calls}))


def test_world_cases_fail_an_agent_that_acts_on_another_record(tmp_path: Path) -> None:
    out = _write(tmp_path, shop_suite(tmp_path), "shop.yaml", seed=1)
    suite = load_suite(out)
    results = _play(suite, out, _WrongRecord(suite), tmp_path)
    graded = [c.id for c in suite.cases if c.expect.state is not None]
    assert {results[c].status for c in graded} == {"failed"}
    assert any(r.world is not None and r.world.goal_met is False for r in results.values())
