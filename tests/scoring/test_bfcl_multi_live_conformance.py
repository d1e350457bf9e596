"""Conformance of live runs: an agent that plays the ground truth with mistakes (a wrong
argument, a call left out, calls made twice, an extra read, a turn without calls, calls a turn
early) runs live with ``agentgauge run --mode bfcl`` on BFCL's back-ends; BFCL's own per-entry
evaluation (tests/bfcl_reference_runner.py) gets the same moves as the result file BFCL's
generator would have written for them (per turn: the step of calls, then the text reply). The
verdicts and error types must agree entry for entry. Skipped without ../shared/data or bfcl-eval.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentgauge.importers import import_suite
from agentgauge.schema import Case
from agentgauge.suites import write_suite
from bfcl_multi_helpers import TRUTH_AGENT, need_bfcl_eval, question_file

REFERENCE = Path(__file__).parents[1] / "bfcl_reference_runner.py"
Calls = list[dict[str, Any]]
_READS = [{"name": "pwd", "arguments": {}}, {"name": "ls", "arguments": {"a": True}}]


def _wrong_argument(calls: Calls, rng: random.Random) -> Calls:
    call = rng.choice(calls)
    args = dict(call["arguments"])
    key = next((k for k, v in args.items() if isinstance(v, str)), None)
    args[key or "unexpected"] = "x" + str(args.get(key or "", ""))
    return [c if c is not call else {**c, "arguments": args} for c in calls]


MISTAKES = {
    "none": lambda calls, _: calls,
    "wrong_argument": _wrong_argument,
    "call_left_out": lambda calls, _: calls[:-1],
    "calls_twice": lambda calls, _: calls + calls,
    "extra_read": lambda calls, rng: [rng.choice(_READS), *calls],
    "no_calls": lambda calls, _: [],
}


def _plan(case: Case, rng: random.Random, kind: str) -> list[Calls]:
    """The calls the agent makes in each turn of ``case``: the ground truth's, one turn's
    changed by ``kind`` (``early``: a turn's calls made in the turn before, nothing in it)."""
    turns: list[Calls] = []
    for exp in [case.expect, *(t.expect for t in case.turns)]:
        assert exp is not None
        assert exp.state is not None
        turns.append([c.model_dump(mode="json") for c in exp.state.reference or []])
    with_calls = [i for i, t in enumerate(turns) if t]
    i = rng.choice(with_calls)
    if kind == "early" and i > 0:
        turns[i - 1] = turns[i - 1] + turns[i]
        turns[i] = []
    elif kind != "early":
        turns[i] = MISTAKES[kind](turns[i], rng)
    return turns


def _script(suite: Any, plans: dict[str, list[Calls]], path: Path) -> dict[str, list[Calls]]:
    """The agent's script (user messages so far -> calls). Entries that share a history share
    its calls: what each entry's agent really does is returned."""
    script: dict[str, Calls] = {}
    played: dict[str, list[Calls]] = {}
    for case in suite.cases:
        texts = [case.input, *(t.user for t in case.turns)]
        played[case.id] = [
            script.setdefault(json.dumps(texts[: i + 1]), calls)
            for i, calls in enumerate(plans[case.id])
        ]
    path.write_text(json.dumps(script), encoding="utf-8")
    return played


def _result(turns: list[Calls]) -> list[list[Any]]:
    """What BFCL's generator writes for an agent that makes these calls in one step per turn
    and then replies (or replies at once)."""
    out: list[list[Any]] = []
    for calls in turns:
        step = [{c["name"]: json.dumps(c["arguments"])} for c in calls]
        out.append([step, "Done."] if calls else ["I cannot do that with these tools."])
    return out


@pytest.mark.parametrize("category", ["multi_turn_base", "multi_turn_miss_func"])
def test_live_verdicts_are_bfcl_runner_verdicts(
    shared_data: Path, tmp_path: Path, category: str
) -> None:
    need_bfcl_eval()
    source = question_file(shared_data, category)
    suite = import_suite("bfcl", [source])
    write_suite(suite, tmp_path / "suite.json")
    rng = random.Random(category)
    kinds = [*MISTAKES, "early"]
    plans = {c.id: _plan(c, rng, kinds[n % len(kinds)]) for n, c in enumerate(suite.cases)}
    played = _script(suite, plans, tmp_path / "script.json")
    run = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "agentgauge", "run", str(tmp_path / "suite.json"), "--agent",
         f"python:{TRUTH_AGENT}:agent", "-o", str(run), "--mode", "bfcl", "--no-cache"],
        capture_output=True, text=True, check=False,
        env={**os.environ, "AGENTGAUGE_BFCL_TRUTH": str(tmp_path / "script.json")},
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    ours = {r["case_id"]: r for r in map(json.loads, lines)}
    rows = {r["id"]: r for r in map(json.loads, source.read_text(encoding="utf-8").splitlines())}
    jobs = [
        {"result": _result(played[c.id]), "truth": c.metadata["bfcl_ground_truth"],
         "entry": rows[c.id]}
        for c in suite.cases
    ]  # fmt: skip
    (tmp_path / "job.json").write_text(json.dumps({"fc": True, "entries": jobs}))
    ref = subprocess.run(
        [sys.executable, str(REFERENCE), str(tmp_path / "job.json"), str(tmp_path / "out.json")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert ref.returncode == 0, ref.stderr[-3000:]
    theirs = {v["id"]: v for v in json.loads((tmp_path / "out.json").read_text())}
    assert set(ours) == set(theirs) == {c.id for c in suite.cases}
    types = set()
    for cid, verdict in theirs.items():
        mine = ours[cid]
        assert (mine["status"] == "passed") == verdict["valid"], (cid, verdict, mine)
        if not verdict["valid"]:
            head = mine["explanation"].split("\n")[0]
            assert head.startswith(f"{verdict['error_type']}: {verdict['error_message']}"), cid
            types.add(verdict["error_type"])
    assert types == {
        "multi_turn:empty_turn_model_response",
        "multi_turn:instance_state_mismatch",
        "multi_turn:execution_response_mismatch",
    }
    assert 40 < sum(v["valid"] for v in theirs.values()) < 180
