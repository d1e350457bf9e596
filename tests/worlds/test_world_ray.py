"""Worlds on the Ray executor: every worker builds its own world (a Python world class imported
in the worker process, under the run's suite-code decision), fresh per case and trial, with the
same verdicts and final states as a local run."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
import yaml
from world_helpers import OPERATIONS, STATE, TOOLS

ray = pytest.importorskip("ray")

from agentgauge.io import iter_results  # noqa: E402
from agentgauge.runner import RunConfig, run_suite_file  # noqa: E402
from ray_cluster import local_cluster  # noqa: E402

pytestmark = pytest.mark.ray

WORLD = textwrap.dedent(
    """
    import os

    class Shop:
        def __init__(self, state):
            self.orders = state["orders"]
            self.built_in = os.getpid()     # part of the state: which process built it

        def cancel_order(self, order_id):
            order = self.orders[order_id]
            if order["status"] != "pending":
                raise ValueError(f"order {order_id} is {order['status']}")
            order["status"] = "cancelled"
            return {"id": order_id, "status": "cancelled"}
    """
)

AGENT = textwrap.dedent(
    """
    from agentgauge.schema import ToolCall

    def agent(messages, tools):
        if messages[-1].role == "tool":
            return "Done."
        key = messages[-1].content.split()[-1]
        return ToolCall(name="cancel_order", arguments={"order_id": key})
    """
)


cluster = pytest.fixture(scope="module", name="cluster")(local_cluster)


def _suite(folder: Path, python: bool) -> Path:
    (folder / "shop.py").write_text(WORLD)
    (folder / "agent.py").write_text(AGENT)
    world = {"class": "shop.py:Shop", "state": STATE} if python else {
        "state": STATE, "operations": OPERATIONS}  # fmt: skip
    cases = []
    for key in ("A1", "A3"):
        cases.append(
            {
                "id": f"cancel-{key}",
                "input": f"cancel {key}",
                "expect": {
                    "tool_calls": [{"name": "cancel_order", "arguments": {"order_id": key}}],
                    "state": {
                        "checks": [
                            {"path": f"orders.{key}.status", "equals": "cancelled"},
                            {"path": "orders", "count": 1, "where": {"status": "cancelled"}},
                        ],
                        "same_as_reference": True,
                    },
                },
            }
        )
    cases.append({"id": "cancel-A2", "input": "cancel A2",
                  "expect": {"state": {"unchanged": ["orders"]}}})  # fmt: skip
    suite = {"name": "ray-shop", "tools": TOOLS, "world": world, "cases": cases,
             "defaults": {"trials": 3}}  # fmt: skip
    path = folder / "suite.yaml"
    path.write_text(yaml.safe_dump(suite, sort_keys=False))
    return path


def _config(folder: Path, executor: str) -> RunConfig:
    return RunConfig(
        agent=f"python:{folder / 'agent.py'}:agent",
        progress=False,
        cache=False,
        max_concurrency=4,
        executor=executor,
        allow_suite_code=True,
    )


@pytest.mark.parametrize("python", [False, True], ids=["declarative", "python"])
def test_each_worker_builds_its_own_fresh_world(tmp_path: Path, cluster: str, python: bool) -> None:
    suite = _suite(tmp_path, python)
    local = run_suite_file(suite, _config(tmp_path, "local"), tmp_path / "local")
    on_ray = run_suite_file(suite, _config(tmp_path, "ray"), tmp_path / "ray")
    mine = {(r.case_id, r.trial): r for r in iter_results(local.run_dir)}
    theirs = {(r.case_id, r.trial): r for r in iter_results(on_ray.run_dir)}
    assert len(theirs) == 9
    assert theirs.keys() == mine.keys()
    for key, r in theirs.items():
        assert r.status == mine[key].status == "passed", (key, r.explanation)
        assert r.world is not None
        assert r.world.goal_met is True
        assert mine[key].world is not None
        final, local_final = dict(r.world.final), dict(mine[key].world.final)
        if python:  # built in a Ray worker process, never in the driver
            assert final.pop("built_in") != os.getpid()
            assert local_final.pop("built_in") == os.getpid()
        assert final == local_final
    refused = theirs[("cancel-A2", 0)]
    [step] = [e for e in refused.trace if e.kind == "tool"]
    assert step.error is not None
    assert step.writes == []
