"""The other direction of the option checks: every option of every ``agentgauge`` command is
shown in a command line of that command somewhere in the docs, and the option tables of the docs
(``| `--seed N` | `AGENTGAUGE_SEED` | 0 | ...``) give each option's real environment variable and
default.

``python tests/docs/docs_options.py`` prints what it finds."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
from docs_lint import agentgauge_invocations, command_lines, doc_files, split_shell
from docs_markdown import parse


def resolve(words: list[str], root: click.Group) -> tuple[str, click.Command, list[str]] | None:
    """The subcommand ``words`` name (``cache clear``), it, and its own words; None for a
    placeholder or an unknown command."""
    command: click.Command = root
    names: list[str] = []
    index = 0
    while isinstance(command, click.Group):
        while index < len(words) and words[index].startswith("-"):
            index += 1
        if index == len(words):
            return None
        sub = command.get_command(click.Context(command), words[index].strip("[]"))
        if sub is None:
            return None
        command, index = sub, index + 1
        names.append(sub.name or "")
    return " ".join(names), command, words[index:]


def used_options(
    root: Path, cli: click.Group, files: list[Path] | None = None
) -> dict[str, set[str]]:
    """Each subcommand's options the docs show: those its command lines use, and those named in
    the inline code, tables and synopsis blocks of a doc that shows a command line of it."""
    names = frozenset(cli.list_commands(click.Context(cli)))
    used: dict[str, set[str]] = {}
    for path in files or doc_files(root):
        doc = parse(path)
        shown: set[str] = set()
        for _, text in command_lines(doc, names):
            for words in agentgauge_invocations(split_shell(text)):
                found = resolve(words, cli)
                if found is not None:
                    shown.add(found[0])
                    options = {
                        w.strip("[]").split("=", 1)[0]
                        for w in found[2]
                        if w.strip("[]").startswith("-")
                    }
                    used.setdefault(found[0], set()).update(options)
        texts = [text for _, text in doc.spans]
        texts += [line for lang, _, lines in doc.blocks if lang in ("", "text") for line in lines]
        named = {o for text in texts for o in re.findall(r"(?<![\w-])--?[a-z][a-z0-9-]*", text)}
        for name in shown:
            used[name] |= named
    return used


def commands(group: click.Group, prefix: str = "") -> Iterator[tuple[str, click.Command]]:
    """Every leaf subcommand of ``group`` with its name (``tools list``)."""
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        sub = group.get_command(ctx, name)
        if isinstance(sub, click.Group):
            yield from commands(sub, f"{prefix}{name} ")
        elif sub is not None:
            yield f"{prefix}{name}", sub


def undocumented(cli: click.Group, used: dict[str, set[str]]) -> list[str]:
    """``agentgauge CMD --option`` for each option no doc's command line of CMD shows (either
    form of a ``--x/--no-x`` switch will do), and ``agentgauge CMD`` for a command none shows."""
    missing: list[str] = []
    for name, command in commands(cli):
        if name not in used:
            missing.append(f"agentgauge {name}")
            continue
        for param in command.params:
            if isinstance(param, click.Option) and not param.hidden:
                forms = param.opts + param.secondary_opts
                if not set(forms) & used[name]:
                    missing.append(f"agentgauge {name} {max(forms, key=len)}")
    return missing


# --- option tables ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Row:
    """One row of a doc's option table: where, the options of its first cell, the cells."""

    where: str
    options: tuple[str, ...]
    env: str | None  # the env var column's text, None when the table has none
    default: str | None  # the default column's text, None when the table has none
    text: str  # the whole row


def option_rows(path: Path, heading: str, root: Path) -> list[Row]:
    """The rows of the first table after the line ``heading`` (a heading or a table header)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = lines.index(heading)
    rows: list[Row] = []
    header: list[str] = []
    for number, line in enumerate(lines[start:], start=start + 1):
        if not line.startswith("|"):
            if rows or header:
                break
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if not header:
            header = [c.lower() for c in cells]
            continue
        if set(cells[0]) <= set("-: "):
            continue
        options = tuple(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", cells[0]))
        if not options:
            continue
        column = {name: cells[i] for i, name in enumerate(header) if i < len(cells)}
        env = next((v for k, v in column.items() if k.startswith("env")), None)
        where = f"{path.relative_to(root)}:{number}"
        rows.append(Row(where, options, env, column.get("default"), line))
    return rows


def row_problems(row: Row, command: click.Command, defaults: dict[str, object]) -> list[str]:
    """What a table row says about its options that the command does not do: an option it
    lacks, another environment variable, another default (the click default, or for an option
    whose default the run decides, ``defaults``)."""
    params = {
        o: p
        for p in command.params
        if isinstance(p, click.Option)
        for o in p.opts + p.secondary_opts
    }
    problems = []
    for option in row.options:
        if option not in params:
            problems.append(f"{row.where}: {command.name} has no option {option}")
    known = [params[o] for o in row.options if o in params]
    if not known:
        return problems
    param = known[0]
    named = set(re.findall(r"AGENTGAUGE_[A-Z_]+", row.env if row.env is not None else row.text))
    named -= {"AGENTGAUGE_ALLOW_SUITE_CODE"} if row.env is None and param.envvar is None else set()
    real = {param.envvar} if isinstance(param.envvar, str) else set(param.envvar or ())
    if (row.env is not None or named) and named != real:
        said, reads = ", ".join(sorted(named)) or "none", ", ".join(sorted(real)) or "none"
        problems.append(f"{row.where}: {row.options[0]}: the table names {said}, it reads {reads}")
    wanted = _default_of(param, defaults)
    given = row.default if row.default is not None else _said_default(row.text)
    if wanted is not None and given is not None and not _says(given, wanted):
        problems.append(
            f"{row.where}: {row.options[0]}: the table's default {given!r}, not {wanted!r}"
        )
    return problems


def _default_of(param: click.Option, defaults: dict[str, object]) -> object | None:
    for option in param.opts:
        if option in defaults:
            return defaults[option]
    value: Any = param.default
    if value is None:
        return None  # decided when the command runs (a terminal or not, the suite's own)
    if type(value).__name__ == "Sentinel":  # click's "not given"
        return False if param.is_flag else None
    return value


def _said_default(text: str) -> str | None:
    found = re.search(r"\(default ([^;)]+)", text)
    return found.group(1) if found else None


def _says(said: str, value: object) -> bool:
    if isinstance(value, bool):
        words = {"on"} if value else {"off", "", "—", "–"}
        return said.split(" ", 1)[0].strip("`") in words
    number = f"{value:g}" if isinstance(value, float) else str(value)
    return re.search(rf"(?<![\w.]){re.escape(number)}(?![\w.])", said) is not None


def run_defaults() -> dict[str, object]:
    """The defaults of ``run``'s options that the run decides (RunConfig, the suite's
    ``defaults:``), not click: what the table should say for each."""
    from agentgauge.runner import RunConfig
    from agentgauge.schema import Defaults

    config = {f.name: f.default for f in dataclasses.fields(RunConfig)}
    suite = Defaults()
    return {
        "--max-concurrency": config["max_concurrency"],
        "--trials": suite.trials,
        "--timeout": suite.timeout_s,
        "--max-steps": suite.max_steps,
        "--tool-mode": suite.tool_mode,
    }


if __name__ == "__main__":
    from agentgauge.cli import cli

    _root = Path(__file__).resolve().parents[2]
    for _line in undocumented(cli, used_options(_root, cli)):
        print(f"not in a doc's command line: {_line}")
