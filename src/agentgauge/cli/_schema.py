"""``agentgauge schema``: print the JSON Schema of the suite format (for editors)."""

from __future__ import annotations

from pathlib import Path

import click
import orjson

from ..errors import UserError


@click.command("schema")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the schema to this file instead of standard output.",
)
def command(output: Path | None) -> None:
    """Print the JSON Schema (draft 2020-12) of suite files.

    Point your editor at it to get completion and checking while writing suites, e.g. with the
    YAML language server: `# yaml-language-server: $schema=suite.schema.json`.
    """
    from ..schema import suite_json_schema

    text = orjson.dumps(suite_json_schema(), option=orjson.OPT_INDENT_2).decode() + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as err:
        raise UserError(f"{output}: cannot write: {err.strerror or err}") from None
    click.echo(f"wrote {output}", err=True)
