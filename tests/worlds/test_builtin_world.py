"""A built-in world: a World implementation registered by name (what a back-end shipped with
agentgauge or a package plugs in as: several instances, tools spread over them), used by a suite
with ``world: {builtin: NAME}`` — built per case and trial, graded, and refused by name when
unknown."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from world_helpers import call, mock, script

from agentgauge.errors import UserError
from agentgauge.io import check_suite, iter_results
from agentgauge.runner import RunConfig, run_suite
from agentgauge.schema import Suite, ToolCall
from agentgauge.worlds import State, World, WorldReply, register_world, state_writes


class _Counter:
    def __init__(self, value: int) -> None:
        self.value = value

    def add(self, n: int) -> int:
        self.value += n
        return self.value


class TwoCounters:
    """Two back-end instances; ``left_add`` / ``right_add`` go to one each (as BFCL's classes
    each own their functions)."""

    def __init__(self, state: State) -> None:
        self.parts = {name: _Counter(int(cfg["value"])) for name, cfg in state.items()}

    @property
    def tool_names(self) -> frozenset[str]:
        return frozenset(f"{name}_add" for name in self.parts)

    def snapshot(self) -> State:
        return {name: {"value": c.value} for name, c in self.parts.items()}

    def apply(self, c: ToolCall) -> WorldReply:
        before = self.snapshot()
        part = self.parts[c.name.removesuffix("_add")]
        try:
            result = part.add(int(c.arguments["n"]))
        except (KeyError, ValueError) as exc:
            return WorldReply(error=f"{type(exc).__name__}: {exc}")
        return WorldReply(result=result, writes=tuple(state_writes(before, self.snapshot())))


@pytest.fixture(autouse=True)
def _registered() -> None:
    register_world("two-counters", TwoCounters)


TOOLS = [{"name": n, "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}
         for n in ("left_add", "right_add")]  # fmt: skip


def suite(builtin: str = "two-counters", **case: Any) -> Suite:
    base: dict[str, Any] = {
        "id": "add",
        "input": "add 2 on the left",
        "expect": {"state": {"checks": [{"path": "left.value", "equals": 3}],
                             "unchanged": ["right"]}},
    }  # fmt: skip
    base.update(case)
    return Suite.model_validate({
        "name": "counters", "tools": TOOLS, "cases": [base],
        "world": {"builtin": builtin, "state": {"left": {"value": 1}, "right": {"value": 10}}},
    })  # fmt: skip


def test_a_registered_world_is_built_per_trial_and_graded(tmp_path: Path) -> None:
    assert isinstance(TwoCounters({"a": {"value": 0}}), World)
    agent = mock(script(call("left_add", n=2), "Done."))
    run_suite(suite(), RunConfig(cache=False, progress=False, trials=2), tmp_path, provider=agent)
    results = list(iter_results(tmp_path))
    assert [r.status for r in results] == ["passed", "passed"], [r.explanation for r in results]
    for r in results:
        assert r.world is not None
        assert r.world.final == {"left": {"value": 3}, "right": {"value": 10}}
        [step] = [e for e in r.trace if e.kind == "tool"]
        assert [(w.path, w.before, w.after) for w in step.writes] == [("left.value", 1, 3)]
    wrong = mock(script(call("right_add", n=2), "Done."))
    run_suite(suite(), RunConfig(cache=False, progress=False), tmp_path / "w", provider=wrong)
    [bad] = iter_results(tmp_path / "w")
    assert bad.status == "failed"
    assert "left.value: expected 3, got 1" in bad.explanation
    assert "right.value: was 10, now 12" in bad.explanation


def test_an_unknown_builtin_world_is_refused_before_the_run(tmp_path: Path) -> None:
    agent = mock(script("Done."))
    with pytest.raises(UserError, match="unknown built-in world 'two-counter' "
                                        r"\(did you mean 'two-counters'\?\)"):  # fmt: skip
        run_suite(suite("two-counter"), RunConfig(cache=False, progress=False), tmp_path,
                  provider=agent)  # fmt: skip
    assert not (tmp_path / "results.jsonl").exists()
    path = tmp_path / "suite.json"
    path.write_text(suite("two-counter").model_dump_json(by_alias=True, exclude_none=True))
    found = [f for f in check_suite(path).findings if f.code == "world-unknown-builtin"]
    assert [f.field for f in found] == ["world.builtin"]


def test_a_builtin_world_is_audited_without_the_suite_code_opt_in() -> None:
    from agentgauge.mutation import audit_suite

    reference = [{"name": "left_add", "arguments": {"n": 2}}]
    s = suite(expect={"state": {"same_as_reference": True, "reference": reference}})
    [case] = audit_suite(s).cases
    assert case.reference.passed is True, case.reference.explanation
    assert {v.axis: v.passed for v in case.verdicts if v.axis.endswith("_write")} == {
        "skip_write": False, "wrong_write": False, "extra_write": False}  # fmt: skip
    assert copy.deepcopy(s.world) == s.world
