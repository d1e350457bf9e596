"""Options shared by several commands (one definition, so their flags and help stay alike)."""

from __future__ import annotations

from pathlib import Path

import click

__all__ = ["allow_suite_code_option", "gates_option", "text_or_json_option"]

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

#: ``--allow-suite-code``: let the suite run its own Python files (function fakes, a ``python:``
#: agent or judge it names); without it (or ``AGENTGAUGE_ALLOW_SUITE_CODE=1`` or the user's
#: config) such a suite is refused. Stored as ``allow_suite_code``; False means "not given".
allow_suite_code_option = click.option(
    "--allow-suite-code",
    "allow_suite_code",
    is_flag=True,
    envvar="AGENTGAUGE_ALLOW_SUITE_CODE",
    help="Let the suite run Python files of its own folder (function: fakes, a python: agent "
    "or judge it names); see 'Code a suite can run' in docs/suite-format.md.",
)
