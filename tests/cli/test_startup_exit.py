"""The ``agentgauge`` program ends without the interpreter's teardown (issue 26, start-up and
exit: ``cli/_startup.py: exit_process``), and loses nothing by it: every line written to a
pipe arrives, ``atexit`` handlers run, a running non-daemon thread is waited for, the exit
status is the command's, and no command leaves a file open for writing when it returns (the
teardown would have flushed and closed it; ``os._exit`` does not). Whole processes, no
timings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SUITE = """\
name: one
tools:
  - name: get_weather
    description: Weather for a city.
    parameters:
      type: object
      properties: {city: {type: string}}
      required: [city]
cases:
  - id: c1
    input: What is the weather in Paris?
    expect:
      tool_calls:
        - name: get_weather
          arguments: {city: Paris}
"""

#: the child: something registered at exit and (optionally) a non-daemon thread still
#: writing, then the program exactly as the console script runs it
CHILD = """
import atexit, os, sys, threading
marks = sys.argv[1]
def at_exit():
    with open(marks, "a") as fh:
        fh.write("atexit\\n")
atexit.register(at_exit)
if os.environ.get("TEST_THREAD") == "1":
    def late():
        threading.main_thread().join()  # runs on until the program's own end
        with open(marks, "a") as fh:
            fh.write("thread\\n")
    threading.Thread(target=late).start()
sys.argv = ["agentgauge", *sys.argv[2:]]
from agentgauge.__main__ import entry
entry()
"""


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "one.yaml"
    path.write_text(SUITE)
    # the mock agent calls no tool: this suite's gate fails
    (tmp_path / "gated.yaml").write_text(SUITE + "gates:\n  min_pass_rate: 0.9\n")
    return path


def _child(
    tmp_path: Path, *args: str, thread: bool = False, fast: bool = True
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    marks = tmp_path / "marks.txt"
    marks.unlink(missing_ok=True)
    env = {**os.environ, "AGENTGAUGE_HISTORY": str(tmp_path / "history.sqlite")}
    env["TEST_THREAD"] = "1" if thread else "0"
    env["AGENTGAUGE_FAST_EXIT"] = "1" if fast else "0"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(marks), *args],
        capture_output=True,  # pipes: block-buffered, lost if not flushed before os._exit
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=120,
    )
    return done, marks.read_text().splitlines() if marks.exists() else []


def _run(suite: Path, out: Path, *more: str) -> list[str]:
    return ["run", str(suite), "--agent", "mock:", "-o", str(out), "--no-cache", *more]


def test_the_output_exit_status_and_atexit_handlers_survive_the_fast_exit(
    tmp_path: Path, suite: Path
) -> None:
    fast, marks = _child(tmp_path, *_run(suite, tmp_path / "fast"))
    slow, slow_marks = _child(tmp_path, *_run(suite, tmp_path / "slow"), fast=False)
    assert fast.returncode == slow.returncode == 0, fast.stderr
    assert marks == slow_marks == ["atexit"]
    # the whole console report reached the pipe: the same lines as the interpreter's exit
    # gives, but for the timings and the run folder's name
    assert "expected a call to get_weather, got <no tool>" in fast.stdout.splitlines()[-1]
    assert len(fast.stdout.splitlines()) == len(slow.stdout.splitlines())
    assert len(fast.stderr.splitlines()) == len(slow.stderr.splitlines())
    results = (tmp_path / "fast" / "results.jsonl").read_text()
    assert results.count("\n") == 1
    assert json.loads((tmp_path / "fast" / "summary.json").read_text())["cases"] == 1


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["validate", "missing.yaml"], 2),  # bad input: one line, exit 2
        (["run", "gated.yaml", "--agent", "mock:", "-o", "out", "--no-cache", "--gate"], 1),
        (["--version"], 0),
    ],
)
def test_the_exit_status_is_the_commands(
    tmp_path: Path, suite: Path, args: list[str], status: int
) -> None:
    fast, marks = _child(tmp_path, *args)
    slow, _ = _child(tmp_path, *[a.replace("out", "out2") for a in args], fast=False)
    assert (fast.returncode, slow.returncode) == (status, status), fast.stderr
    assert marks == ["atexit"]
    if status == 2:
        assert fast.stderr == slow.stderr != ""


def test_a_running_non_daemon_thread_is_waited_for(tmp_path: Path, suite: Path) -> None:
    """The check can fail: ``os._exit`` while the thread runs would lose its line (the exit
    then goes the interpreter's way, which joins the thread before the atexit handlers)."""
    done, marks = _child(tmp_path, *_run(suite, tmp_path / "run"), thread=True)
    assert done.returncode == 0, done.stderr
    assert marks == ["thread", "atexit"]


#: the child: a command through ``main`` in this process, then every file object still open
#: for writing (the fast exit would not flush it); ``TEST_LEAK=1`` leaves one open on purpose
OPEN_FILES = """
import gc, io, json, os, sys
from agentgauge.cli import main
if os.environ.get("TEST_LEAK") == "1":
    leak = open(os.path.join(os.path.dirname(sys.argv[1]), "leak.txt"), "w")
    leak.write("x")
try:
    main(sys.argv[2:])
except SystemExit as exc:
    code = exc.code
gc.unfreeze()  # main froze what it built: gc.get_objects() would not see it
open_ = []
for obj in gc.get_objects():
    if isinstance(obj, io.IOBase) and not obj.closed:
        try:
            writable = obj.writable() and obj.fileno() > 2  # not the standard streams
        except (ValueError, OSError):
            continue
        if writable:
            open_.append(repr(obj))
with open(sys.argv[1], "w") as fh:
    json.dump({"code": code, "open": open_}, fh)
"""


def _open_after(tmp_path: Path, *args: str, leak: bool = False) -> dict[str, Any]:
    out = tmp_path / "open.json"
    env = {**os.environ, "AGENTGAUGE_HISTORY": str(tmp_path / "history.sqlite")}
    env["TEST_LEAK"] = "1" if leak else "0"
    done = subprocess.run(
        [sys.executable, "-c", OPEN_FILES, str(out), *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=120,
    )
    assert out.exists(), done.stderr
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def test_no_command_leaves_a_file_open_for_writing(tmp_path: Path, suite: Path) -> None:
    run_dir = tmp_path / "run"
    commands = [
        [*_run(suite, run_dir), "--no-progress"],  # with the response cache and history on
        ["run", "--resume", str(run_dir), "--no-progress"],
        ["report", str(run_dir), "--format", "html", "-o", str(tmp_path / "r.html")],
        ["report", str(run_dir), "--format", "junit", "-o", str(tmp_path / "r.xml")],
        ["report", str(run_dir), "--format", "markdown", "-o", str(tmp_path / "r.md")],
        ["gate", str(run_dir)],
        ["validate", str(suite)],
        ["schema", "-o", str(tmp_path / "schema.json")],
    ]
    for args in commands:
        data = _open_after(tmp_path, *args)
        assert data["code"] in (0, 1), args
        assert data["open"] == [], args


def test_the_open_file_probe_finds_a_file_left_open(tmp_path: Path, suite: Path) -> None:
    """The check can fail: a file the process left open for writing is found."""
    data = _open_after(tmp_path, "validate", str(suite), leak=True)
    assert data["code"] == 0
    assert data["open"]
    assert all("leak.txt" in seen for seen in data["open"])  # its layers: text, buffer, raw
