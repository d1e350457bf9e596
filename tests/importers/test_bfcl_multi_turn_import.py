"""BFCL's multi-turn categories import as cases on the built-in world ``bfcl`` (refused before:
"multi-turn categories need BFCL's stateful executable tool back-ends"); bad files are refused
with ``file:line: field: what``, exit 2."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import UserError
from agentgauge.importers import import_suite
from agentgauge.importers._bfcl_multi import ADDED_FUNCTIONS_PROMPT, STEP_LIMIT
from agentgauge.suites import load_suite, write_suite
from bfcl_multi_helpers import CATEGORIES, entries, ground_truth, question_file


@pytest.mark.parametrize("category", CATEGORIES)
def test_every_entry_of_a_category_imports(shared_data: Path, category: str) -> None:
    suite = import_suite("bfcl", [question_file(shared_data, category)])
    raw = entries(shared_data, category)
    truth = ground_truth(shared_data, category)
    assert len(suite.cases) == len(raw) == 200
    assert suite.world is not None
    assert suite.world.builtin == "bfcl"
    tools = {t.name for t in suite.tools}
    for case, entry in zip(suite.cases, raw, strict=True):
        assert case.id == entry["id"]
        assert case.category == category
        assert 1 + len(case.turns) == len(entry["question"])
        assert case.max_steps == STEP_LIMIT
        assert case.world is not None
        assert case.world.state is not None
        assert case.world.state["involved_classes"] == entry["involved_classes"]
        assert case.world.state["initial_config"] == entry.get("initial_config", {})
        assert case.metadata["bfcl_ground_truth"] == truth[entry["id"]]
        assert set(case.tools or []) <= tools
        expects = [case.expect, *(t.expect for t in case.turns)]
        for exp, calls in zip(expects, truth[entry["id"]], strict=True):
            assert exp is not None
            assert exp.state is not None
            assert exp.state.same_as_reference
            assert [c.name for c in exp.state.reference or []] == [c.split("(")[0] for c in calls]
        missed = entry.get("missed_function", {})
        for i, turn in enumerate(case.turns, start=1):
            assert turn.add_tools == missed.get(str(i), [])
            if str(i) in missed:
                assert turn.user == ADDED_FUNCTIONS_PROMPT
    if category == "multi_turn_miss_func":
        assert all(any(t.add_tools for t in c.turns) for c in suite.cases)


def test_positional_ground_truth_is_named_by_the_function_doc(shared_data: Path) -> None:
    suite = import_suite("bfcl", [question_file(shared_data, "multi_turn_base")])
    case = suite.cases[0]  # its turn 2 is "sort('final_report.pdf')"
    assert case.metadata["bfcl_ground_truth"][2] == ["sort('final_report.pdf')"]  # type: ignore[index]
    ref = case.turns[1].expect.state.reference  # type: ignore[union-attr]
    assert ref is not None
    assert ref[0].arguments == {"file_name": "final_report.pdf"}


def test_the_long_context_category_imports_when_given(tmp_path: Path) -> None:
    data = pytest.importorskip("bfcl_eval").__file__
    folder = Path(str(data)).parent / "data"
    path = folder / "BFCL_v4_multi_turn_long_context.json"
    if not path.exists():
        pytest.skip("this bfcl-eval has no long-context data")
    suite = import_suite("bfcl", [path])
    assert len(suite.cases) == 200
    assert all(c.world and c.world.state and c.world.state["long_context"] for c in suite.cases)


def test_held_back_tools_survive_a_written_suite(shared_data: Path, tmp_path: Path) -> None:
    out = tmp_path / "miss_func.json"
    done = subprocess.run(
        [sys.executable, "-m", "agentgauge", "import", "bfcl",
         str(question_file(shared_data, "multi_turn_miss_func")), "-o", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "imported 200 case(s)" in done.stdout
    suite = load_suite(out)
    assert [t.add_tools for t in suite.cases[14].turns] == [[], [], [], ["add_contact"]]


def test_written_multi_turn_suites_load_back_equal_and_validate(
    shared_data: Path, tmp_path: Path
) -> None:
    # (miss_func: held-back tools and the added turns' messages too)
    suite = import_suite("bfcl", [question_file(shared_data, "multi_turn_miss_func")])
    for out in (tmp_path / "mt", tmp_path / "mt.yaml", tmp_path / "mt.json"):
        write_suite(suite, out)
        loaded = load_suite(out)
        assert loaded.cases == suite.cases
        assert loaded.tools == suite.tools
        assert loaded.world == suite.world
    # the tools the ground truth calls (the cases' state references) are not "unused"
    called = {
        call.split("(")[0]
        for case in suite.cases
        for turn in case.metadata["bfcl_ground_truth"]  # type: ignore[union-attr]
        for call in turn  # type: ignore[union-attr]
    }
    unused = len({t.name for t in suite.tools} - called)
    assert 0 < unused < len(suite.tools)
    done = subprocess.run(
        [sys.executable, "-m", "agentgauge", "validate", str(tmp_path / "mt.json")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"{unused} of {len(suite.tools)} tools are never expected" in done.stdout + done.stderr


def test_a_folder_import_still_leaves_the_multi_turn_files_out(shared_data: Path) -> None:
    suite = import_suite("bfcl", [shared_data / "bfcl-v4"])
    assert not any("multi_turn" in c.id for c in suite.cases)
    assert suite.world is None


# ---------------------------------------------------------------------------- bad input


def _copy(shared: Path, tmp: Path, rows: int = 2) -> Path:
    """A small multi-turn dataset in ``tmp``: the first ``rows`` base entries, answers, docs."""
    src = shared / "bfcl-v4"
    name = "BFCL_v4_multi_turn_base.json"
    (tmp / "possible_answer").mkdir(parents=True)
    for sub in ("", "possible_answer/"):
        lines = (src / f"{sub}{name}").read_text(encoding="utf-8").splitlines()[:rows]
        (tmp / f"{sub}{name}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copytree(src / "multi_turn_func_doc", tmp / "multi_turn_func_doc")
    return tmp / name


def _edit(path: Path, line: int, change: Any) -> None:
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    change(rows[line - 1])
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _cli_import(path: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentgauge", "import", "bfcl", str(path), "-o", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip


def test_a_missing_function_doc_folder_is_refused(shared_data: Path, tmp_path: Path) -> None:
    path = _copy(shared_data, tmp_path)
    shutil.rmtree(tmp_path / "multi_turn_func_doc")
    done = _cli_import(path, tmp_path / "out.json")
    assert done.returncode == 2
    assert f"{path}:1: no function docs folder" in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_back_end_is_refused_with_its_line(shared_data: Path, tmp_path: Path) -> None:
    path = _copy(shared_data, tmp_path)
    _edit(path, 2, lambda r: r["involved_classes"].append("os.system"))
    done = _cli_import(path, tmp_path / "out.json")
    assert done.returncode == 2
    assert f"{path}:2: involved_classes: unknown BFCL back-end 'os.system'" in done.stderr
    assert "Traceback" not in done.stderr


def test_ground_truth_turns_must_match_the_question(shared_data: Path, tmp_path: Path) -> None:
    path = _copy(shared_data, tmp_path)
    answers = tmp_path / "possible_answer" / path.name
    _edit(answers, 1, lambda r: r["ground_truth"].pop())
    with pytest.raises(UserError, match=rf"{answers.name}:1: ground_truth has 3 turns"):
        import_suite("bfcl", [path])


def test_a_ground_truth_call_that_is_not_a_call_is_refused(
    shared_data: Path, tmp_path: Path
) -> None:
    path = _copy(shared_data, tmp_path)
    answers = tmp_path / "possible_answer" / path.name
    _edit(answers, 2, lambda r: r["ground_truth"][0].append("__import__('os').system('x')"))
    with pytest.raises(UserError, match=r":2: ground_truth\[0\]: ground truth call"):
        import_suite("bfcl", [path])


def test_a_held_back_function_must_be_one_of_the_entry(shared_data: Path, tmp_path: Path) -> None:
    path = _copy(shared_data, tmp_path)
    _edit(path, 1, lambda r: r.update(missed_function={"2": ["no_such_function"]}))
    with pytest.raises(UserError, match=r":1: missed_function: \['no_such_function'\]"):
        import_suite("bfcl", [path])
