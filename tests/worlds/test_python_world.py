"""A Python world class of the suite's folder: suite code behind the opt-in, its methods the
tools, its public attributes (objects followed) the state, each call's writes diffed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import yaml
from world_helpers import TOOLS, call, mock, script

from agentgauge._suite_code import SuiteCodePolicy
from agentgauge.errors import UserError
from agentgauge.io import iter_results
from agentgauge.runner import RunConfig, run_suite_file
from agentgauge.schema import Case, WorldSpec
from agentgauge.worlds import PythonWorld, WorldBuilder, WorldError

SHOP = textwrap.dedent(
    '''
    class Order:
        def __init__(self, status, total):
            self.status = status
            self.total = total
            self._seen = 0          # private: not state


    class Shop:
        """The shop's back-end: orders are objects, not dicts."""

        def __init__(self, state):
            self.orders = {k: Order(**v) for k, v in state["orders"].items()}

        def get_order(self, order_id):
            order = self.orders[order_id]
            order._seen += 1
            return {"id": order_id, "status": order.status}

        def cancel_order(self, order_id):
            order = self.orders[order_id]
            if order.status != "pending":
                raise ValueError(f"order {order_id} is {order.status}")
            order.status = "cancelled"
            return {"id": order_id, "status": "cancelled"}

        def _internal(self):
            return None
    '''
)

STATE = {"orders": {"A1": {"status": "pending", "total": 30}, "A2": {"status": "shipped",
                                                                    "total": 5}}}  # fmt: skip


def write_suite(folder: Path) -> Path:
    (folder / "shop.py").write_text(SHOP)
    suite = {
        "name": "py-shop",
        "tools": [t for t in TOOLS if t["name"] in ("get_order", "cancel_order")],
        "world": {"class": "shop.py:Shop", "state": STATE},
        "cases": [
            {
                "id": "cancel",
                "input": "Cancel A1",
                "expect": {
                    "tool_calls": [{"name": "cancel_order", "arguments": {"order_id": "A1"}}],
                    "state": {
                        "checks": [{"path": "orders.A1.status", "equals": "cancelled"}],
                        "unchanged": ["orders.A2"],
                        "same_as_reference": True,
                    },
                },
            }
        ],
    }
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def builder(folder: Path) -> WorldBuilder:
    write_suite(folder)
    spec = WorldSpec.model_validate({"class": "shop.py:Shop", "state": STATE})
    return WorldBuilder(spec, SuiteCodePolicy(root=folder.resolve(), allowed=True))


def test_methods_are_tools_and_the_state_is_the_public_attributes(tmp_path: Path) -> None:
    w = builder(tmp_path).build(Case(id="c", input="x"))
    assert isinstance(w, PythonWorld)
    assert w.tool_names == {"get_order", "cancel_order"}
    assert w.snapshot() == STATE  # objects become their public attributes
    got = w.apply(call("get_order", order_id="A1"))
    assert got.result == {"id": "A1", "status": "pending"}
    assert got.writes == ()
    done = w.apply(call("cancel_order", order_id="A1"))
    assert [(x.path, x.before, x.after) for x in done.writes] == [
        ("orders.A1.status", "pending", "cancelled")
    ]
    refused = w.apply(call("cancel_order", order_id="A2"))
    assert refused.error == "ValueError: order A2 is shipped"
    assert refused.writes == ()
    bad_args = w.apply(call("cancel_order", id="A1"))
    assert bad_args.error is not None
    assert bad_args.error.startswith("TypeError")
    assert w.apply(call("_internal")).error == "the world has no tool '_internal'"


def test_each_build_is_a_fresh_instance(tmp_path: Path) -> None:
    b = builder(tmp_path)
    first = b.build(Case(id="c", input="x"))
    first.apply(call("cancel_order", order_id="A1"))
    assert b.build(Case(id="c", input="x")).snapshot() == STATE


def test_a_class_that_fails_to_build_is_a_world_error(tmp_path: Path) -> None:
    b = builder(tmp_path)
    with pytest.raises(WorldError, match="KeyError"):
        b.build(Case(id="c", input="x", world={"state": {"other": {}}}))


def test_a_run_grades_the_python_worlds_final_state(tmp_path: Path) -> None:
    path = write_suite(tmp_path)
    config = RunConfig(cache=False, progress=False, allow_suite_code=True, suite_path=str(path))
    good = mock(script(call("cancel_order", order_id="A1"), "Done."))
    from agentgauge.io import load_suite
    from agentgauge.runner import run_suite

    run_suite(load_suite(path), config, tmp_path / "good", provider=good)
    [r] = iter_results(tmp_path / "good")
    assert r.status == "passed", r.explanation
    assert r.world is not None
    assert r.world.final["orders"]["A1"]["status"] == "cancelled"
    [step] = [e for e in r.trace if e.kind == "tool"]
    assert [w.path for w in step.writes] == ["orders.A1.status"]
    lazy = mock(script("Done, A1 is cancelled."))
    run_suite(load_suite(path), config, tmp_path / "lazy", provider=lazy)
    [bad] = iter_results(tmp_path / "lazy")
    assert bad.status == "failed"
    assert "orders.A1.status: expected 'cancelled', got 'pending'" in bad.explanation


def test_the_world_class_is_refused_without_the_opt_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENTGAUGE_ALLOW_SUITE_CODE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    path = write_suite(tmp_path)
    config = RunConfig(cache=False, progress=False, agent="mock:x")
    with pytest.raises(UserError, match="allow-suite-code") as err:
        run_suite_file(path, config, tmp_path / "run")
    [line] = err.value.problems
    assert line.startswith(f"{path}:")
    assert ": world.class: world class 'shop.py:Shop': runs shop.py:Shop" in line
    assert not (tmp_path / "run" / "results.jsonl").exists()


def test_validate_lists_the_world_class_as_suite_code(tmp_path: Path) -> None:
    from agentgauge.runner import ValidateConfig, validate_suite

    path = write_suite(tmp_path)
    refused = validate_suite(path, ValidateConfig(allow_suite_code=False))
    [use] = [u for u in refused.code if u.ref.kind == "world class"]
    assert use.field == "world.class"
    assert use.problem is not None
    assert "world class 'shop.py:Shop'" in use.problem
    assert "--allow-suite-code" in use.problem
    assert refused.failed(strict=False)
    allowed = validate_suite(path, ValidateConfig(allow_suite_code=True))
    [ok] = [u for u in allowed.code if u.ref.kind == "world class"]
    assert ok.problem is None
    assert not allowed.failed(strict=False)
    raw = yaml.safe_load(path.read_text())
    raw["world"]["class"] = "../shop.py:Shop"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    outside = validate_suite(path, ValidateConfig(allow_suite_code=True))
    [out] = [u for u in outside.code if u.ref.kind == "world class"]
    assert out.problem is not None
    assert "'..' leaves the suite's folder" in out.problem
