"""BFCL multi-turn, live and from result files: an agent that plays the ground truth passes
every entry (in both modes); result files with known-wrong steps get BFCL's verdict and error
type; the step limit and the held-back functions of miss_func work as in BFCL's generator.
Skipped without ../shared/data or the bfcl-eval package (.ci/run installs it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentgauge.importers import import_suite
from agentgauge.schema import Suite
from agentgauge.suites import write_suite
from bfcl_multi_helpers import (
    ALL_CATEGORIES,
    TRUTH_AGENT,
    fc_result,
    need_bfcl_eval,
    question_file,
    write_results,
    write_truth_script,
)


def _agentgauge(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentgauge", *args],
        capture_output=True, text=True, check=False, env={**os.environ, **(env or {})},
    )  # fmt: skip


def _results(run: Path) -> dict[str, dict[str, Any]]:
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["case_id"]: r for r in map(json.loads, lines)}


def _imported(shared: Path, category: str, tmp: Path) -> tuple[Suite, Path]:
    suite = import_suite("bfcl", [question_file(shared, category)])
    path = tmp / f"{category}.json"
    write_suite(suite, path)
    return suite, path


def _live(suite: Suite, path: Path, tmp: Path, mode: str, *extra: str, **env: str) -> Path:
    run = tmp / f"run-{mode}-{len(list(tmp.iterdir()))}"
    truth = write_truth_script(suite, tmp / "truth.json")
    done = _agentgauge(
        "run", str(path), "--agent", f"python:{TRUTH_AGENT}:agent", "-o", str(run),
        "--mode", mode, "--no-cache", *extra,
        env={"AGENTGAUGE_BFCL_TRUTH": str(truth), **env},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    return run


@pytest.mark.parametrize("mode", ["bfcl", "default"])
@pytest.mark.parametrize("category", ALL_CATEGORIES)
def test_the_ground_truth_agent_passes_every_entry(
    shared_data: Path, tmp_path: Path, category: str, mode: str
) -> None:
    need_bfcl_eval()
    suite, path = _imported(shared_data, category, tmp_path)
    results = _results(_live(suite, path, tmp_path, mode))
    assert len(results) == 200
    failed = {k: r["explanation"] for k, r in results.items() if r["status"] != "passed"}
    assert failed == {}
    for r in results.values():
        if mode == "bfcl":
            assert [s["name"] for s in r["scores"]] == ["bfcl"]
        else:
            assert r["world"]["goal_met"] is True


# ------------------------------------------------------------------ result files, BFCL's form

Edit = Callable[[list[list[Any]]], Any]


def _drop_calls(turn: int) -> Edit:
    def edit(result: list[list[Any]]) -> Any:
        result[turn] = [s for s in result[turn] if not isinstance(s, list)]
        return result

    return edit


def _set_argument(turn: int, call: int, name: str, value: Any) -> Edit:
    def edit(result: list[list[Any]]) -> Any:
        ((fn, args),) = result[turn][0][call].items()
        result[turn][0][call] = {fn: json.dumps({**json.loads(args), name: value})}
        return result

    return edit


def _replace_call(turn: int, call: int, new: dict[str, str]) -> Edit:
    def edit(result: list[list[Any]]) -> Any:
        result[turn][0][call] = new
        return result

    return edit


def _prompt_mode(result: list[list[Any]]) -> Any:
    out = []
    for turn in result:
        steps = []
        for step in turn:
            if isinstance(step, list):
                calls = []
                for item in step:
                    ((fn, args),) = item.items()
                    kw = ", ".join(f"{k}={v!r}" for k, v in json.loads(args).items())
                    calls.append(f"{fn}({kw})")
                steps.append("[" + ", ".join(calls) + "]")
            else:
                steps.append(step)
        out.append(steps)
    return out


#: entry -> (what is wrong with its steps, BFCL's verdict: None = valid, else the error type)
EDITS: dict[str, tuple[Edit, str | None]] = {
    "multi_turn_base_0": (lambda r: r, None),
    "multi_turn_base_1": (_drop_calls(1), "multi_turn:empty_turn_model_response"),
    "multi_turn_base_2": (
        _set_argument(0, 1, "file_name", "Other.txt"),
        "multi_turn:instance_state_mismatch",
    ),
    "multi_turn_base_3": (
        _replace_call(0, 0, {"ls": "{}"}),
        "multi_turn:execution_response_mismatch",
    ),
    "multi_turn_base_4": (lambda r: r[:-1], "multi_turn:force_terminated"),
    "multi_turn_base_5": (lambda r: "not a list of turns", "multi_turn:inference_error"),
    "multi_turn_base_6": (_prompt_mode, None),
    "multi_turn_base_7": (
        _replace_call(0, 0, {"cd": "{not json"}),
        "multi_turn:empty_turn_model_response",
    ),
    "multi_turn_base_8": (
        lambda r: [[*t, [{"pwd": "{}"}], "Anything else?"] for t in r],
        None,
    ),  # extra read-only calls and replies: BFCL's response check wants a superset
}


def test_result_files_get_bfcl_verdicts_and_error_types(shared_data: Path, tmp_path: Path) -> None:
    need_bfcl_eval()
    suite = import_suite("bfcl", [question_file(shared_data, "multi_turn_base")])
    truth = fc_result(suite)
    results = {cid: edit(truth[cid]) for cid, (edit, _) in EDITS.items()}
    path = write_results(tmp_path / "BFCL_v4_multi_turn_base_result.json", results)
    run = tmp_path / "scored"
    done = _agentgauge(
        "score", str(question_file(shared_data, "multi_turn_base")), "-r", str(path),
        "-o", str(run), "--mode", "bfcl", "--skip-missing",
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    got = _results(run)
    assert set(got) == set(EDITS)
    for cid, (_, error_type) in EDITS.items():
        r = got[cid]
        if error_type is None:
            assert r["status"] == "passed", (cid, r["explanation"])
        else:
            assert r["status"] == "failed", cid
            assert r["explanation"].startswith(error_type + ": "), (cid, r["explanation"])
    assert "turn 1" in got["multi_turn_base_1"]["explanation"]
    assert "GorillaFileSystem.root" in got["multi_turn_base_2"]["explanation"]
    base_4 = got["multi_turn_base_4"]["explanation"]
    assert "result turns (2) does not match the length of the ground truth turns (3)" in base_4


def _empty_turn_entry(suite: Suite) -> tuple[str, int]:
    """An entry using the file system with an empty ground-truth turn that is not its last."""
    for case in suite.cases:
        truth = case.metadata["bfcl_ground_truth"]
        state = case.world.state if case.world and case.world.state else {}
        if "GorillaFileSystem" not in state.get("involved_classes", []):  # type: ignore[operator]
            continue
        assert isinstance(truth, list)
        for i, calls in enumerate(truth[:-1]):
            if not calls:
                return case.id, i
    raise AssertionError("no such entry")


def test_bfcl_never_checks_the_turns_where_nothing_may_be_called(
    shared_data: Path, tmp_path: Path
) -> None:
    # BFCL declares multi_turn_irrelevance_checker but never calls it: a call in a turn whose
    # ground truth is empty fails only through the state it leaves for the next checked turn
    need_bfcl_eval()
    suite = import_suite("bfcl", [question_file(shared_data, "multi_turn_miss_param")])
    cid, empty = _empty_turn_entry(suite)
    harmless = fc_result(suite)[cid]
    harmless[empty] = [[{"pwd": "{}"}], "Which file?"]
    harmful = fc_result(suite)[cid]
    harmful[empty] = [[{"mkdir": json.dumps({"dir_name": "zzz"})}], "Made it."]
    verdicts = {}
    for name, result in (("harmless", harmless), ("harmful", harmful)):
        path = write_results(tmp_path / f"{name}.json", {cid: result})
        for mode in ("bfcl", "default"):
            run = tmp_path / f"{name}-{mode}"
            done = _agentgauge(
                "score", str(question_file(shared_data, "multi_turn_miss_param")), "-r",
                str(path), "-o", str(run), "--mode", mode, "--skip-missing",
            )  # fmt: skip
            assert done.returncode in (0, 1), done.stderr
            verdicts[name, mode] = _results(run)[cid]
    assert verdicts["harmless", "bfcl"]["status"] == "passed"
    bfcl = verdicts["harmful", "bfcl"]
    assert bfcl["explanation"].startswith("multi_turn:instance_state_mismatch")
    assert f"(turn {empty + 1})" in bfcl["explanation"]  # found one turn later
    assert verdicts["harmful", "default"]["status"] == "failed"  # the default mode: at once
    assert f"turn[{empty}].state" in {
        s["name"] for s in verdicts["harmful", "default"]["scores"] if s["passed"] is False
    }


# ------------------------------------------------------------------ live: step limit, tools


def _file_system_entry(suite: Suite, turns: int) -> str:
    for case in suite.cases:
        state = case.world.state if case.world and case.world.state else {}
        if (
            "GorillaFileSystem" in state.get("involved_classes", [])
            and len(case.turns) + 1 >= turns
        ):  # type: ignore[operator]
            return case.id
    raise AssertionError("no such entry")


def test_the_step_limit_force_terminates_an_entry_as_bfcl_does(
    shared_data: Path, tmp_path: Path
) -> None:
    need_bfcl_eval()
    suite, path = _imported(shared_data, "multi_turn_base", tmp_path)
    cid = _file_system_entry(suite, turns=3)
    last = len(next(c for c in suite.cases if c.id == cid).turns)
    runs = {}
    for loop in (0, last):
        run = _live(suite, path, tmp_path, "bfcl", "--filter", cid,
                    AGENTGAUGE_BFCL_LOOP_TURN=str(loop))  # fmt: skip
        runs[loop] = _results(run)[cid]
    first = runs[0]
    assert first["status"] == "failed"
    assert first["step_limit_hit"] is True
    assert first["explanation"].startswith("multi_turn:force_terminated: ")
    assert (
        f"model result turns (1) does not match the length of the ground truth turns ({last + 1})"
        in first["explanation"]
    )
    # BFCL's own rule: stopped in its last turn, the entry has all its turns and is scored
    assert runs[last]["step_limit_hit"] is True
    assert runs[last]["status"] == "passed", runs[last]["explanation"]


def test_held_back_functions_are_offered_from_their_turn_on(
    shared_data: Path, tmp_path: Path
) -> None:
    need_bfcl_eval()
    suite, path = _imported(shared_data, "multi_turn_miss_func", tmp_path)
    case = suite.cases[14]
    assert [t.add_tools for t in case.turns] == [[], [], [], ["add_contact"]]
    log = tmp_path / "tools.jsonl"
    agent = Path(__file__).parents[1] / "worlds" / "bfcl_tools_agent.py"
    done = _agentgauge(
        "run", str(path), "--agent", f"python:{agent}:agent", "-o", str(tmp_path / "run"),
        "--filter", case.id, "--no-cache", env={"AGENTGAUGE_TOOLS_LOG": str(log)},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    offered = dict(json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())
    assert sorted(offered) == [0, 1, 2, 3, 4]
    for turn in range(4):
        assert "add_contact" not in offered[turn]
    assert "add_contact" in offered[4]
    assert set(offered[4]) == set(case.tools or [])
