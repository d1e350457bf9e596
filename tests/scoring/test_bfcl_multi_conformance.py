"""Conformance with BFCL's own multi-turn checker: on every entry of the three categories, the
ground truth's steps and mutated (wrong) ones are given to ``bfcl_eval``'s
``multi_turn_checker`` and to ours; the verdicts and error types must be equal. Prompt-mode
result files go through BFCL's own decoder and through ``agentgauge score --mode bfcl``.
Skipped without ../shared/data or bfcl-eval."""

from __future__ import annotations

import contextlib
import io
import json
import random
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from agentgauge.worlds import check_bfcl_multi_turn
from bfcl_multi_helpers import (
    ALL_CATEGORIES,
    entries,
    ground_truth,
    need_bfcl_eval,
    question_file,
    write_results,
)

#: reads a file (read-only in BFCL's file system), changes nothing, or fails
_EXTRA = ["ls(a=True)", "pwd()", "mean(numbers=[1, 2])", "no_such_function()"]


def _bfcl(turns: Any, truth: list[list[str]], entry: dict[str, Any], tag: str) -> dict[str, Any]:
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

    category = entry["id"].rsplit("_", 1)[0]
    # a fresh model name each time: BFCL keeps instances in module globals by that name
    with contextlib.redirect_stdout(io.StringIO()):
        return multi_turn_checker(turns, truth, dict(entry), category, tag)  # type: ignore[no-any-return]


def _mutants(truth: list[list[str]], rng: random.Random) -> list[list[list[list[str]]]]:
    """The ground truth as steps (one step per non-empty turn), and wrong variants of it."""
    right = [[list(t)] if t else [] for t in truth]
    out = [right]
    for kind in range(9):
        turns = [[list(s) for s in t] for t in right]
        i = rng.randrange(len(turns))
        if kind == 0 and turns[i]:  # the last call of a turn left out
            turns[i][0] = turns[i][0][:-1]
            turns[i] = [s for s in turns[i] if s]
        elif kind == 1 and turns[i]:  # a string argument changed
            step = turns[i][0]
            k = rng.randrange(len(step))
            step[k] = step[k].replace("='", "='x", 1)
        elif kind == 2:  # an extra step
            turns[i].append([rng.choice(_EXTRA)])
        elif kind == 3 and turns[i]:  # the calls in reverse order, as two steps
            step = turns[i][0]
            turns[i] = [step[::-1][:1], step[::-1][1:]] if len(step) > 1 else [step, step]
        elif kind == 4 and i > 0 and turns[i]:  # a turn's calls moved to the turn before
            turns[i - 1].extend(turns[i])
            turns[i] = []
        elif kind == 5 and turns[i]:  # a turn without a call
            turns[i] = []
        elif kind == 6 and turns[i]:  # a turn of one empty step: BFCL's "empty" too
            turns[i] = [[]]
        elif kind == 7:  # an empty step before the calls: not an empty turn
            turns[i].insert(0, [])
        elif kind == 8 and turns[i]:  # a turn's calls made twice: writes twice
            turns[i].append(list(turns[i][0]))
        out.append(turns)
    return out


@pytest.mark.parametrize("category", ALL_CATEGORIES)
def test_our_verdicts_are_bfcl_checker_verdicts(shared_data: Path, category: str) -> None:
    need_bfcl_eval()
    rng = random.Random(category)
    truth = ground_truth(shared_data, category)
    checked = failing = 0
    error_types: set[str | None] = set()
    for n, entry in enumerate(entries(shared_data, category)):
        for m, turns in enumerate(_mutants(truth[entry["id"]], rng)):
            theirs = _bfcl(turns, truth[entry["id"]], entry, f"conf_{category}_{n}_{m}")
            ours = check_bfcl_multi_turn(
                turns, truth[entry["id"]],
                involved_classes=entry["involved_classes"],
                initial_config=entry.get("initial_config", {}),
                long_context="long_context" in category,
            )  # fmt: skip
            assert ours.valid == theirs["valid"], (entry["id"], m, theirs.get("error_type"))
            if not ours.valid:
                assert ours.error_type == theirs["error_type"], (entry["id"], m)
                assert ours.message.startswith(theirs["error_message"].split(" (")[0])
                failing += 1
                error_types.add(ours.error_type)
            checked += 1
    assert checked == 200 * 10
    assert failing > 500  # the mutants do fail, in all the ways the checker reports
    assert error_types == {
        "multi_turn:empty_turn_model_response",
        "multi_turn:instance_state_mismatch",
        "multi_turn:execution_response_mismatch",
    }


def _bfcl_prompt_decoder() -> Any:
    """BFCL's prompt-mode decoder (its module imports the Java / JavaScript parsers' tree-sitter
    grammars, which the multi-turn decoder never uses: stand-ins take their place)."""

    class _Stub:
        def __init__(self, *args: Any, **kwargs: Any) -> None: ...

        def __call__(self, *args: Any, **kwargs: Any) -> _Stub:
            return _Stub()

        def __getattr__(self, name: str) -> _Stub:
            return _Stub()

    for name in ("tree_sitter", "tree_sitter_java", "tree_sitter_javascript"):
        if name not in sys.modules:
            stub = types.ModuleType(name)
            stub.Language = stub.Parser = _Stub  # type: ignore[attr-defined]
            stub.language = lambda: None  # type: ignore[attr-defined]
            sys.modules[name] = stub
    from bfcl_eval.model_handler.utils import default_decode_execute_prompting

    return default_decode_execute_prompting


def _prompt_result(truth: list[list[str]], rng: random.Random) -> list[list[str]]:
    """A prompt-mode model's result: each turn's calls as one Python-syntax step, text steps,
    and now and then a wrong argument, a dropped call or prose that does not decode."""
    out = []
    for calls in truth:
        calls = list(calls)
        roll = rng.random()
        if calls and roll < 0.1:
            calls[0] = calls[0].replace("='", "='x", 1)
        elif calls and roll < 0.2:
            calls = calls[1:]
        steps = [f"[{', '.join(calls)}]"] if calls else []
        if roll > 0.9:
            steps.insert(0, "Let me think about this (step by step).")
        out.append([*steps, "Done."])
    return out


def test_prompt_mode_result_files_score_as_bfcl_scores_them(
    shared_data: Path, tmp_path: Path
) -> None:
    need_bfcl_eval()
    decode = _bfcl_prompt_decoder()
    rng = random.Random(7)
    category = "multi_turn_base"
    truth = ground_truth(shared_data, category)
    questions = {e["id"]: e for e in entries(shared_data, category)}
    results = {cid: _prompt_result(t, rng) for cid, t in truth.items()}
    path = write_results(tmp_path / "BFCL_v4_multi_turn_base_result.json", results)
    run = tmp_path / "scored"
    done = subprocess.run(
        [sys.executable, "-m", "agentgauge", "score", str(question_file(shared_data, category)),
         "-r", str(path), "-o", str(run), "--mode", "bfcl"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    ours = {
        r["case_id"]: r
        for r in map(json.loads, (run / "results.jsonl").read_text(encoding="utf-8").splitlines())
    }
    passed = 0
    for n, (cid, result) in enumerate(results.items()):
        decoded = []
        for turn in result:
            steps = []
            for step in turn:
                try:
                    calls = decode(step)
                except Exception:
                    continue
                if calls:
                    steps.append(calls)
            decoded.append(steps)
        theirs = _bfcl(decoded, truth[cid], questions[cid], f"prompt_{n}")
        mine = ours[cid]
        assert (mine["status"] == "passed") == theirs["valid"], (cid, mine["explanation"])
        if not theirs["valid"]:
            assert mine["explanation"].startswith(theirs["error_type"] + ": "), cid
        passed += theirs["valid"]
    assert 50 < passed < 200  # positional ground-truth arguments: BFCL's decoder drops them
