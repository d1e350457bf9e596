"""validate on worlds: each finding fires on a bad suite (with file:line) and not on a good
one; a world's state_file is read relative to the suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from world_helpers import CANCEL_A1, OPERATIONS, STATE, TOOLS, write_shop_suite

from agentgauge.errors import UserError
from agentgauge.io import check_suite, load_suite


def codes(path: Path) -> dict[str, list[str]]:
    """Findings by code, as ``<the text of the line it points at> | field: message``."""
    check = check_suite(path)
    assert not check.problems, check.problems
    lines = path.read_text().splitlines()
    out: dict[str, list[str]] = {}
    for f in check.findings:
        if "world" not in f.code and "reference" not in f.code:
            continue
        assert f.line is not None, f
        at = lines[f.line - 1].strip()
        out.setdefault(f.code, []).append(f"{at} | {f.field}: {f.message}")
    return out


def world_codes(path: Path) -> set[str]:
    return set(codes(path))


def test_a_good_world_suite_has_no_world_findings(tmp_path: Path) -> None:
    ref = {**CANCEL_A1, "expect": {**CANCEL_A1["expect"], "state": {"same_as_reference": True}}}
    only_state = {"id": "only-state", "input": "x",
                  "expect": {"state": {"same_as_reference": True, "reference": [
                      {"name": "cancel_order", "arguments": {"order_id": "A1"}}]}}}  # fmt: skip
    path = write_shop_suite(tmp_path, [CANCEL_A1, {**ref, "id": "r"}, only_state])
    assert world_codes(path) == set()
    # a case graded by its state alone checks something: no never-fails warning
    assert not [f for f in check_suite(path).findings if f.code == "never-fails"]


def test_a_reference_action_of_an_unknown_tool_is_an_error(tmp_path: Path) -> None:
    case = {"id": "typo", "input": "x", "expect": {"state": {"same_as_reference": True,
            "reference": [{"name": "cancel_ordr", "arguments": {"order_id": "A1"}}]}}}  # fmt: skip
    found = codes(write_shop_suite(tmp_path, [case]))["world-unknown-tool"]
    assert [f.split(" | ")[1] for f in found] == [
        "cases[0].expect.state.reference[0].name: no tool 'cancel_ordr' in the suite's tools"
    ]


def test_state_expectations_without_a_world_are_errors(tmp_path: Path) -> None:
    data = {"name": "s", "tools": TOOLS, "cases": [CANCEL_A1]}
    path = tmp_path / "suite.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    found = codes(path)["no-world"]
    assert found == [
        "state: | cases[0].expect.state: the suite has no world to check this state on"
    ]


def test_operations_of_unknown_tools_and_collections(tmp_path: Path) -> None:
    ops: dict[str, Any] = {**OPERATIONS, "ship_order": {"op": "update", "collection": "parcels"}}
    path = write_shop_suite(tmp_path, [CANCEL_A1], world={"state": STATE, "operations": ops})
    found = codes(path)
    assert found["world-unknown-tool"] == [
        "ship_order: | world.operations.ship_order: no tool 'ship_order' in the suite's tools"
    ]
    [collection] = found["world-unknown-collection"]
    assert "world.operations.ship_order.collection: no collection 'parcels'" in collection


def test_a_reference_that_cannot_be_written_or_fails(tmp_path: Path) -> None:
    loose = {
        "id": "loose",
        "input": "x",
        "expect": {
            "tool_calls": [{"name": "cancel_order", "arguments": {"order_id": {"any": True}}}],
            "state": {"same_as_reference": True},
        },
    }
    shipped = {**CANCEL_A1, "id": "shipped",
               "world": {"patch": {"orders": {"A1": {"status": "shipped"}}}},
               "expect": {**CANCEL_A1["expect"], "state": {"same_as_reference": True}}}  # fmt: skip
    parcel = {"path": "parcels.P1", "absent": True}
    unknown = {**CANCEL_A1, "id": "unknown", "expect": {"state": {"checks": [parcel]}}}
    found = codes(write_shop_suite(tmp_path, [loose, shipped, unknown]))
    [no_ref] = found["no-reference"]
    assert (
        "cases[0].expect.state: turn 0: call 0 (cancel_order): argument order_id has no "
        "concrete value (any / regex); give expect.state.reference" in no_ref
    )
    [fails] = found["reference-fails"]
    assert "status is 'shipped', must be 'pending'" in fails
    [coll] = found["world-unknown-collection"]
    assert "cases[2].expect.state.checks[0].path: 'parcels' is not a collection" in coll


def test_bad_state_paths_and_check_kinds_are_load_errors(tmp_path: Path) -> None:
    bad = {**CANCEL_A1, "expect": {"state": {"checks": [{"path": "orders..A1", "equals": 1}]}}}
    both = {"path": "orders", "equals": 1, "count": 2}
    two = {**CANCEL_A1, "id": "two", "expect": {"state": {"checks": [both]}}}
    with pytest.raises(UserError) as err:
        load_suite(write_shop_suite(tmp_path, [bad, two]))
    first, second = err.value.problems
    assert first.startswith(f"{tmp_path / 'suite.yaml'}:")
    assert "cases[0].expect.state.checks[0].path" in first
    assert "bad path 'orders..A1' at 7" in first
    assert "cases[1].expect.state.checks[0]" in second
    assert "give exactly one of equals, contains, matches, absent, count" in second


def test_state_file_is_read_beside_the_suite(tmp_path: Path) -> None:
    (tmp_path / "state.yaml").write_text(yaml.safe_dump(STATE))
    world = {"state_file": "state.yaml", "operations": OPERATIONS}
    path = write_shop_suite(tmp_path, [CANCEL_A1], world=world)
    suite = load_suite(path)
    assert suite.world is not None
    assert suite.world.state == STATE
    assert suite.world.state_file is None
    (tmp_path / "state.yaml").write_text("- not\n- a mapping\n")
    with pytest.raises(UserError, match=r"state\.yaml:1: expected the world's state"):
        load_suite(path)
    (tmp_path / "state.yaml").unlink()
    with pytest.raises(UserError, match=r"world\.state_file"):
        load_suite(path)
