"""Options shared by several commands (one definition, so their flags and help stay alike)."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["gates_option", "text_or_json_option"]

#: ``--gates FILE``: gate thresholds from a YAML file instead of the suite's ``gates:``
gates_option = click.option(
    "--gates",
    "gates_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    envvar="AGENTGAUGE_GATES",
    help="YAML file of gate thresholds (default: the suite's gates).",
)

#: ``--format text|json``: a human-readable listing or one JSON document (stored as ``fmt``)
text_or_json_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
