"""``agentgauge generate``: write cases (single-turn goals and conversations with a scripted
user) from a suite's tools and world, or from a file of tool definitions."""

from __future__ import annotations

from pathlib import Path

import click

from .._messages import printable
from ._options import (
    allow_suite_code_option,
    force_option,
    refuse_overwrite,
    suite_output_option,
)


@click.command("generate")
@click.argument("source", type=click.Path(path_type=Path))
@suite_output_option
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    envvar="AGENTGAUGE_SEED",
    help="Same source and seed, same file (byte for byte).",
)
@click.option(
    "--family", "families", multiple=True, metavar="NAME", help="Only these families (repeatable)."
)
@click.option(
    "--per-family", type=int, default=6, show_default=True, help="At most this many per family."
)
@click.option(
    "--generator",
    metavar="SPEC",
    envvar="AGENTGAUGE_GENERATOR",
    help="A model (provider spec) that paraphrases the texts and proposes goals; cached.",
)
@click.option(
    "--proposals",
    type=int,
    default=1,
    show_default=True,
    help="With --generator: goals the model is asked to propose per tool.",
)
@click.option(
    "--cache/--no-cache", default=True, show_default=True, help="Cache the generator's replies."
)
@click.option(
    "--check/--no-check",
    default=True,
    show_default=True,
    help="Play every case with an oracle agent and two wrong ones (offline) before writing it.",
)
@allow_suite_code_option
@force_option
def command(
    source: Path,
    output: Path,
    seed: int,
    families: tuple[str, ...],
    per_family: int,
    generator: str | None,
    proposals: int,
    cache: bool,
    check: bool,
    allow_suite_code: bool,
    force: bool,
) -> None:
    """Write generated cases for SOURCE (a suite, or a file of tool definitions): user goals
    over its tools in five categories, and conversations with a scripted user who gives a
    missing fact when asked, changes their mind, switches intent or corrects a wrong value.

    Offline and seeded unless --generator names a model. Every case is validated,
    mutation-audited and played by an oracle agent (and wrong ones) before it is written; the
    cases that fail a check are dropped, with the reason in the file's header.
    """
    from ..generate import FAMILIES, GenerateConfig, generate_suite, write_generated
    from ..suites import find_suite_file

    refuse_overwrite(output, force)
    config = GenerateConfig(
        seed=seed,
        families=tuple(families) or FAMILIES,
        per_family=per_family,
        generator=generator,
        proposals=proposals,
        cache=cache,
        check=check,
        allow_suite_code=allow_suite_code,
    )
    result = generate_suite(source, config)
    found = find_suite_file(source) if source.is_dir() else source
    folder = found.parent if found is not None else None
    written = write_generated(result, output, source_dir=folder)
    for note in result.notes:
        click.echo(printable(f"note: {note}"), err=True)
    for d in result.dropped:
        click.echo(printable(f"dropped: {d.line()}"), err=True)
    counts = ", ".join(f"{c.family} {c.written}" for c in result.counts if c.written)
    click.echo(
        f"wrote {written[0]}: {len(result.suite.cases)} cases ({counts}); "
        f"{len(result.dropped)} dropped",
        err=True,
    )
    for extra in written[1:]:
        click.echo(f"copied {extra} (suite code stays in the suite's folder)", err=True)
