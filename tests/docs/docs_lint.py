"""Read the user-facing Markdown docs the way a reader does, and check what they name.

Each claim is checked against the repository itself, offline (nothing is run or fetched):

* ``agentgauge SUBCOMMAND ...`` command lines (shell blocks, CI ``run:`` steps, ``# Check it:``
  comments, inline code, ``run --gate`` forms): the subcommand exists in the click tree of
  :data:`agentgauge.cli.cli`, each option it uses is an option of that subcommand, and a
  choice / number / agent-spec value is one click and the provider registry accept;
* the repository's other programs run (``python benchmarks/x.py --runs 3``, ``pytest
  --agentgauge-agent``): they exist and have those options (``docs_scripts``);
* the Python shown: imports and dotted names are public names of real modules, not through the
  ``agentgauge.io`` facade (``docs_python``); YAML blocks read with agentgauge's reader;
* relative Markdown links ``[text](path#anchor)``: the file exists, and the anchor is a heading
  of the target (GitHub's slug rules, or an explicit ``{#id}``: ``docs_markdown``);
* repository paths in inline code (``examples/...``, ``src/agentgauge/...``, ``runner/_x.py``).

:func:`check_docs` returns every finding as ``file:line: kind: message`` plus the counts of what
was checked; ``python tests/docs/docs_lint.py`` prints them. Placeholders (``SUITE``,
``RUN_DIR``, ``<dir>``, ``...``) are allowed where a word of the reader's own goes.
"""

from __future__ import annotations

import functools
import glob
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click
from docs_markdown import Doc, parse
from docs_python import call_problems, code_names, dotted_names, import_problem, python_imports
from docs_scripts import (
    EXTERNAL_OPTIONS,
    PYTHONS,
    program_options,
    script_invocations,
    script_problems,
)
from docs_yaml import yaml_problems

#: languages of fenced blocks whose lines are shell command lines
SHELL_LANGS = frozenset({"console", "bash", "sh", "shell", "zsh", "shell-session"})
#: fenced blocks without a language (or ``text``): only lines that start with ``agentgauge``
LOOSE_LANGS = frozenset({"", "text"})
#: tokens that end one shell command and may start the next
SEPARATORS = frozenset({"|", "||", "&&", ";", "&", "(", ")", "$(", "`"})
REDIRECTS = frozenset({">", ">>", "<", "2>", "&>", ">&", "2>&1", "<<", "|&"})
#: words that run the command after them
WRAPPERS = frozenset({"time", "env", "exec", "nohup", "sudo", "command"})
#: the repository folders a path in inline code is taken to name
PATH_PREFIXES = ("examples/", "docs/", "src/agentgauge/", "benchmarks/", "scripts/", "tests/")

_SUBCOMMAND = re.compile(r"[a-z][a-z0-9-]*")
_PLACEHOLDER_PART = re.compile(r"[A-Z][A-Z0-9_]*|<[^>]*>|\.\.\.|…")


@dataclass(frozen=True)
class Finding:
    """One false claim of a doc, where it is."""

    path: str
    line: int
    kind: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.kind}: {self.message}"


@dataclass
class Report:
    """What was checked, and what was found false."""

    findings: list[Finding] = field(default_factory=list)
    commands: int = 0
    links: int = 0
    programs: int = 0
    python: int = 0
    yaml: int = 0
    lone_options: int = 0
    paths: int = 0
    docs: int = 0


def doc_files(root: Path) -> list[Path]:
    """The docs users read: the top-level guides, docs/, the examples' and benchmarks' READMEs."""
    names = ["README.md", "DEVELOPERS.md", "docs/*.md", "examples/**/README.md"]
    names.append("benchmarks/README.md")
    found: list[Path] = []
    for name in names:
        found += sorted(Path(p) for p in glob.glob(str(root / name), recursive=True))
    return [p for p in found if p.is_file()]


# --- command lines ---------------------------------------------------------------------


def command_lines(doc: Doc, names: frozenset[str] = frozenset()) -> Iterator[tuple[int, str]]:
    """Each shell line of the doc's fenced blocks and inline code, continuations joined.

    Shell blocks give every line (only the ``$ `` lines when it has prompts); other blocks
    (YAML workflows, text, file headers) the ``agentgauge ...`` a line starts with, a
    ``run:`` step or a ``# ...: agentgauge ...`` comment names; inline code each
    ``agentgauge ...`` in it, and ``run --gate`` forms when ``names`` (the subcommands) is given.
    """
    yield from shell_lines(doc)
    for lang, start, lines in doc.blocks:
        if not _is_shell(lang, lines) and lang not in ("python", "json", "jsonl"):
            for number, line in _joined(start, lines):
                named = _EMBEDDED.match(line.strip())
                if named:
                    yield number, named.group(1)
    for number, text in doc.spans:
        for named in _IN_PROSE.finditer(text):
            # inside a sentence only a real subcommand makes it a command ("agentgauge records")
            if named.start() == 0 or named.group(1).split()[1] in names:
                yield number, named.group(1)
        first = text.split(" ", 1)[0]
        if first in names and re.search(r"\s-", text):
            yield number, f"agentgauge {text}"


def shell_lines(doc: Doc) -> Iterator[tuple[int, str]]:
    """The command lines of the doc's shell blocks (only the ``$ `` lines of one with prompts:
    the others are the command's output)."""
    for lang, start, lines in doc.blocks:
        if not _is_shell(lang, lines):
            continue
        prompted = any(line.lstrip().startswith("$ ") for line in lines)
        for number, line in _joined(start, lines):
            text = line.strip()
            if not prompted or text.startswith("$ "):
                yield number, text.removeprefix("$ ")


def _is_shell(lang: str, lines: list[str]) -> bool:
    prompted = any(line.lstrip().startswith("$ ") for line in lines)
    return lang in SHELL_LANGS or (prompted and lang in LOOSE_LANGS)


#: a command a non-shell block names: a line that is one, a CI step's ``run:``, a comment's
_EMBEDDED = re.compile(r"^(?:-\s*)?(?:run:\s*|#[^`]*?:\s+)?(agentgauge\s.*)$")
#: ``agentgauge SUBCOMMAND`` inside inline code (not ``--agentgauge``, ``-m agentgauge.x``)
_IN_PROSE = re.compile(r"(?<![\w./-])(?<!import )(?<!from )(?<!install )(agentgauge\s+[a-z-].*)")


def _joined(start: int, lines: list[str]) -> Iterator[tuple[int, str]]:
    held: list[str] = []
    first = start
    for number, line in enumerate(lines, start=start):
        if not held:
            first = number
        if line.rstrip().endswith("\\"):
            held.append(line.rstrip()[:-1])
            continue
        held.append(line)
        yield first, " ".join(held)
        held = []
    if held:
        yield first, " ".join(held)


def split_shell(text: str) -> list[str]:
    """Shell words of a line, comments dropped; operators are words of their own."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars="|&;()<>")
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError:  # an open quote: read the words as they stand
        return text.split()


def agentgauge_invocations(words: list[str]) -> Iterator[list[str]]:
    """The argument words of each ``agentgauge`` command in one shell line."""
    at_start = True
    index = 0
    while index < len(words):
        word = words[index]
        index += 1
        if word in SEPARATORS or word.startswith("$("):
            at_start = True
            continue
        if at_start and (re.fullmatch(r"[A-Za-z_]\w*=\S*", word) or word in WRAPPERS):
            continue
        if word == "-m" and index < len(words) and words[index] == "agentgauge":
            at_start = True  # python -m agentgauge ...
            continue
        if at_start and word.rsplit("/", 1)[-1] == "agentgauge":
            end = index
            while end < len(words) and words[end] not in SEPARATORS | REDIRECTS:
                end += 1
            yield words[index:end]
            index = end
        at_start = False


def _is_placeholder(word: str) -> bool:
    return bool(re.search(r"[<>{}]|\.\.\.|…", word)) or word.isupper()


def check_command(
    words: list[str], root: click.Group, where: tuple[str, int], positionals: list[str]
) -> list[Finding]:
    """Findings for one ``agentgauge`` command's argument words against the click tree; its
    positional words (not option values) are added to ``positionals``."""
    ctx = click.Context(root, info_name="agentgauge")
    command: click.Command = root
    name = "agentgauge"
    index = 0
    while isinstance(command, click.Group):
        while index < len(words) and words[index].startswith("-"):
            index += 1  # the group's own options (--help, --version)
        if index == len(words):
            return []
        word = words[index].strip("[]")
        if not _SUBCOMMAND.fullmatch(word):
            return []  # a placeholder: any command
        sub = command.get_command(ctx, word)
        if sub is None:
            return [Finding(*where, "command", f"{name}: no such command {word!r}")]
        command, name, index = sub, f"{name} {word}", index + 1
    return _check_options(command, name, words[index:], where, positionals)


def _check_options(
    command: click.Command,
    name: str,
    words: list[str],
    where: tuple[str, int],
    positionals: list[str],
) -> list[Finding]:
    options: dict[str, click.Option] = {}
    for each in command.params:
        if isinstance(each, click.Option):
            for opt in each.opts + each.secondary_opts:
                options[opt] = each
    findings: list[Finding] = []
    own: list[str] = []
    index = 0
    while index < len(words):
        word = words[index].strip("[]")
        index += 1
        if word == "--":
            break
        if not word.startswith("-") or word == "-" or re.fullmatch(r"-[\d.]+", word):
            positionals.append(word)
            own.append(word)
            continue
        opt, has_value = word.split("=", 1)[0], "=" in word
        if opt in ("--help", "-h") or _is_placeholder(opt.lstrip("-")):
            continue
        param = options.get(opt)
        if param is None:
            findings.append(Finding(*where, "option", f"{name}: no such option {opt}"))
            continue
        if param.is_flag or param.count:
            continue
        value = word.split("=", 1)[1] if has_value else words[index] if index < len(words) else ""
        value = value.strip("[]")
        if not has_value:
            index += param.nargs if param.nargs > 0 else 1  # its value, whatever it looks like
        wrong = value_problem(command, param, value)
        if wrong:
            findings.append(Finding(*where, "value", f"{name}: {opt} {value}: {wrong}"))
    return findings + _check_arguments(command, name, own, where)


def _check_arguments(
    command: click.Command, name: str, positionals: list[str], where: tuple[str, int]
) -> list[Finding]:
    """The positional words of a choice argument (``import bfcl``) against its choices."""
    findings = []
    arguments = [param for param in command.params if isinstance(param, click.Argument)]
    for argument, value in zip(arguments, positionals, strict=False):
        if argument.nargs != 1:
            break
        wrong = value_problem(command, argument, value)
        if wrong:
            findings.append(Finding(*where, "value", f"{name}: {value}: {wrong}"))
    return findings


#: the value types whose values a doc's example can be checked against offline
_CHECKED_TYPES = (click.Choice, click.types.IntParamType, click.types.FloatParamType)


#: options whose value is an agent spec (``openai:gpt-4o-mini``, ``LABEL=mock:echo``); not
#: ``history --agent``, a pattern over recorded runs
SPEC_OPTIONS = frozenset({"--agent", "--judge", "--user-model", "--generator"})


def value_problem(command: click.Command, param: click.Parameter, value: str) -> str | None:
    """Why ``value`` is no value of ``param`` (a choice, a number, a range, an agent spec whose
    provider prefix exists), or None. A spec whose prefix starts ``nosuch`` is a doc's
    deliberate example of a wrong one."""
    if _is_placeholder(value) or not value or value.startswith("$"):
        return None  # the reader's own word, or the shell's
    if SPEC_OPTIONS & set(param.opts) and command.name != "history":
        from agentgauge.providers import spec_problem

        spec = value.split("=", 1)[1] if "=" in value.split(":", 1)[0] else value
        return None if spec.startswith("nosuch") else spec_problem(spec)
    if not isinstance(param.type, _CHECKED_TYPES):
        return None
    try:
        checked: click.ParamType[Any] = param.type
        checked.convert(value, param, click.Context(command))
    except click.BadParameter as err:
        return err.message
    return None


# --- paths and links -------------------------------------------------------------------


def path_words(text: str) -> Iterator[str]:
    """The repository paths a piece of inline code names: ``examples/...``, ``docs/...`` and
    the like as they stand, ``agentgauge/x.py`` and ``runner/_x.py`` (a subpackage's module)
    under ``src/``. Generated files (``__pycache__``) are not the repository's."""
    for word in text.split():
        word = word.strip("\"'`,;()[]")
        word = word.removeprefix("./")
        if "__pycache__" in word:
            continue
        if word.startswith(PATH_PREFIXES):
            yield word
        elif word.startswith("agentgauge/"):
            yield f"src/{word}"
        elif word.split("/", 1)[0] in _subpackages() and ".py" in word:
            yield f"src/agentgauge/{word}"


@functools.cache
def _subpackages() -> frozenset[str]:
    package = Path(__file__).resolve().parents[2] / "src" / "agentgauge"
    return frozenset(p.name for p in package.iterdir() if (p / "__init__.py").is_file())


def path_exists(root: Path, word: str) -> bool:
    """Whether a path named in a doc exists: ``:attr``/``:line`` and ``#anchor`` tails are
    dropped, placeholder parts (``NAME``, ``<x>``, ``...``) and globs match any name."""
    path = re.split(r"[:#]", word, maxsplit=1)[0].rstrip(".")
    parts = []
    for part in path.split("/"):
        if _PLACEHOLDER_PART.fullmatch(part):
            parts.append("*")
        else:
            parts.append(re.sub(r"<[^>]*>|[A-Z][A-Z0-9_]{2,}(?=[._-]|$)", "*", part))
    pattern = "/".join(parts)
    for alternative in _braces(pattern):
        if glob.has_magic(alternative):
            if not glob.glob(str(root / alternative)):
                return False
        elif not (root / alternative).exists():
            return False
    return True


def _braces(pattern: str) -> list[str]:
    match = re.search(r"\{([^{}]*,[^{}]*)\}", pattern)
    if not match:
        return [pattern]
    head, tail = pattern[: match.start()], pattern[match.end() :]
    return [alt for choice in match.group(1).split(",") for alt in _braces(head + choice + tail)]


def check_link(doc: Doc, target: str, docs: dict[Path, Doc]) -> str | None:
    """Why a relative link of ``doc`` is broken, or None when it is not (or is not relative)."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
        return None  # https:, mailto:, ...: not this repository's
    file_part, _, anchor = target.partition("#")
    path = (doc.path.parent / file_part).resolve() if file_part else doc.path.resolve()
    if not path.exists():
        return f"{target}: no such file {file_part}"
    if not anchor or path.suffix != ".md":
        return None
    if path not in docs:
        docs[path] = parse(path)
    if anchor not in docs[path].anchors:
        return f"{target}: no heading #{anchor} in {file_part or path.name}"
    return None


def _program_lines(doc: Doc) -> Iterator[tuple[int, str]]:
    yield from shell_lines(doc)
    for line, text in doc.spans:
        first = text.split(" ", 1)[0]
        if first in PYTHONS or first == "pytest" or (first.endswith(".py") and " -" in text):
            yield line, text


def _python_names(doc: Doc) -> Iterator[tuple[int, str, str, bool, bool]]:
    """(line, module, name, facade_ok, private_ok) of each agentgauge name the doc's Python
    names: imports and attribute chains of Python blocks (code to copy: neither), inline
    ``from agentgauge... import`` (prose about the facade may show one through it) and dotted
    names in inline code (a bare one may point at where something is implemented; one that is
    called is code to copy)."""
    blocks = [(start, "\n".join(lines)) for lang, start, lines in doc.blocks if lang == "python"]
    spans = [(line, text) for line, text in doc.spans if text.startswith(_IMPORTS)]
    for snippets, facade_ok in ((blocks, False), (spans, True)):
        for start, text in snippets:
            for offset, module, name in python_imports(text):
                yield start + offset - 1, module, name, facade_ok, False
    for start, text in blocks:
        for offset, dotted in code_names(text):
            for module, name, _ in dotted_names(dotted):
                yield start + offset - 1, module, name, False, False
    for line, text in doc.spans:
        if not text.startswith(_IMPORTS):
            for module, name, called in dotted_names(text):
                yield line, module, name, False, not called


def _call_problems(doc: Doc) -> Iterator[tuple[int, str]]:
    for lang, start, lines in doc.blocks:
        if lang == "python":
            for offset, problem in call_problems("\n".join(lines)):
                yield start + offset - 1, problem


_IMPORTS = ("from agentgauge", "import agentgauge")


def _lone_options(doc: Doc, names: frozenset[str]) -> Iterator[tuple[int, str]]:
    """The long options inline code names outside a command line (`--resume`, `--trials N`)."""
    for line, text in doc.spans:
        first = text.split(" ", 1)[0]
        if first in names or first in PYTHONS or first in ("agentgauge", "pytest", "pip"):
            continue  # a command line, checked with its command
        if first.endswith(".py") or re.search(r"(?<![\w./-])agentgauge\s", text):
            continue
        for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text):
            yield line, option


def all_cli_options(root: click.Group) -> set[str]:
    """Every option of every agentgauge command, nested groups' included."""
    ctx = click.Context(root)
    found: set[str] = {"--help", "--version"}
    for name in root.list_commands(ctx):
        command = root.get_command(ctx, name)
        if isinstance(command, click.Group):
            found |= all_cli_options(command)
        elif command is not None:
            for param in command.params:
                if isinstance(param, click.Option):
                    found.update(param.opts + param.secondary_opts)
    return found


def check_docs(root: Path, files: list[Path] | None = None) -> Report:
    """Every finding of the docs under ``root`` (or of ``files``), with the counts checked."""
    from agentgauge.cli import COMMANDS, cli

    names = frozenset(COMMANDS)
    known = all_cli_options(cli) | program_options(root) | EXTERNAL_OPTIONS
    report = Report()
    parsed = {path.resolve(): parse(path) for path in files or doc_files(root)}
    report.docs = len(parsed)
    for doc in list(parsed.values()):
        shown = str(doc.path.relative_to(root)) if doc.path.is_relative_to(root) else str(doc.path)
        positionals: list[tuple[int, str]] = []
        for line, text in command_lines(doc, names):
            for words in agentgauge_invocations(split_shell(text)):
                report.commands += 1
                named: list[str] = []
                report.findings += check_command(words, cli, (shown, line), named)
                positionals += [(line, word) for word in named]
        for line, text in _program_lines(doc):
            for program, words in script_invocations(split_shell(text)):
                report.programs += 1
                for problem in script_problems(root, doc.path.parent, program, words):
                    report.findings.append(Finding(shown, line, "program", problem))
        for line, option in _lone_options(doc, names):
            report.lone_options += 1
            if option not in known:
                message = f"{option} is no option of agentgauge or of its programs"
                report.findings.append(Finding(shown, line, "option", message))
        for line, wrong_call in _call_problems(doc):
            report.findings.append(Finding(shown, line, "python", wrong_call))
        for line, module, name, facade_ok, private_ok in _python_names(doc):
            report.python += 1
            wrong = import_problem(module, name, facade_ok, private_ok)
            if wrong:
                report.findings.append(Finding(shown, line, "python", wrong))
        for line, unreadable in yaml_problems(doc):
            report.yaml += 1
            if unreadable:
                report.findings.append(Finding(shown, line, "yaml", unreadable))
        for line, target in doc.links:
            report.links += 1
            broken = check_link(doc, target, parsed)
            if broken:
                report.findings.append(Finding(shown, line, "link", broken))
        spans = [(line, word) for line, text in doc.spans for word in path_words(text)]
        block_paths = [(line, w) for line, text in positionals for w in path_words(text)]
        for line, word in sorted(set(spans + block_paths)):
            report.paths += 1
            if not path_exists(root, word):
                report.findings.append(Finding(shown, line, "path", f"no such path {word}"))
    report.findings.sort(key=lambda f: (f.path, f.line, f.message))
    return report


if __name__ == "__main__":
    _report = check_docs(Path(__file__).resolve().parents[2])
    for _finding in _report.findings:
        print(_finding)
    print(
        f"{_report.docs} docs: {_report.commands} commands, {_report.programs} other programs,"
        f" {_report.lone_options} options in prose, {_report.python} Python names,"
        f" {_report.yaml} YAML blocks, {_report.links} links,"
        f" {_report.paths} paths checked; {len(_report.findings)} findings"
    )
