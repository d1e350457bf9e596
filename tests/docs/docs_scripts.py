"""The other programs of this repository the docs run: ``python benchmarks/x.py --runs 3``,
``python -m agentgauge.testing.fake_openai --latency-ms 50``, ``pytest --agentgauge-agent A``.

Their options are argparse's and pytest's, not click's: a long option the docs use must be
written, quoted, in the program's source (``"--runs"``), or in the pytest plugin's for
``--agentgauge...``. The program itself must exist."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

PYTHONS = frozenset({"python", "python3", "python3.11", "python3.12"})
PLUGIN = "src/agentgauge/pytest_plugin.py"
#: words that end one shell command
ENDS = frozenset({"|", "||", "&&", ";", "&", "(", ")", ">", ">>", "<", "2>", "&>"})


def script_invocations(words: list[str]) -> Iterator[tuple[str, list[str]]]:
    """(program, argument words) of each repository program a shell line runs: a script path
    ``x.py``, a module ``-m agentgauge.x`` / ``-m benchmarks.x``, or ``pytest`` (as
    ``pytest``). ``python -m agentgauge`` is the CLI, checked with the click tree instead."""
    index = 0
    while index < len(words):
        word = words[index].rsplit("/", 1)[-1] if "/" in words[index] else words[index]
        start = index
        index += 1
        if start > 0 and words[start - 1] not in ENDS and not _assignment(words[start - 1]):
            continue
        if word in PYTHONS:
            rest = words[index:]
            while rest and rest[0].startswith("-") and rest[0] not in ("-m",):
                rest = rest[2:] if rest[0] in ("-X", "-W") else rest[1:]  # python's own flags
            if rest[:1] == ["-m"] and len(rest) > 1 and rest[1] != "agentgauge":
                yield f"-m {rest[1]}", _until_end(rest[2:])
            elif rest and rest[0].endswith(".py"):
                yield rest[0], _until_end(rest[1:])
        elif word == "pytest":
            yield "pytest", _until_end(words[index:])
        elif start == 0 and word.endswith(".py") and re.fullmatch(r"[\w./-]+", words[start]):
            yield words[start], _until_end(words[index:])


def _assignment(word: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_]\w*=\S*", word)) or word in ("time", "env", "exec")


def _until_end(words: list[str]) -> list[str]:
    for index, word in enumerate(words):
        if word in ENDS:
            return words[:index]
    return words


def program_source(root: Path, doc_dir: Path, program: str) -> Path | None:
    """The file that holds a program's options: the script (from the repository root or the
    doc's folder), the module's file, or the pytest plugin; None when there is none."""
    if program == "pytest":
        return root / PLUGIN
    if program.startswith("-m "):
        module = program[3:].replace(".", "/")
        candidates = [root / "src" / f"{module}.py", root / "src" / module / "__main__.py"]
        candidates += [root / f"{module}.py", root / module / "__main__.py"]
    else:
        candidates = [root / program, doc_dir / program]
    return next((path for path in candidates if path.is_file()), None)


def script_problems(root: Path, doc_dir: Path, program: str, words: list[str]) -> list[str]:
    """What is false about one run of a program: it is missing, or uses an option it lacks."""
    if program.startswith("-m ") and not program[3:].startswith(("agentgauge.", "benchmarks")):
        return []  # another project's module (pip, http.server)
    source = program_source(root, doc_dir, program)
    if source is None:
        return [f"{program}: no such program"]
    text = source.read_text(encoding="utf-8")
    problems = []
    for word in words:
        option = word.strip("[]").split("=", 1)[0]
        if not re.fullmatch(r"--[a-z][a-z0-9-]*", option) or option == "--help":
            continue
        if program == "pytest" and not option.startswith("--agentgauge"):
            continue  # pytest's own options
        spelled = {option, "--" + option.removeprefix("--no-")}
        if not any(f'"{name}"' in text or f"'{name}'" in text for name in spelled):
            problems.append(f"{program}: no such option {option}")
    return problems


#: options of other projects' tools the docs name in prose (pip, vLLM, llama.cpp's server, Ray,
#: git); an option alone in inline code is taken to be agentgauge's unless it is one of these
EXTERNAL_OPTIONS = frozenset(
    {
        "--no-cache-dir",
        "--no-deps",
        "--head",
        "--enable-auto-tool-choice",
        "--tool-call-parser",
        "--max-num-seqs",
        "--kv-unified",
        "--max-model-len",
        "--metrics",
        "--porcelain",
        "--untracked-files",
    }
)
_QUOTED_OPTION = re.compile(r"[\"'](--[a-z][a-z0-9-]*)[\"']")


def program_options(root: Path) -> set[str]:
    """Every long option the repository's own programs spell out: the benchmarks, the scripts,
    agentgauge.testing's servers and the pytest plugin (argparse / pytest, quoted in source)."""
    sources = [*root.glob("benchmarks/*.py"), *root.glob("scripts/*.py")]
    sources += [*root.glob("src/agentgauge/testing/*.py"), root / PLUGIN]
    found: set[str] = set()
    for source in sources:
        if source.is_file():
            found.update(_QUOTED_OPTION.findall(source.read_text(encoding="utf-8")))
    return found
