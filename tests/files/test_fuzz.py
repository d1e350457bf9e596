"""Fuzzing every reader of untrusted input: suites, case files, tool files, responses, BFCL data.

A seeded generator mutates a small valid suite (and its tool and case files), a responses file and
a BFCL question/answer pair: byte flips, truncation, deep nesting, recursive aliases and alias
bombs, odd YAML tags, huge numbers, other encodings and byte-order marks, NULs, duplicate keys,
and references to files that are not regular files or are too big. Each mutated input goes
through what the command line does with it:

- ``validate``: :func:`agentgauge.io.check_suite` (load and lint);
- ``run``: the streaming loader ``agentgauge run`` uses (header, checking pass with the suite
  survey, then every case read again and serialised);
- ``score``: the ``agentgauge score`` command on a responses file;
- ``bfcl``: the ``agentgauge import bfcl`` command on a BFCL folder.

and must end in one of two ways: accepted, or refused with :class:`~agentgauge.errors.UserError`
whose every line names ``file:line``. A traceback (any other exception) or an input that takes
longer than the per-input limit is a failure. The inputs run in a worker process (so a hang can
be cut off and a runaway read hits a memory limit instead of the machine); a hung worker is
killed and replaced.

``python tests/files/test_fuzz.py`` prints the figures (mutations tried, tracebacks, hangs, lines
missing) for the code as it is; ``AGENTGAUGE_FUZZ_SEED`` / ``AGENTGAUGE_FUZZ_COUNT`` /
``AGENTGAUGE_FUZZ_LIMIT_S`` change the seed, the number of mutations per target and the
per-input limit.
"""

from __future__ import annotations

import json
import os
import random
import re
import select
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fuzz_files import FILE_TARGETS, file_ops, write_file_base

SEED = int(os.environ.get("AGENTGAUGE_FUZZ_SEED", "20261201"))
#: mutations per target file (20 targets: 8 suite-side, 12 of fuzz_files.py)
COUNT = int(os.environ.get("AGENTGAUGE_FUZZ_COUNT", "40"))
#: seconds one input may take in the worker (generous: the machine may be busy)
LIMIT_S = float(os.environ.get("AGENTGAUGE_FUZZ_LIMIT_S", "10"))
#: the worker's file-size limit (the user's setting; small, so a "too big" file is cheap)
WORKER_MAX_FILE_MB = "1"
#: address space of the worker: a runaway read fails there, not on the machine
WORKER_MEMORY = 2 << 30

#: ``file:line: ...`` (the only line without one is the "stopped after N problems" note)
LOCATED = re.compile(r"^[^\s:][^:]*:\d+: \S")
UNLOCATED_OK = re.compile(r"^\(stopped after \d+ problems\)$")

SUITE_YAML = """\
name: fuzz
description: A small suite that every mutation starts from.
tools:
  - name: get_weather
    description: Current weather for a city.
    parameters:
      type: object
      properties:
        city: {type: string, description: "City name"}
        unit: {type: string, enum: [c, f], default: c}
        days: {type: integer}
      required: [city]
    simulation:
      result: {temperature: 18, conditions: sunny}
  - name: cancel_order
    description: Cancel an order.
    parameters: {type: object, properties: {order_id: {type: string}}, required: [order_id]}
tool_files: [tools.json]
world:
  state_file: world.yaml
  keys: {orders: id}
  operations:
    cancel_order: {op: update, collection: orders, key: order_id, fields: {},
                   set: {status: cancelled}, require: {status: pending}}
defaults:
  system: You are a helpful assistant.
  max_steps: 4
cases:
  - id: weather-paris
    category: happy_path
    tags: [weather]
    input: What is the weather in Paris?
    expect:
      tool_calls:
        - name: get_weather
          arguments:
            city: {value: Paris, ignore_case: true}
            unit: {value: c, optional: true}
            days: {value: 2, tolerance: 1}
    metadata: {note: first, scores: [1, 2.5, -3e2], flag: true, nothing: null}
  - id: hello
    category: no_tool
    input:
      - {role: user, content: Hello there}
    expect: {behavior: no_tool, forbidden_tools: [search]}
  - id: cancel
    input: Cancel my order A1.
    world: {patch: {orders: {A2: null, A3: {status: shipped}}}}
    expect:
      tool_calls: [{name: cancel_order, arguments: {order_id: A1}}]
      state:
        checks:
          - {path: orders.A1.status, equals: cancelled}
          - {path: 'orders["A3"].status', matches: 'ship.*'}
          - {path: orders, count: 1, where: {status: cancelled}}
          - {path: orders.A2, absent: true}
        unchanged: [orders.A3]
        same_as_reference: true
case_files: [cases.jsonl, more.yaml]
gates:
  min_pass_rate: 0.5
"""

WORLD_YAML = """\
orders:
  A1: {status: pending, total: 30, items: [{sku: X1, qty: 2}]}
  A2: {status: pending, total: 5.5}
"""

TOOLS_JSON = """\
[
  {"type": "function", "function": {"name": "search", "description": "Search the web.",
   "parameters": {"type": "object", "properties": {"q": {"type": "string"},
   "limit": {"type": "integer", "default": 5}}, "required": ["q"]}}}
]
"""


def _jsonl(*rows: object) -> str:
    return "".join(row if isinstance(row, str) else json.dumps(row) + "\n" for row in rows)


CASES_JSONL = _jsonl(
    {
        "id": "search-1",
        "input": "Search for cats",
        "expect": {
            "tool_calls": [
                {
                    "name": "search",
                    "arguments": {"q": "cats", "limit": {"any": True, "optional": True}},
                }
            ]
        },
    },
    "# a comment line\n",
    {
        "id": "search-2",
        "category": "edge_case",
        "input": "Search",
        "expect": {"behavior": "clarify"},
        "metadata": {"deep": {"er": [1, {"x": None}]}},
    },
    {
        "id": "refuse-1",
        "category": "adversarial",
        "input": "Delete all",
        "expect": {"behavior": "refuse"},
    },
)

MORE_YAML = """\
- id: more-1
  input: Weather in Oslo in fahrenheit
  expect:
    tool_calls:
      - name: get_weather
        arguments: {city: Oslo, unit: f, days: {any: true, optional: true}}
- id: more-2
  category: ambiguous
  input: Weather?
  expect: {behavior: clarify}
  metadata: {list: [a, b, {c: d}], n: 0x1F, t: "10:30"}
"""

RESPONSES_JSONL = _jsonl(
    {
        "case_id": "weather-paris",
        "calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
    },
    {"case_id": "hello", "text": "Hi! How can I help?"},
    {"case_id": "search-1", "calls": [{"name": "search", "arguments": '{"q": "cats"}'}]},
    {
        "case_id": "search-2",
        "messages": [{"role": "assistant", "content": "What should I search?"}],
    },
    {"id": "refuse-1", "result": "[get_weather(city='Rome', days=3)]"},
    {"id": "more-1", "result": [{"get_weather": '{"city": "Oslo", "unit": "f"}'}]},
)

BFCL_FUNC = {
    "name": "math.hypot",
    "description": "Euclidean norm.",
    "parameters": {
        "type": "dict",
        "properties": {
            "x": {"type": "integer", "description": "x"},
            "y": {"type": "float", "description": "y"},
            "point": {"type": "tuple", "items": {"type": "float"}, "description": "p"},
            "opts": {"type": "dict", "properties": {"unit": {"type": "string"}}},
        },
        "required": ["x", "y"],
    },
}
BFCL_QUESTIONS = "".join(
    json.dumps(
        {
            "id": f"simple_python_{i}",
            "question": [[{"role": "user", "content": q}]],
            "function": [BFCL_FUNC],
        }
    )
    + "\n"
    for i, q in enumerate(["hypot of 4 and 5", "hypot of 1 and 2"])
)
BFCL_ANSWERS = (
    json.dumps(
        {
            "id": "simple_python_1",
            "ground_truth": [
                {"math.hypot": {"x": [1], "y": [2.0], "opts": [{"unit": ["cm", ""]}]}}
            ],
        }
    )
    + "\n"
    + json.dumps(
        {"id": "simple_python_0", "ground_truth": [{"math.hypot": {"x": [4], "y": [5.0, ""]}}]}
    )
    + "\n"
)
BFCL_IRRELEVANCE = (
    json.dumps(
        {
            "id": "irrelevance_0",
            "question": [[{"role": "user", "content": "Tell me a joke"}]],
            "function": [BFCL_FUNC],
        }
    )
    + "\n"
)

#: target -> (file name inside the input folder, base text, operations run on the folder)
TARGETS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "suite": ("suite.yaml", SUITE_YAML, ("validate", "run")),
    "tools": ("tools.json", TOOLS_JSON, ("validate", "run")),
    "world-state": ("world.yaml", WORLD_YAML, ("validate", "run")),
    "jsonl": ("cases.jsonl", CASES_JSONL, ("validate", "run")),
    "yaml-cases": ("more.yaml", MORE_YAML, ("validate", "run")),
    "responses": ("responses.jsonl", RESPONSES_JSONL, ("score",)),
    "bfcl-questions": ("bfcl/BFCL_v4_simple_python.json", BFCL_QUESTIONS, ("bfcl",)),
    "bfcl-answers": ("bfcl/possible_answer/BFCL_v4_simple_python.json", BFCL_ANSWERS, ("bfcl",)),
}


TARGETS.update(FILE_TARGETS)  # run directories and command-line files (fuzz_files.py)


def write_base(folder: Path) -> None:
    """The valid inputs every mutation starts from."""
    for name, text, _ in TARGETS.values():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (folder / "bfcl" / "BFCL_v4_irrelevance.json").write_text(BFCL_IRRELEVANCE, encoding="utf-8")
    write_file_base(folder)


# ------------------------------------------------------------------------------------ mutations


def _nested_json(depth: int, rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "[" * depth + "1" + "]" * depth
    return '{"a": ' * depth + "1" + "}" * depth


def _nested_yaml_block(depth: int, indent: int) -> str:
    lines = [" " * (indent + 2 * i) + f"k{i}:" for i in range(depth)]
    return "\n" + "\n".join(lines) + " 1"


def _alias_bomb(levels: int, width: int = 9) -> str:
    out = ["bomb0: &b0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        refs = ", ".join([f"*b{level - 1}"] * width)
        out.append(f"bomb{level}: &b{level} [{refs}]")
    return "\n".join(out)


ODD_TAGS = (
    "!!float abc",
    "!!int 12x",
    "!!int 0b102",
    "!!bool maybe",
    "!!null nope",
    "!!binary 'not*base64'",
    "!!binary aGVsbG8=",
    "!!timestamp 2026-13-45",
    "!!timestamp 2026-03-20",
    "!!set {a, b}",
    "!!omap [a, b]",
    "!!pairs [[a, b]]",
    "!!python/object:os.system ls",
    "!!python/name:os.system",
    "!custom thing",
    "!!str [a, list]",
    "!!map [not, a, map]",
    "!!seq {not: a seq}",
    "!!value x",
    "!<tag:example.com,2000:x> y",
)
HUGE_NUMBERS = (
    "1e999",
    "-1e999",
    "1e-999",
    "9" * 5000,
    "-" + "9" * 4301,
    "9" * 400,
    "0x" + "f" * 5000,
    "0o" + "7" * 6000,
    ".nan",
    "-.inf",
    "18446744073709551616",
    "-9223372036854775809",
    "1" + "0" * 30,
    "0." + "0" * 5000 + "1",
)
ENCODINGS = ("utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le", "latin-1", "cp1252")
BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")
#: references replacing a tool or case file name (special files, folders, big files, missing)
ODD_FILES = (
    "/dev/zero",
    "/dev/urandom",
    "/dev/null",
    "@fifo",
    "@big",
    "@dir",
    "@missing",
    "@link-zero",
)


def _flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if out:
            out[rng.randrange(len(out))] = rng.randrange(256)
    return bytes(out)


def _truncate(data: bytes, rng: random.Random) -> bytes:
    return data[: rng.randrange(len(data) + 1)]


def _nul(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    return data[:at] + b"\x00" + data[at:]


def _encoding(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8")
    choice = rng.random()
    if choice < 0.45:
        return (
            text.replace("Paris", "Pärís")
            .replace("cats", "cät€s")
            .encode(rng.choice(ENCODINGS), errors="replace")
        )
    if choice < 0.7:
        return rng.choice(BOMS) + data
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    bad = rng.choice((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf"))
    lines[at] = lines[at] + bad
    return b"\n".join(lines)


def _value_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of scalar values worth replacing (after ': ' up to the line end or a comma)."""
    return [
        (m.start(1), m.end(1))
        for m in re.finditer(r":\s+([^\s,{}\[\]\n][^,{}\[\]\n]*)", text)
        if m.group(1).strip()
    ]


def _replace_value(text: str, rng: random.Random, new: str) -> str:
    spans = _value_spans(text)
    if not spans:
        return text + new
    start, end = rng.choice(spans)
    return text[:start] + new + text[end:]


def _deep(text: str, rng: random.Random, kind: str) -> str:
    depth = rng.choice((60, 101, 150, 260, 300, 1000, 1100, 5000, 100_000))
    if kind in ("json", "jsonl"):
        lines = text.splitlines()
        idx = [i for i, line in enumerate(lines) if line.startswith("{") or line.startswith("[")]
        if kind == "jsonl" and idx:
            i = rng.choice(idx)
            lines[i] = lines[i].replace(
                '"input"', f'"metadata": {_nested_json(depth, rng)}, "input"', 1
            )
            if '"metadata"' not in lines[i] or rng.random() < 0.2:
                lines[i] = _nested_json(depth, rng)
            return "\n".join(lines) + "\n"
        if '"description"' not in text:  # a record: nest under its first key
            return text.replace("{", f'{{"x-deep": {_nested_json(depth, rng)}, ', 1)
        return text.replace(
            '"description"', f'"x-deep": {_nested_json(depth, rng)}, "description"', 1
        )
    if rng.random() < 0.5:
        return _replace_value(text, rng, "[" * depth + "1" + "]" * depth)
    depth = min(depth, 400)  # block nesting: 2 spaces per level
    lines = text.splitlines()
    i = rng.randrange(len(lines))
    indent = len(lines[i]) - len(lines[i].lstrip())
    return (
        "\n".join(
            [
                *lines[: i + 1],
                " " * indent + "deep:" + _nested_yaml_block(depth, indent),
                *lines[i + 1 :],
            ]
        )
        + "\n"
    )


def _alias(text: str, rng: random.Random) -> str:
    choice = rng.randrange(6)
    if choice == 0:
        return text.replace("metadata: {note: first", "metadata: &r {self: *r, note: first", 1)
    if choice == 1:
        return text.replace("input: What", "input: &s [*s, What", 1).replace("Paris?", "Paris?]", 1)
    if choice == 2:
        levels = rng.randint(3, 9)
        return (
            text.rstrip("\n").replace(
                "gates:", "x-bomb:\n  " + _alias_bomb(levels).replace("\n", "\n  ") + "\ngates:", 1
            )
            + "\n"
            if "gates:" in text
            else _alias_bomb(levels) + "\n" + text
        )
    if choice == 3:
        return text.replace("metadata: {note: first", "metadata: &m {<<: *m, note: first", 1)
    if choice == 4:
        return text.replace("- id: hello", "- &c id: hello", 1) + "  - *c\n"
    return text.replace("- id:", "- *undefined\n  - id:", 1)


RETYPED: tuple[Any, ...] = (
    None,
    0,
    -1,
    2.5,
    True,
    "",
    "x",
    [],
    {},
    [1, "a"],
    {"a": [None]},
    [[]],
    {"": {}},
)


def _retype(text: str, rng: random.Random, kind: str) -> str:
    """A JSON text with one value (anywhere in one record) replaced by a value of another type."""
    lines = text.splitlines()
    records = [i for i, line in enumerate(lines) if line.strip().startswith(("{", "["))]
    if not records:
        return text
    whole = kind == "json"  # a JSON document, not JSON Lines
    i = rng.choice(records)
    source = text if whole else lines[i]
    try:
        data = json.loads(source)
    except ValueError:
        return text
    spots: list[tuple[Any, Any]] = []
    stack = [data]
    while stack:
        value = stack.pop()
        keys = (
            value.keys()
            if isinstance(value, dict)
            else range(len(value))
            if isinstance(value, list)
            else ()
        )
        for key in keys:
            spots.append((value, key))
            stack.append(value[key])
    if not spots:
        return text
    parent, key = rng.choice(spots)
    parent[key] = rng.choice(RETYPED)
    if whole:
        return json.dumps(data, indent=1) + "\n"
    lines[i] = json.dumps(data)
    return "\n".join(lines) + "\n"


def _dupkey(text: str, rng: random.Random, kind: str) -> str:
    if kind in ("json", "jsonl"):
        return (
            text.replace('"id": ', '"id": "dup", "id": ', 1)
            if rng.random() < 0.5
            else text.replace('"name": ', '"name": "x", "name": ', 1)
        )
    lines = text.splitlines()
    keyed = [i for i, line in enumerate(lines) if re.match(r"^\s*(- )?[A-Za-z_]+:", line)]
    if not keyed:  # plain text: its lines twice
        return text + text
    i = rng.choice(keyed)
    line = lines[i]
    dup = line.replace("- ", "  ", 1) if line.lstrip().startswith("- ") else line
    return "\n".join([*lines[: i + 1], dup, *lines[i + 1 :]]) + "\n"


def _odd_file(text: str, rng: random.Random, folder: Path) -> str:
    odd = rng.choice(ODD_FILES)
    if odd == "@fifo":
        path = folder / "fifo.jsonl"
        os.mkfifo(path)
        name = path.name
    elif odd == "@big":
        path = folder / "big.jsonl"
        with open(path, "wb") as fh:
            fh.truncate(int(float(WORKER_MAX_FILE_MB) * 1024 * 1024) + 1)
        name = path.name
    elif odd == "@dir":
        (folder / "adir.jsonl").mkdir()
        name = "adir.jsonl"
    elif odd == "@missing":
        name = "missing.jsonl"
    elif odd == "@link-zero":
        (folder / "zero.yaml").symlink_to("/dev/zero")
        name = "zero.yaml"
    else:
        name = odd
    key = rng.choice(("case_files: [", "tool_files: ["))
    return text.replace(key, f"{key}{name}, ", 1)


@dataclass(frozen=True)
class FuzzInput:
    """One mutated input: a folder, the target file mutated, how, and what to run on it."""

    label: str
    folder: Path
    target: str
    ops: tuple[str, ...]


def _mutate(
    data: bytes, kind: str, rng: random.Random, folder: Path, target: str
) -> tuple[str, bytes]:
    text = data.decode("utf-8")
    yaml_like = kind == "yaml"
    names = ["flip", "truncate", "nul", "encoding", "deep", "huge", "dupkey", "lines"]
    if yaml_like:
        names += ["alias", "alias", "tag", "tag"]
    else:
        names += ["retype", "retype", "retype"]
    if target == "suite":
        names += ["file", "file"]
    if target in ("responses", "bfcl-questions", "bfcl-answers") or target in FILE_TARGETS:
        names += ["special"]
    how = rng.choice(names)
    if how == "flip":
        return how, _flip(data, rng)
    if how == "truncate":
        return how, _truncate(data, rng)
    if how == "nul":
        return how, _nul(data, rng)
    if how == "encoding":
        return how, _encoding(data, rng)
    if how == "deep":
        return how, _deep(text, rng, kind).encode()
    if how == "huge":
        return how, _replace_value(text, rng, rng.choice(HUGE_NUMBERS)).encode()
    if how == "dupkey":
        return how, _dupkey(text, rng, kind).encode()
    if how == "alias":
        return how, _alias(text, rng).encode()
    if how == "retype":
        return how, _retype(text, rng, kind).encode()
    if how == "tag":
        return how, _replace_value(text, rng, rng.choice(ODD_TAGS)).encode()
    if how == "file":
        return how, _odd_file(text, rng, folder).encode()
    if how == "special":
        return how, b""  # replaced below by a special file
    # "lines": shuffle, drop or repeat lines
    lines = data.split(b"\n")
    op = rng.randrange(3)
    if op == 0:
        rng.shuffle(lines)
    elif op == 1 and len(lines) > 1:
        del lines[rng.randrange(len(lines))]
    else:
        i = rng.randrange(len(lines))
        lines[i:i] = [lines[i]] * rng.randint(2, 50)
    return how, b"\n".join(lines)


def _kind(name: str) -> str:
    if name.endswith(".jsonl") or name.startswith("bfcl/"):
        return "jsonl"
    return "json" if name.endswith(".json") else "yaml"


def generate(root: Path, seed: int = SEED, count: int = COUNT) -> Iterator[FuzzInput]:
    """``count`` mutated inputs per target, in folders under ``root`` (deterministic per seed)."""
    rng = random.Random(seed)
    base = root / "base"
    base.mkdir()
    write_base(base)
    n = 0
    for target, (name, text, ops) in TARGETS.items():
        for _ in range(count):
            n += 1
            folder = root / f"m{n:04d}"
            shutil.copytree(base, folder, symlinks=True)
            how, mutated = _mutate(text.encode(), _kind(name), rng, folder, target)
            path = folder / name
            if how == "special":
                path.unlink()
                special = rng.choice(
                    ("/dev/zero", "/dev/urandom", "@fifo", "@big", "@empty", "@dir")
                )
                if special == "@fifo":
                    os.mkfifo(path)
                elif special == "@big":
                    with open(path, "wb") as fh:
                        fh.truncate(int(float(WORKER_MAX_FILE_MB) * 1024 * 1024) + 1)
                elif special == "@empty":
                    path.write_bytes(b"\n\n" if rng.random() < 0.5 else b"")
                elif special == "@dir":
                    path.mkdir()
                else:
                    path.symlink_to(special)
                how = f"special {special}"
            else:
                path.write_bytes(mutated)
            yield FuzzInput(f"{target}/{how}", folder, name, ops)


# ------------------------------------------------------------------------------------ the worker


def _op_validate(folder: Path) -> None:
    from agentgauge.errors import UserError
    from agentgauge.io import check_suite

    check = check_suite(folder / "suite.yaml")
    for finding in check.findings:
        finding.format()
    if check.problems:
        raise UserError(check.problems[0], problems=check.problems)


def _op_run(folder: Path) -> None:
    """What ``agentgauge run`` does with a suite before its first model call: stream it, with
    the survey's per-case JSON (its suite hash), then read every case again."""
    from agentgauge.io import open_suite
    from agentgauge.schema import Case, Suite

    def visit(header: Suite) -> Callable[[Case], object]:
        header.model_dump_json(exclude={"cases"})
        return lambda case: case.model_dump_json()

    streamed = open_suite(folder / "suite.yaml", visit=visit)
    for case in streamed.iter_cases():
        case.model_dump_json()


def _op_score(folder: Path) -> None:
    from agentgauge.cli._score import command

    good = folder.parent / "base" / "suite.yaml"
    out = folder / "run-score"
    args = [str(good), "-r", str(folder / "responses.jsonl"), "-o", str(out), "--skip-missing"]
    command.main(args, standalone_mode=False)


def _op_bfcl(folder: Path) -> None:
    from agentgauge.cli._import import command

    command.main(
        ["bfcl", str(folder / "bfcl"), "-o", str(folder / "imported.yaml")], standalone_mode=False
    )


def _op_tools(folder: Path) -> None:
    """``agentgauge tools`` / an importer's ``--tools``: read a tool file in any format."""
    from agentgauge.io import read_tools_file

    read_tools_file(next(folder.glob("tools-under-test.*")))


def run_cli(job: dict[str, Any]) -> dict[str, Any]:
    """One ``agentgauge`` command in the worker (``{"op": "cli", "args": [...], "env": {...}}``):
    exit 2 is a rejection (its stderr lines), 0 or 1 (a failed gate) an acceptance, an exception
    the command let out (or a traceback it printed) a crash."""
    import traceback

    from click.testing import CliRunner

    from agentgauge.cli import cli

    env = {str(k): (None if v is None else str(v)) for k, v in (job.get("env") or {}).items()}
    result = CliRunner().invoke(cli, [str(a) for a in job["args"]], env=env)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        assert result.exc_info is not None
        err = result.exception
        return {
            "status": "crash",
            "error": f"{type(err).__name__}: {str(err)[:300]}",
            "trace": "".join(traceback.format_exception(*result.exc_info))[-3000:],
        }
    if "Traceback (most recent call last)" in stderr + result.stdout:
        return {"status": "crash", "error": "printed a traceback", "trace": stderr[-3000:]}
    if result.exit_code == 2 and stderr.startswith("Usage: ") and "\nError: " in stderr:
        # click's own refusal of an argument (--labels naming a folder): its usage message
        return {"status": "usage", "lines": []}
    if result.exit_code == 2:
        return {"status": "rejected", "lines": stderr.splitlines() or ["(nothing on stderr)"]}
    if result.exit_code in (0, 1):
        return {"status": "ok", "lines": stderr.splitlines()}
    return {"status": "crash", "error": f"exit {result.exit_code}", "trace": stderr[-3000:]}


def _op_resume(folder: Path) -> None:
    """What ``run --resume`` reads of the run directory before anything runs."""
    from agentgauge.io import read_record, scan_finished

    read_record(folder / "run")
    scan_finished(folder / "run")


def _op_comparison(folder: Path) -> None:
    """``agentgauge.metrics.read_matrix``: a matrix folder's comparison.json."""
    from agentgauge.metrics import read_matrix

    read_matrix(folder / "matrix").model_dump_json()


def _cli_op(name: str) -> Callable[[Path], None]:
    """The command ``name`` of :func:`fuzz_files.file_ops`, run as :func:`run_cli` runs it:
    exit 2 raises its lines as a UserError, a crash raises."""

    def op(folder: Path) -> None:
        import click

        from agentgauge.errors import UserError

        answer = run_cli({"args": file_ops(folder)[name], "env": file_env(folder)})
        if answer["status"] == "usage":
            raise click.UsageError("refused by the command-line parser")
        if answer["status"] == "rejected":
            raise UserError(answer["lines"][0], problems=answer["lines"])
        if answer["status"] == "crash":
            raise RuntimeError(f"{answer['error']}\n{answer['trace']}")

    return op


def file_env(folder: Path) -> dict[str, str | None]:
    """The user's state of a command (history, cache, config) kept inside the input folder."""
    return {
        "AGENTGAUGE_HISTORY": str(folder / "history.sqlite"),
        "AGENTGAUGE_CACHE_DIR": str(folder / "cache"),
        "XDG_CONFIG_HOME": str(folder / "config"),
    }


OPS: dict[str, Callable[[Path], None]] = {
    "validate": _op_validate,
    "run": _op_run,
    "score": _op_score,
    "bfcl": _op_bfcl,
    "tools": _op_tools,
    "resume": _op_resume,
    "comparison": _op_comparison,
    **{name: _cli_op(name) for name in file_ops(Path("."))},
}


def worker_main() -> None:
    """Run jobs from stdin ({"op", "folder"} per line); one JSON answer per line on the real
    stdout. Everything the commands print goes to /dev/null."""
    import resource
    import traceback

    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY, WORKER_MEMORY))
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as the worker
    sys.stderr = sys.stdout
    import click

    import agentgauge.cli
    import agentgauge.cli._import
    import agentgauge.cli._score
    import agentgauge.io  # noqa: F401
    from agentgauge.errors import UserError

    answers.write('{"ready": true}\n')
    answers.flush()
    for line in sys.stdin:
        job = json.loads(line)
        answer: dict[str, Any]
        try:
            if job["op"] == "cli":
                answer = run_cli(job)
            else:
                OPS[job["op"]](Path(job["folder"]))
                answer = {"status": "ok"}
        except UserError as err:
            answer = {"status": "rejected", "lines": [str(p) for p in err.problems]}
        except click.UsageError:
            answer = {"status": "usage"}
        except BaseException as err:
            if isinstance(err, KeyboardInterrupt):
                raise
            tb = traceback.format_exc()
            answer = {
                "status": "crash",
                "error": f"{type(err).__name__}: {str(err)[:300]}",
                "trace": tb[-3000:],
            }
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


@dataclass
class Outcome:
    status: str  # ok | rejected | usage (click refused an argument) | crash | hang
    lines: list[str] = field(default_factory=list)
    error: str = ""
    trace: str = ""
    seconds: float = 0.0

    @property
    def unlocated(self) -> list[str]:
        """Rejection lines that do not name ``file:line``."""
        return [ln for ln in self.lines if not LOCATED.match(ln) and not UNLOCATED_OK.match(ln)]


class Harness:
    """A worker process running inputs one at a time, each cut off after ``limit_s``."""

    def __init__(self, limit_s: float = LIMIT_S) -> None:
        self.limit_s = limit_s
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Harness:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ, AGENTGAUGE_MAX_FILE_MB=WORKER_MAX_FILE_MB, PYTHONHASHSEED="0")
        proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 120)
        if not ready or not proc.stdout.readline():
            proc.kill()
            raise RuntimeError("the fuzz worker did not start")
        return proc

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def cli(self, *args: object, env: dict[str, str | None] | None = None) -> Outcome:
        """``agentgauge ARGS`` in the worker (see :func:`run_cli`)."""
        return self.run("cli", Path("."), args=[str(a) for a in args], env=env)

    def run(self, op: str, folder: Path, **extra: object) -> Outcome:
        if self.proc is None:
            self.proc = self._start()
        proc = self.proc
        assert proc.stdin is not None
        assert proc.stdout is not None
        t0 = time.perf_counter()
        try:
            job = {"op": op, "folder": str(folder), **extra}
            proc.stdin.write((json.dumps(job) + "\n").encode())
            proc.stdin.flush()
        except BrokenPipeError:
            self.stop()
            return Outcome("crash", error="the worker died")
        ready, _, _ = select.select([proc.stdout], [], [], self.limit_s)
        seconds = time.perf_counter() - t0
        if not ready:
            self.stop()
            return Outcome("hang", seconds=seconds)
        raw = proc.stdout.readline()
        if not raw:
            self.stop()
            return Outcome(
                "crash", error="the worker died (killed by the memory limit?)", seconds=seconds
            )
        data = json.loads(raw)
        return Outcome(
            data["status"],
            data.get("lines", []),
            data.get("error", ""),
            data.get("trace", ""),
            seconds,
        )


@dataclass
class Figures:
    inputs: int = 0
    runs: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    unlocated: int = 0
    failures: list[str] = field(default_factory=list)

    def add(self, fuzz: FuzzInput, op: str, outcome: Outcome) -> None:
        self.runs += 1
        self.outcomes[outcome.status] += 1
        where = f"{fuzz.label} [{op}] {fuzz.folder.name}"
        if outcome.status == "crash":
            self.failures.append(f"{where}: traceback {outcome.error}")
        elif outcome.status == "hang":
            self.failures.append(f"{where}: no answer within {LIMIT_S:g}s")
        missing = outcome.unlocated
        if missing:
            self.unlocated += 1
            self.failures.append(f"{where}: rejection without file:line: {missing[0][:200]}")

    def summary(self) -> str:
        return (
            f"{self.inputs} mutations, {self.runs} runs: "
            + ", ".join(f"{k} {v}" for k, v in sorted(self.outcomes.items()))
            + f"; rejections without file:line: {self.unlocated}"
        )


def fuzz(root: Path, harness: Harness, seed: int = SEED, count: int = COUNT) -> Figures:
    figures = Figures()
    for item in generate(root, seed, count):
        figures.inputs += 1
        for op in item.ops:
            figures.add(item, op, harness.run(op, item.folder))
    return figures


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    with Harness() as h:
        yield h


def test_generated_inputs_are_deterministic(tmp_path: Path) -> None:
    runs = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        runs.append([(f.label, f.target) for f in generate(tmp_path / name, seed=7, count=3)])
    assert runs[0] == runs[1]
    assert len(runs[0]) == 3 * len(TARGETS)


def test_base_inputs_are_accepted(tmp_path: Path, harness: Harness) -> None:
    """The unmutated inputs load, run, score and import: the fuzz starts from valid data."""
    (tmp_path / "base").mkdir()
    write_base(tmp_path / "base")
    (tmp_path / "base" / "tools-under-test.json").write_text(TOOLS_JSON)
    for op in OPS:
        outcome = harness.run(op, tmp_path / "base")
        assert outcome.status == "ok", (op, outcome)


def test_harness_reports_tracebacks_and_missing_lines() -> None:
    """The checks of the fuzz can fail: a traceback, a hang and a line without file:line count."""
    figures = Figures()
    item = FuzzInput("x/y", Path("m0001"), "suite.yaml", ("validate",))
    figures.add(item, "validate", Outcome("crash", error="ValueError: boom"))
    figures.add(item, "validate", Outcome("hang"))
    figures.add(item, "validate", Outcome("rejected", ["suite.yaml: not UTF-8 text"]))
    figures.add(
        item,
        "validate",
        Outcome("rejected", ["suite.yaml:3: cases[0].id: bad", "(stopped after 1000 problems)"]),
    )
    assert len(figures.failures) == 3
    assert figures.unlocated == 1


@pytest.mark.timeout(900)  # 800 inputs: ~25 s on a quiet machine, several times that on a busy one
def test_fuzz_every_reader(tmp_path: Path, harness: Harness) -> None:
    figures = fuzz(tmp_path, harness)
    assert figures.inputs == COUNT * len(TARGETS)
    # the fuzz exercises both ends: some mutations are accepted, many are refused
    assert figures.outcomes["ok"] > 0
    assert figures.outcomes["rejected"] > 0
    assert not figures.failures, figures.summary() + "\n" + "\n".join(figures.failures[:40])


if __name__ == "__main__":
    if sys.argv[1:] == ["--worker"]:
        worker_main()
    else:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp, Harness() as h:
            t0 = time.perf_counter()
            result = fuzz(Path(tmp), h)
            print(result.summary(), f"in {time.perf_counter() - t0:.1f}s")
            for failure in result.failures:
                print(" ", failure[:240])
