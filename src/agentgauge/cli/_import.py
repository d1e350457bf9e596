"""``agentgauge import``: turn BFCL, When2Call, test_dataset.json or golden files into a suite."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click

from .._messages import printable
from ..errors import UserError
from ..importers import IMPORTERS, ImportOptions, import_suite
from ..suites import EXPORT_FORMATS, RESPONSES_FILE, export_suite, responses_from_metadata
from ..suites import write_responses as _write_responses


def _parse_map(pairs: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for pair in pairs:
        field, sep, column = pair.partition("=")
        if not sep or not field.strip() or not column.strip():
            raise UserError(f"--map {pair}: expected FIELD=COLUMN, e.g. --map query=question")
        out[field.strip()] = column.strip()
    return out


def _responses_path(out: Path, fmt: str) -> Path:
    if fmt == "suite" and out.suffix.lower() not in (".yaml", ".yml", ".json"):
        return out / RESPONSES_FILE
    return out.with_name(f"{out.stem}.{RESPONSES_FILE}")


def _table(title: str, counts: Counter[str], total: int) -> None:
    click.echo(f"{title}:")
    # a category or file name comes from the imported data: shown, never interpreted
    shown = {printable(k): n for k, n in counts.items()}
    width = max((len(k) for k in shown), default=0)
    for key, n in sorted(shown.items(), key=lambda kv: (-kv[1], kv[0])):
        share = 100.0 * n / total if total else 0.0
        click.echo(f"  {key:<{width}}  {n:>6}  {share:5.1f}%")


@click.command("import")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(sorted(IMPORTERS)))
@click.argument("sources", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path),
    required=True,
    help="A .yaml/.json file (cases inline) or a directory (suite.yaml + cases.jsonl).",
)
@click.option(
    "--tools",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Tool definitions offered with every case (tool-selection; optional for golden).",
)
@click.option(
    "--map",
    "mappings",
    multiple=True,
    metavar="FIELD=COLUMN",
    help="golden: read FIELD from COLUMN (repeatable), e.g. --map query=question.",
)
@click.option("--name", default=None, help="Suite name (default: from the format or file).")
@click.option("--category", default=None, help="Give every imported case this category.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="At most N per file.")
@click.option(
    "--strict-args",
    is_flag=True,
    help="when2call: expect the reference call's argument values exactly "
    "(default: the right tool with its required arguments, any values).",
)
@click.option(
    "--to",
    "to_fmt",
    type=click.Choice(EXPORT_FORMATS),
    default="suite",
    show_default=True,
    help="Write an agentgauge suite, plain JSONL cases, or the tool-selection JSON format.",
)
def command(
    fmt: str,
    sources: tuple[Path, ...],
    output: Path,
    tools: Path | None,
    mappings: tuple[str, ...],
    name: str | None,
    category: str | None,
    limit: int | None,
    strict_args: bool,
    to_fmt: str,
) -> None:
    """Import SOURCES of FORMAT (bfcl, when2call, tool-selection, golden, acebench,
    tooltalk) as a suite.

    Prints the number of cases per source file, category and expected behaviour. FORMAT
    'suite' reads an agentgauge suite, to re-export it with --to. See docs/importers.md.
    """
    options = ImportOptions(
        tools=tools,
        columns=_parse_map(mappings),
        category=category,
        name=name,
        limit=limit,
        strict_arguments=strict_args,
    )
    suite = import_suite(fmt, list(sources), options)
    notes = export_suite(suite, output, to_fmt)
    for note in notes:
        click.echo(printable(note), err=True)
    total = len(suite.cases)
    # notes are cases left out ("<id>: not exported: why") and where side files went
    written = total - sum(1 for note in notes if ": not exported: " in note)
    # the files read are those the cases came from (a folder given is not one of them), plus
    # each file given that gave no case (worth seeing)
    files = Counter(str(c.metadata.get("source_file", "?")) for c in suite.cases)
    if fmt != "suite":
        for src in sources:
            if not src.is_dir():
                files.setdefault(src.name, 0)
    read = len(files) if fmt != "suite" else len(sources)
    click.echo(
        printable(f"imported {total} case(s) from {read} file(s); wrote {written} to {output}")
    )
    _table("per source file", files, total)
    _table("per category", Counter(c.category for c in suite.cases), total)
    # a case may expect no behaviour label (BFCL's multi-turn cases: their turns and state)
    behaviors: Counter[str] = Counter(c.expect.behavior or "(not set)" for c in suite.cases)
    _table("per behavior", behaviors, total)
    if suite.tools:
        click.echo(f"suite tools: {len(suite.tools)}")
    if to_fmt == "suite" and total > 1000 and output.suffix.lower() in (".yaml", ".yml"):
        click.echo("hint: a directory (-o DIR) writes cases.jsonl, much faster to load", err=True)
    responses = responses_from_metadata(suite)
    if responses:
        path = _responses_path(output, to_fmt)
        _write_responses(responses, path)
        click.echo(f"recorded responses: {len(responses)} written to {path}")
