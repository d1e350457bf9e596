"""Hostile files outside the suite loader (issue 21, item 4): every file agentgauge reads.

A run directory is input too (a CI artifact, a colleague's folder), and so is every file named on
the command line. Each file kind below is replaced, in a copy of a small world of valid files,
by each hostile shape — ``/dev/zero``, a symlink to it, a sparse 3 GB file, a FIFO, a YAML alias
bomb, 5,000-deep nesting, invalid UTF-8, NUL bytes — and the command that reads it must refuse it
with one ``file:line: ...`` line and exit 2: no traceback, no hang, no MemoryError.

The commands run in the fuzz worker (tests/files/test_fuzz.py): a hang is cut off after the
per-input limit and a runaway read hits the worker's memory limit, so a regression fails instead
of taking the machine with it. A few run as real ``agentgauge`` subprocesses (with a timeout) to
show the exit status and the one line on stderr.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_fuzz import LOCATED, Harness, Outcome, write_base  # the fuzz worker (same folder)

#: a sparse file this big (no disk is used): its size alone must refuse it
SPARSE_BYTES = 3 * 1024**3
DEEP = 5000


def _alias_bomb() -> str:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        refs = ", ".join([f"*a{i - 1}"] * 10)
        lines.append(f"a{i}: &a{i} [{refs}]")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------ the world

LABELS = (
    json.dumps(
        {
            "task": "equivalence_answer",
            "inputs": {"question": "Capital of France?", "reference": "Paris", "agent_output": "P"},
            "label": "equivalent",
        }
    )
    + "\n"
)
GATES = "gates:\n  min_pass_rate: 0.1\n"
SCRIPT_YAML = "- text: hello\n- calls: [{name: get_weather, arguments: {city: Paris}}]\n"
SCRIPT_JSONL = '{"text": "hello"}\n'
TEMPLATE = "---\nversion: t1\n---\nIs {agent_output} like {reference}? Answer in JSON.\n"
_USER = [{"role": "user", "parts": [{"type": "text", "content": "Hi"}]}]
_ASSISTANT = [{"role": "assistant", "parts": [{"type": "text", "content": "Hello"}]}]
TRACE = {
    "resourceSpans": [
        {
            "scopeSpans": [
                {
                    "spans": [
                        {
                            "traceId": "0af7651916cd43dd8448eb211c80319c",
                            "spanId": "b7ad6b7169203331",
                            "name": "chat",
                            "startTimeUnixNano": "1",
                            "endTimeUnixNano": "2",
                            "attributes": [
                                {"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}},
                                {
                                    "key": "gen_ai.input.messages",
                                    "value": {"stringValue": json.dumps(_USER)},
                                },
                                {
                                    "key": "gen_ai.output.messages",
                                    "value": {"stringValue": json.dumps(_ASSISTANT)},
                                },
                            ],
                        }
                    ]
                }
            ]
        }
    ]
}


#: a suite with code of its own: running it asks the user's config whether that code may run
CODE_SUITE = """\
name: code
scorers:
  - scorer: python:checks.py:check
cases:
  - {id: a, input: hi, expect: {behavior: no_tool}}
"""


#: a suite whose world's state is in a file of its own
WORLD_SUITE = """\
name: shop
tools:
  - name: get_order
    description: Look up an order
    parameters:
      type: object
      properties: {order_id: {type: string}}
      required: [order_id]
world:
  state_file: state.yaml
  operations:
    get_order: {op: get, collection: orders, key: order_id}
cases:
  - {id: a, input: Order A1?, expect: {tool_calls: [{name: get_order}]}}
"""


def build_world(root: Path, harness: Harness) -> Path:
    """Valid files of every kind under ``root/world``: a suite, a run, a matrix run, two shards,
    a history, and the files named on the command line."""
    world = root / "world"
    base = world / "base"
    base.mkdir(parents=True)
    write_base(base)
    files = {
        "gates.yaml": GATES,
        "labels.jsonl": LABELS,
        "system.txt": "You are terse.\n",
        "load.yaml": "users: 1\nsessions: 1\n",
        "script.yaml": SCRIPT_YAML,
        "script.jsonl": SCRIPT_JSONL,
        "traces.json": json.dumps(TRACE),
        "feedback.jsonl": '{"case_id": "c1", "score": 1}\n',
        "templates/equivalence_answer.md": TEMPLATE,
        "code/suite.yaml": CODE_SUITE,
        "code/checks.py": "def check(ctx):\n    return None\n",
        "config/agentgauge/config.toml": "allow_suite_code = true\n",
        "world/suite.yaml": WORLD_SUITE,
        "world/state.yaml": "orders:\n  A1: {status: pending}\n",
    }
    for name, text in files.items():
        (world / name).parent.mkdir(parents=True, exist_ok=True)
        (world / name).write_text(text, encoding="utf-8")
    suite = base / "suite.yaml"
    history = world / "history.sqlite"
    common = ["--no-progress", "--history", history]
    for args in (
        ["run", suite, "--agent", "mock:", "-o", world / "run", *common],
        ["run", suite, "--agent", "mock:", "--agent", "mock:echo", "-o", world / "matrix", *common],
        ["run", suite, "--agent", "mock:", "--shard", "1/2", "-o", world / "shard1", *common],
        ["run", suite, "--agent", "mock:", "--shard", "2/2", "-o", world / "shard2", *common],
    ):
        outcome = harness.cli(*args, env=ENV)
        assert outcome.status == "ok", (args, outcome)
    # what people add to a run afterwards: online feedback and expert planning grades
    (world / "run" / "feedback.jsonl").write_text('{"case_id": "c1", "score": 1}\n')
    (world / "run" / "reviews.jsonl").write_text('{"id": "c1#0", "label": 4}\n')
    return world


#: the worker's user state (history, cache, config) is inside the world, never the user's
ENV: dict[str, str | None] = {}


def env_for(folder: Path) -> dict[str, str | None]:
    return {
        "AGENTGAUGE_HISTORY": str(folder / "history.sqlite"),
        "AGENTGAUGE_CACHE_DIR": str(folder / "cache"),
        "XDG_CONFIG_HOME": str(folder / "config"),
        "AGENTGAUGE_CONFIG": None,
    }


@dataclass(frozen=True)
class Kind:
    """A file agentgauge reads: where it sits in the world, and the command that reads it."""

    name: str
    #: the file, relative to the world
    target: str
    #: the command's arguments, ``{d}`` standing for the world's copy
    args: tuple[str, ...]
    #: written as YAML (the alias bomb applies), else JSON / JSONL / text
    yaml: bool = False
    #: a JSON document (nesting is written as JSON) rather than lines or text
    text: bool = False
    #: TOML (nesting is written as TOML arrays)
    toml: bool = False


RUN = ("--no-progress", "--no-history")
MERGE = ("merge", "{d}/shard1", "{d}/shard2", "-o", "{d}/m", "--no-history")
KINDS: tuple[Kind, ...] = (
    Kind("run.json", "run/run.json", ("report", "{d}/run", "--format", "json")),
    Kind("results.jsonl", "run/results.jsonl", ("report", "{d}/run", "--format", "json")),
    Kind(
        "results.jsonl on resume",
        "run/results.jsonl",
        ("run", "{d}/base/suite.yaml", "--resume", "{d}/run", *RUN),
    ),
    Kind(
        "run.json on resume",
        "run/run.json",
        ("run", "{d}/base/suite.yaml", "--resume", "{d}/run", *RUN),
    ),
    Kind("baseline results", "run/results.jsonl", ("compare", "{d}/shard1", "{d}/run")),
    Kind("export-otel results", "run/results.jsonl", ("export-otel", "{d}/run", "-o", "{d}/o")),
    Kind("matrix.json", "matrix/matrix.json", ("gate", "{d}/matrix")),
    Kind("member run.json", "matrix/mock/run.json", ("gate", "{d}/matrix")),
    Kind("shard results", "shard1/results.jsonl", MERGE),
    Kind("shard run.json", "shard1/run.json", MERGE),
    Kind("--gates", "gates.yaml", ("gate", "{d}/run", "--gates", "{d}/gates.yaml"), yaml=True),
    Kind("suite gates", "base/suite.yaml", ("gate", "{d}/run"), yaml=True),
    Kind(
        "--labels",
        "labels.jsonl",
        ("calibrate", "--labels", "{d}/labels.jsonl", "--judge", "mock:", "--no-cache"),
    ),
    Kind(
        "--templates",
        "templates/equivalence_answer.md",
        (
            "calibrate",
            "--labels",
            "{d}/labels.jsonl",
            "--judge",
            "mock:",
            "--no-cache",
            "--templates",
            "{d}/templates",
        ),
        text=True,
    ),
    Kind(
        "--system-file",
        "system.txt",
        (
            "run",
            "{d}/base/suite.yaml",
            "--agent",
            "mock:",
            "--system-file",
            "{d}/system.txt",
            "-o",
            "{d}/out",
            *RUN,
        ),
        text=True,
    ),
    Kind(
        "mock: YAML script",
        "script.yaml",
        ("run", "{d}/base/suite.yaml", "--agent", "mock:{d}/script.yaml", "-o", "{d}/out", *RUN),
        yaml=True,
    ),
    Kind(
        "mock: JSONL script",
        "script.jsonl",
        ("run", "{d}/base/suite.yaml", "--agent", "mock:{d}/script.jsonl", "-o", "{d}/out", *RUN),
    ),
    Kind(
        "score --responses",
        "base/responses.jsonl",
        (
            "score",
            "{d}/base/suite.yaml",
            "-r",
            "{d}/base/responses.jsonl",
            "-o",
            "{d}/out",
            "--skip-missing",
            "--no-history",
        ),
    ),
    Kind("capture traces", "traces.json", ("capture", "{d}/traces.json", "-o", "{d}/cap.jsonl")),
    Kind(
        "score --feedback",
        "feedback.jsonl",
        (
            "score",
            "{d}/base/suite.yaml",
            "-r",
            "{d}/base/responses.jsonl",
            "-o",
            "{d}/out",
            "--skip-missing",
            "--no-history",
            "--feedback",
            "{d}/feedback.jsonl",
        ),
    ),
    Kind("run feedback.jsonl", "run/feedback.jsonl", ("report", "{d}/run")),
    Kind("run reviews.jsonl", "run/reviews.jsonl", ("report", "{d}/run")),
    Kind(
        "load --profile",
        "load.yaml",
        (
            "load",
            "{d}/base/suite.yaml",
            "--agent",
            "mock:",
            "--profile",
            "{d}/load.yaml",
            "-o",
            "{d}/out",
        ),
        yaml=True,
    ),
    Kind("tools file", "base/tools.json", ("tools", "list", "{d}/base/tools.json")),
    Kind(
        "generate suite",
        "base/suite.yaml",
        ("generate", "{d}/base/suite.yaml", "-o", "{d}/gen.yaml", "--no-check"),
        yaml=True,
    ),
    Kind(
        "generate tools file",
        "base/tools.json",
        ("generate", "{d}/base/tools.json", "-o", "{d}/gen.yaml", "--no-check"),
    ),
    Kind("history", "history.sqlite", ("history", "--history", "{d}/history.sqlite")),
    Kind(
        "world state_file",
        "world/state.yaml",
        ("run", "{d}/world/suite.yaml", "--agent", "mock:", "-o", "{d}/out", *RUN),
        yaml=True,
    ),
    Kind(
        "user config",
        "config/agentgauge/config.toml",
        ("run", "{d}/code/suite.yaml", "--agent", "mock:", "-o", "{d}/out", *RUN),
        toml=True,
    ),
    Kind(
        "response cache",
        "cache/responses.sqlite3",
        ("run", "{d}/base/suite.yaml", "--agent", "mock:", "-o", "{d}/out", *RUN),
    ),
)
#: binary files (SQLite): SQLite refuses a corrupt one itself (tested as "sparse")
BINARY = ("history", "response cache")

SHAPES = ("dev-zero", "symlink-zero", "sparse", "fifo", "alias-bomb", "deep", "utf8", "nul")


def _deep_text(kind: Kind) -> bytes:
    if kind.toml:
        return ("x = " + "[" * DEEP + "1" + "]" * DEEP + "\n").encode()
    if kind.yaml:
        return ("x: " + "[" * DEEP + "1" + "]" * DEEP + "\n").encode()
    return ('{"a": ' * DEEP + "1" + "}" * DEEP + "\n").encode()


def _in_gates(shape: str) -> bytes:
    """The hostile ``shape`` inside a suite's ``gates:`` block."""
    if shape == "alias-bomb":
        return b"".join(b"  " + line.encode() + b"\n" for line in _alias_bomb().splitlines())
    if shape == "deep":
        return b"  min_pass_rate: " + b"[" * DEEP + b"1" + b"]" * DEEP + b"\n"
    return b"  min_pass_rate: 0.5" + (b"\x00" if shape == "nul" else b"\xff\xfe") + b"\n"


def place(kind: Kind, shape: str, folder: Path) -> list[str]:
    """Put the hostile ``shape`` where ``kind``'s file is in ``folder``; the command's args."""
    path = folder / kind.target
    args = [a.replace("{d}", str(folder)) for a in kind.args]
    good = path.read_bytes() if path.is_file() else b""
    if path.exists() or path.is_symlink():
        path.unlink()
    if shape == "dev-zero":
        direct = str(path) in args and path.suffix not in (".yaml", ".jsonl", ".json", ".md")
        if direct:  # the command line names /dev/zero itself
            args = [("/dev/zero" if a == str(path) else a) for a in args]
            path.write_bytes(good)
        else:
            path.symlink_to("/dev/zero")
    elif shape == "symlink-zero":
        path.symlink_to("/dev/zero")
    elif shape == "sparse":
        with open(path, "wb") as fh:
            fh.truncate(SPARSE_BYTES)
    elif shape == "fifo":
        os.mkfifo(path)
    elif kind.name == "suite gates":  # the quick read parses the gates block only
        head = good[: good.index(b"\ngates:")]
        path.write_bytes(head + b"\ngates:\n" + _in_gates(shape))
    elif shape == "alias-bomb":
        path.write_bytes(_alias_bomb().encode() if kind.yaml else good[:-1] + b"\n" + b"&a [*a]\n")
    elif shape == "deep":
        path.write_bytes(_deep_text(kind))
    elif shape == "utf8":
        path.write_bytes(good[: len(good) // 2] + b"\xff\xfe\xc3(" + good[len(good) // 2 :])
    elif shape == "nul":
        path.write_bytes(good[: len(good) // 2] + b"\x00" + good[len(good) // 2 :])
    return args


def applies(kind: Kind, shape: str) -> bool:
    """The shapes a kind can be given (an alias bomb only in YAML; nesting not in plain text)."""
    if shape == "alias-bomb":
        return kind.yaml
    if shape == "deep":
        return not kind.text and kind.name not in BINARY
    return not (shape in ("utf8", "nul") and kind.name in BINARY)


# ------------------------------------------------------------------------------------ fixtures


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    with Harness() as h:
        yield h


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory, harness: Harness) -> Path:
    root = tmp_path_factory.mktemp("hostile-files")
    ENV.update(env_for(root / "world"))
    return build_world(root, harness)


def copy_world(world: Path, dest: Path) -> Path:
    """A copy of the world whose records name the copy's suite (so the suite read is the copy's)."""
    shutil.copytree(world, dest, symlinks=True)
    for name in ("run.json", "matrix.json"):
        for path in dest.rglob(name):
            path.write_text(path.read_text().replace(str(world), str(dest)))
    return dest


def refusal(outcome: Outcome, file_name: str) -> str:
    """The one rejection line, after checking the command refused with it."""
    assert outcome.status == "rejected", outcome
    lines = [ln for ln in outcome.lines if not ln.startswith("warning:")]
    assert len(lines) == 1, lines
    assert LOCATED.match(lines[0]), lines[0]
    assert file_name in lines[0], lines[0]
    return lines[0]


CASES = [(k, s) for k in KINDS for s in SHAPES if applies(k, s)]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("kind", "shape"), CASES, ids=[f"{k.name}-{s}".replace(" ", "_") for k, s in CASES]
)
def test_hostile_file_is_refused_in_one_line(
    kind: Kind, shape: str, world: Path, harness: Harness, tmp_path: Path
) -> None:
    folder = copy_world(world, tmp_path / "w")
    args = place(kind, shape, folder)
    outcome = harness.cli(*args, env=env_for(folder))
    shown = "/dev/zero" if "/dev/zero" in args else Path(kind.target).name
    refusal(outcome, shown)


def test_the_world_is_valid(world: Path, harness: Harness, tmp_path: Path) -> None:
    """Every command of the table accepts the unmutated files (the refusals above are about
    the shapes, not about a broken world)."""
    for kind in KINDS:
        folder = copy_world(world, tmp_path / re.sub(r"\W", "_", kind.name))
        args = [a.replace("{d}", str(folder)) for a in kind.args]
        outcome = harness.cli(*args, env=env_for(folder))
        assert outcome.status == "ok", (kind.name, outcome)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, Harness() as h:
        ENV.update(env_for(Path(tmp) / "world"))
        w = build_world(Path(tmp), h)
        for k in KINDS:
            for s in SHAPES:
                if not applies(k, s):
                    continue
                dest = copy_world(w, Path(tmp) / f"c-{abs(hash((k.name, s)))}")
                out = h.cli(*place(k, s, dest), env=env_for(dest))
                detail = out.lines[:1] if out.status != "crash" else [out.error]
                print(f"{k.name:26} {s:13} {out.status:9} {detail[0][:150] if detail else ''}")
                shutil.rmtree(dest, ignore_errors=True)
    sys.exit(0)
