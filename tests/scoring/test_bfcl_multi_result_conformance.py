"""Conformance on BFCL result files: ``agentgauge score QUESTIONS -r RESULT --mode bfcl`` against
BFCL's own per-entry evaluation (``eval_runner._evaluate_single_multi_turn_entry``: inference
error, force termination, BFCL's function-calling or prompt-mode decoder, ``multi_turn_checker``;
run by tests/bfcl_reference_runner.py in a child process).

Every entry of every category gets two result lines (the entry under two ids), each one kind
of output from :data:`KINDS` — the ground truth, wrong arguments, arguments reordered and
retyped, a call missing, extra calls that write or only read, a turn with no call, empty and
undecodable steps, calls a turn early, force-terminated (a turn short or one too many), not a
list — written as a function-calling model writes them and again as a prompt-mode model does.
The verdicts, error types and messages must agree entry for entry. Skipped without
../shared/data or bfcl-eval."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentgauge.importers import import_suite
from bfcl_multi_helpers import ALL_CATEGORIES, fc_result, need_bfcl_eval, question_file

REFERENCE = Path(__file__).parents[1] / "bfcl_reference_runner.py"
COPIES = 2

Result = list[list[Any]]


def _call_turns(result: Result) -> list[int]:
    return [i for i, t in enumerate(result) if any(isinstance(s, list) for s in t)]


def _first_calls(turn: list[Any]) -> list[dict[str, str]]:
    return next(s for s in turn if isinstance(s, list))


def _wrong_argument(result: Result, rng: random.Random) -> Result:
    calls = _first_calls(result[rng.choice(_call_turns(result))])
    k = rng.randrange(len(calls))
    ((name, raw),) = calls[k].items()
    args = json.loads(raw)
    for key, value in args.items():
        if isinstance(value, str):
            args[key] = "x" + value
            break
        if isinstance(value, int | float) and not isinstance(value, bool):
            args[key] = value + 1
            break
    else:
        args["unexpected"] = 1
    calls[k] = {name: json.dumps(args)}
    return result


def _missing_call(result: Result, rng: random.Random) -> Result:
    turn = result[rng.choice(_call_turns(result))]
    calls = _first_calls(turn)
    calls.pop()
    if not calls:
        turn[:] = [s for s in turn if s != []]
    return result


def _extra_write(result: Result, rng: random.Random) -> Result:
    """A turn's calls made twice: a second write (or an error result) on the back-ends."""
    turn = result[rng.choice(_call_turns(result))]
    turn.insert(-1, [dict(c) for c in _first_calls(turn)])
    return result


def _extra_read(result: Result, rng: random.Random) -> Result:
    turn = result[rng.randrange(len(result))]
    extra = rng.choice([{"pwd": "{}"}, {"ls": '{"a": true}'}, {"no_such_function": "{}"}])
    turn.insert(0, [extra])
    return result


def _no_call(result: Result, rng: random.Random) -> Result:
    result[rng.choice(_call_turns(result))] = ["I cannot help with that."]
    return result


def _empty_step(result: Result, rng: random.Random) -> Result:
    turn = result[rng.choice(_call_turns(result))]
    turn.insert(0, [])
    if rng.random() < 0.5:
        turn[1] = []  # and the calls gone: only an empty step is left
    return result


def _undecodable(result: Result, rng: random.Random) -> Result:
    calls = _first_calls(result[rng.choice(_call_turns(result))])
    ((name, _),) = calls[0].items()
    calls[0] = {name: "{not json"}  # the whole step does not decode
    return result


def _early(result: Result, rng: random.Random) -> Result:
    later = [i for i in _call_turns(result) if i > 0]
    if later:
        i = rng.choice(later)
        result[i - 1][:0] = [s for s in result[i] if isinstance(s, list)]
        result[i] = ["Already done."]
    return result


def _reordered(result: Result, rng: random.Random) -> Result:
    turn = result[rng.choice(_call_turns(result))]
    calls = _first_calls(turn)[::-1]
    turn[:] = [[c] for c in calls] + [s for s in turn if not isinstance(s, list)]
    return result


def _retyped(result: Result, rng: random.Random) -> Result:
    """A turn's arguments in another order and with other types, as models write them: an int
    as a float, a float as a string, a string with non-ASCII text."""
    for step in result[rng.choice(_call_turns(result))]:
        if not isinstance(step, list):
            continue
        for k, call in enumerate(step):
            ((name, raw),) = call.items()
            args = json.loads(raw)
            changed = {}
            for key, value in reversed(args.items()):
                if isinstance(value, bool):
                    changed[key] = value
                elif isinstance(value, int):
                    changed[key] = float(value)
                elif isinstance(value, float):
                    changed[key] = str(value)
                elif isinstance(value, str) and rng.random() < 0.3:
                    changed[key] = value + " – é"
                else:
                    changed[key] = value
            step[k] = {name: json.dumps(changed, ensure_ascii=rng.random() < 0.5)}
    return result


KINDS: dict[str, Callable[[Result, random.Random], Any]] = {
    "ground_truth": lambda r, _: r,
    "wrong_argument": _wrong_argument,
    "missing_call": _missing_call,
    "extra_write": _extra_write,
    "extra_read": _extra_read,
    "turn_without_call": _no_call,
    "empty_step": _empty_step,
    "undecodable_step": _undecodable,
    "calls_a_turn_early": _early,
    "calls_reordered": _reordered,
    "arguments_retyped": _retyped,
    "turn_short": lambda r, _: r[:-1],
    "turn_too_many": lambda r, _: [*r, ["Goodbye."]],
    "not_a_list": lambda r, _: "Error: the model crashed",
}


def _prompt(result: Any) -> Any:
    """The same output as a prompt-mode model writes it (Python call syntax)."""
    if not isinstance(result, list):
        return result
    out = []
    for turn in result:
        steps = []
        for step in turn:
            if not isinstance(step, list):
                steps.append(step)
                continue
            calls = []
            for item in step:
                ((name, raw),) = item.items()
                try:
                    kw = ", ".join(f"{k}={v!r}" for k, v in json.loads(raw).items())
                except json.JSONDecodeError:
                    kw = "folder="  # a syntax error, as the undecodable JSON above
                calls.append(f"{name}({kw})")
            steps.append("[" + ", ".join(calls) + "]")
        out.append(steps)
    return out


def _dataset(shared: Path, category: str, tmp: Path) -> tuple[Path, list[dict[str, Any]]]:
    """``category``'s entries under COPIES ids each (``<category>_<n + 1000 k>``), with their
    answers and the function docs beside them, as BFCL's data is laid out."""
    source = question_file(shared, category)
    folder = tmp / category
    (folder / "possible_answer").mkdir(parents=True)
    (folder / "multi_turn_func_doc").symlink_to(source.parent / "multi_turn_func_doc")
    questions, answers = [], []
    for sub, rows in (("", questions), ("possible_answer/", answers)):
        lines = (source.parent / sub / source.name).read_text(encoding="utf-8").splitlines()
        for k in range(COPIES):
            for row in map(json.loads, lines):
                n = int(row["id"].rsplit("_", 1)[1])
                rows.append({**row, "id": f"{category}_{n + 1000 * k}"})
    for sub, rows in (("", questions), ("possible_answer/", answers)):
        text = "".join(json.dumps(r) + "\n" for r in rows)
        (folder / sub / source.name).write_text(text, encoding="utf-8")
    return folder / source.name, questions


def _ours(questions: Path, results: dict[str, Any], tmp: Path) -> dict[str, dict[str, Any]]:
    path = tmp / f"{questions.stem}_result.json"
    path.write_text("".join(json.dumps({"id": k, "result": v}) + "\n" for k, v in results.items()))
    run = tmp / f"{questions.stem}-scored"
    done = subprocess.run(
        [sys.executable, "-m", "agentgauge", "score", str(questions), "-r", str(path),
         "-o", str(run), "--mode", "bfcl"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    lines = (run / "results.jsonl").read_text(encoding="utf-8").splitlines()
    return {r["case_id"]: r for r in map(json.loads, lines)}


def _theirs(jobs: list[dict[str, Any]], fc: bool, tmp: Path) -> dict[str, dict[str, Any]]:
    job, out = tmp / f"job-{fc}.json", tmp / f"out-{fc}.json"
    job.write_text(json.dumps({"fc": fc, "entries": jobs}), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(REFERENCE), str(job), str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return {v["id"]: v for v in json.loads(out.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("fc", [True, False], ids=["function_calling", "prompt"])
def test_result_files_get_bfcl_runner_verdicts(shared_data: Path, tmp_path: Path, fc: bool) -> None:
    need_bfcl_eval()
    rng = random.Random(f"result-conformance-{fc}")
    kinds = list(KINDS)
    files, jobs, kind_of = {}, [], {}
    for category in ALL_CATEGORIES:
        questions, rows = _dataset(shared_data, category, tmp_path)
        truth = fc_result(import_suite("bfcl", [questions]))
        answers = {
            r["id"]: r["ground_truth"]
            for r in map(json.loads, (questions.parent / "possible_answer" / questions.name)
                         .read_text(encoding="utf-8").splitlines())
        }  # fmt: skip
        results = {}
        for n, row in enumerate(rows):
            kind = kinds[(n + n // len(kinds)) % len(kinds)]
            result = KINDS[kind](json.loads(json.dumps(truth[row["id"]])), rng)
            results[row["id"]] = result if fc else _prompt(result)
            kind_of[row["id"]] = kind
            jobs.append({"result": results[row["id"]], "truth": answers[row["id"]], "entry": row})
        files[questions] = results
    theirs = _theirs(jobs, fc, tmp_path)
    ours: dict[str, dict[str, Any]] = {}
    for questions, results in files.items():
        ours.update(_ours(questions, results, tmp_path))
    assert set(ours) == set(theirs) == set(kind_of)
    failing: dict[str, set[str]] = {}
    for cid, ref in theirs.items():
        mine = ours[cid]
        assert (mine["status"] == "passed") == ref["valid"], (cid, kind_of[cid], ref, mine)
        if not ref["valid"]:
            head = mine["explanation"].split("\n")[0]
            assert head.startswith(f"{ref['error_type']}: {ref['error_message']}"), (cid, head)
            failing.setdefault(ref["error_type"], set()).add(kind_of[cid])
    # the outputs fail, in every way BFCL's runner reports a multi-turn entry
    assert set(failing) == {
        "multi_turn:inference_error",
        "multi_turn:force_terminated",
        "multi_turn:empty_turn_model_response",
        "multi_turn:instance_state_mismatch",
        "multi_turn:execution_response_mismatch",
    }
    assert sum(r["valid"] for r in theirs.values()) > len(ALL_CATEGORIES) * 200 * COPIES // 10
