"""``agentgauge redteam``: write adversarial cases for a suite's own tools and cases."""

from __future__ import annotations

from pathlib import Path

import click

from .._messages import printable
from ._options import force_option, refuse_overwrite, suite_output_option


@click.command("redteam")
@click.argument("suite", type=click.Path(exists=True, path_type=Path))
@suite_output_option
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    envvar="AGENTGAUGE_SEED",
    help="Same seed, same cases (byte for byte).",
)
@click.option(
    "--family",
    "families",
    multiple=True,
    metavar="NAME",
    help="Only these families (repeatable); default all.",
)
@click.option(
    "--per-family",
    type=int,
    default=6,
    show_default=True,
    help="At most this many cases per family.",
)
@click.option(
    "--generator",
    metavar="SPEC",
    envvar="AGENTGAUGE_REDTEAM_GENERATOR",
    help="A model (provider spec) that paraphrases each attack; its replies are cached.",
)
@click.option(
    "--cache/--no-cache",
    default=True,
    show_default=True,
    help="Cache the generator model's replies.",
)
@force_option
def command(
    suite: Path,
    output: Path,
    seed: int,
    families: tuple[str, ...],
    per_family: int,
    generator: str | None,
    cache: bool,
    force: bool,
) -> None:
    """Write red-team cases for SUITE: injections placed in its own simulated tool results,
    misdirection aimed at its privileged tools, and the other attack families in its words.

    Everything is local and seeded; nothing is sent anywhere unless --generator names a model.
    The output copies the suite's tools and defaults, so it runs and validates on its own.
    """
    from ..redteam import FAMILIES, RedteamConfig, generate_redteam, write_redteam
    from ..suites import find_suite_file, load_suite

    refuse_overwrite(output, force)
    config = RedteamConfig(
        seed=seed,
        families=tuple(families) or FAMILIES,
        per_family=per_family,
        generator=generator,
        cache=cache,
    )
    source_file = find_suite_file(suite)
    loaded = load_suite(suite)
    result = generate_redteam(loaded, config, source=str(suite))
    source_dir = source_file.parent if source_file is not None else None
    written = write_redteam(result, output, source_dir=source_dir)
    for choice in result.choices:
        if choice.privileged:
            click.echo(printable(f"privileged: {choice.line()}"), err=True)
    for note in result.notes:
        click.echo(printable(f"note: {note}"), err=True)
    counts = ", ".join(f"{c.family} {c.cases}" for c in result.counts)
    click.echo(f"wrote {written[0]}: {len(result.suite.cases)} cases ({counts})", err=True)
    for extra in written[1:]:
        click.echo(
            f"copied {extra} (a fake the tools use; suite code stays in its folder)", err=True
        )
