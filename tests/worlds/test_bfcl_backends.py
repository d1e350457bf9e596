"""BFCL's back-ends (``bfcl-eval``) as a world: calls executed as BFCL executes them (compared
with BFCL's own ``execute_multi_turn_func_call`` here), only the known classes by name, and a
clear install message when the package is absent."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agentgauge.errors import MissingExtraError, WorldError
from agentgauge.importers import import_suite
from agentgauge.schema import ToolCall
from agentgauge.suites import write_suite
from agentgauge.worlds import BFCL_INSTALL, BfclWorld, builtin_world, require_bfcl_eval
from agentgauge.worlds._bfcl_exec import BackendSet
from bfcl_multi_helpers import need_bfcl_eval, question_file

CONFIG = {
    "GorillaFileSystem": {
        "root": {
            "alex": {
                "type": "directory",
                "contents": {
                    "notes.txt": {"type": "file", "content": "b line\na line\n"},
                    "docs": {"type": "directory", "contents": {}},
                },
            }
        }
    },
    "TwitterAPI": {"username": "alex", "password": "pw", "tweets": {}, "tweet_counter": 0},
}
INVOLVED = ["GorillaFileSystem", "MathAPI", "TwitterAPI"]
#: calls that exercise each rule of BFCL's execution: results, errors, names, syntax, nesting
CALLS = [
    "ls(a=True)",
    "cd(folder='docs')",
    "cd(folder='..')",
    "sort('notes.txt')",  # positional, as in the ground truth
    "mkdir(dir_name='docs')",  # an error dict from the back-end
    "mv(source='notes.txt')",  # a TypeError: missing argument
    "no_such_function(x=1)",  # a NameError
    "exit()",  # refused by name
    "cat(file_name=)",  # a syntax error
    "cat(file_name=missing_name)",  # a name as a value
    "echo(content='x' * 3, file_name='three.txt')",  # arithmetic on literals
    "cat(file_name='three.txt')",
    "add(a=1, b=2.5)",
    "mean(numbers=[1, 2, 3, 4])",
    "logarithm(value=20, base=10, precision=4)",
    "post_tweet(content='hi', tags=['#a'], mentions=[])",
    "authenticate_twitter(username='alex', password='pw')",
    "post_tweet(content='hi', tags=['#a'], mentions=[])",
    "pwd()",
    "cd(folder=pwd())",  # a nested call: its dict is the argument
    "wc(file_name='notes.txt', mode='l')",
]


def _bfcl_execute(calls: list[str], name: str) -> tuple[list[str], dict[str, Any]]:
    from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_utils import (
        execute_multi_turn_func_call,
    )

    with contextlib.redirect_stdout(io.StringIO()):
        return execute_multi_turn_func_call(calls, CONFIG, INVOLVED, name, "entry_0")  # type: ignore[no-any-return]


def test_calls_execute_exactly_as_bfcl_executes_them() -> None:
    need_bfcl_eval()
    theirs, instances = _bfcl_execute(CALLS, "agentgauge_test_exec")
    ours = BackendSet(INVOLVED, CONFIG)
    assert ours.execute(CALLS) == theirs
    for name, instance in instances.items():
        public = {k: v for k, v in vars(instance).items() if not k.startswith("_")}
        mine = {k: v for k, v in vars(ours.instances[name]).items() if not k.startswith("_")}
        assert mine == public, name
    assert any(r.startswith("Error during execution: name 'no_such_function'") for r in theirs)
    assert "Error during execution: Function call exit is not allowed." in theirs


def test_a_call_changes_the_state_it_shows() -> None:
    need_bfcl_eval()
    world = BfclWorld({"involved_classes": INVOLVED, "initial_config": CONFIG})
    assert {"ls", "post_tweet", "add"} <= world.tool_names
    before = world.snapshot()
    root = before["GorillaFileSystem"]["root"]  # type: ignore[index]
    # a directory's link back to its parent is left out (no cycle)
    assert "parent" not in root["contents"]["docs"]  # type: ignore[index]
    reply = world.apply(ToolCall(name="touch", arguments={"file_name": "new.txt"}))
    assert reply.result == "None"  # what BFCL sends the model: str(None)
    assert [w.path for w in reply.writes] == ['GorillaFileSystem.root.contents["new.txt"]']
    refused = world.apply(ToolCall(name="mkdir", arguments={"dir_name": "docs"}))
    assert json.loads(str(refused.result)) == {
        "error": "mkdir: cannot create directory 'docs': File exists"
    }
    assert refused.writes == ()


def test_the_builtin_world_is_registered_as_bfcl() -> None:
    need_bfcl_eval()
    world = builtin_world("bfcl")({"involved_classes": ["MathAPI"]})
    assert world.apply(ToolCall(name="add", arguments={"a": 2, "b": 3})).result == '{"result": 5}'


@pytest.mark.parametrize(
    "state",
    [
        {"involved_classes": ["os.system"]},
        {"involved_classes": ["bfcl_eval.utils:load_file"]},
        {"involved_classes": ["GorillaFileSystem"], "module": "os"},
        {"involved_classes": "GorillaFileSystem"},
    ],
)
def test_only_the_known_back_ends_can_be_named(state: dict[str, Any]) -> None:
    with pytest.raises(WorldError, match="bfcl world"):
        BfclWorld(state)


def test_no_back_ends_is_a_world_that_answers_nothing() -> None:
    world = BfclWorld({})  # a single-turn case in a suite with multi-turn cases
    assert world.tool_names == frozenset()
    assert world.snapshot() == {}


def test_without_bfcl_eval_the_error_names_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in [n for n in sys.modules if n.split(".")[0] == "bfcl_eval"] + ["bfcl_eval"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if it were not installed
    with pytest.raises(MissingExtraError) as err:
        require_bfcl_eval()
    assert BFCL_INSTALL in str(err.value)
    assert BFCL_INSTALL == "pip install --no-deps bfcl-eval mpmath"


def test_a_run_without_bfcl_eval_is_refused_before_its_first_case(
    shared_data: Path, tmp_path: Path
) -> None:
    suite = tmp_path / "base.json"
    write_suite(import_suite("bfcl", [question_file(shared_data, "multi_turn_base")]), suite)
    code = (
        "import runpy, sys; sys.modules['bfcl_eval'] = None; "
        f"sys.argv = ['agentgauge', 'run', {str(suite)!r},"
        f" '--agent', 'mock:', '-o', {str(tmp_path / 'run')!r}]; "
        "runpy.run_module('agentgauge', run_name='__main__')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 2, done.stderr
    assert "pip install --no-deps bfcl-eval mpmath" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "run" / "results.jsonl").exists()
