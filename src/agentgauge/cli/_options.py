"""Options shared by several commands (one definition, so their flags and help stay alike)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from ..judges import ProgressFactory

F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "allow_suite_code_option",
    "allow_suite_endpoints_option",
    "force_option",
    "gates_option",
    "judge_option",
    "progress_factory",
    "progress_options",
    "refuse_overwrite",
    "suite_output_option",
    "text_or_json_option",
]

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

#: ``--judge SPEC``: the judge of the suite's judge scorers, for ``run`` and ``score`` (stored as
#: ``judge``; recorded in run.json)
judge_option = click.option(
    "--judge",
    envvar="AGENTGAUGE_JUDGE",
    help="Judge spec for the suite's judge scorers (default: the suite's defaults.judge); "
    "with no scorers: section, turns on the semantic-equivalence fallback. Recorded in run.json.",
)


def progress_options(f: F) -> F:
    """``--progress/--no-progress`` (stored as ``progress``) and ``-q/--quiet`` (``quiet``), for
    the commands whose judge calls take a while (``calibrate``, ``compare --judge``)."""
    f = click.option("--quiet", "-q", is_flag=True, help="No progress display (as --no-progress).")(
        f
    )
    return click.option(
        "--progress/--no-progress",
        default=None,
        help="Progress on stderr (default: only on a terminal; --progress off a terminal prints "
        "a line every 10 s).",
    )(f)


def progress_factory(
    progress: bool | None, quiet: bool, *, label: str, unit: str
) -> ProgressFactory | None:
    """The progress display of ``run`` (a bar on a terminal, plain lines otherwise) for a judge
    job, or None: ``--quiet`` / ``--no-progress``, or by default when stderr is no terminal."""
    enabled = progress if progress is not None else sys.stderr.isatty()
    if quiet or not enabled:
        return None
    from ..runner import ProgressReporter

    def start(total: int) -> ProgressReporter:
        return ProgressReporter(total, enabled=True, stream=sys.stderr, label=label, unit=unit)

    return start


#: ``--allow-suite-endpoints``: let endpoints the suite or a run directory names (a spec's
#: ``?base_url=``, a matrix entry's ``options.base_url``, run.json's ``options.base_url``)
#: receive your credentials (OPENAI_API_KEY ...); without it (or
#: ``AGENTGAUGE_ALLOW_SUITE_ENDPOINTS=1`` or the user's config) they are refused. Stored as
#: ``allow_suite_endpoints``; False means "not given".
allow_suite_endpoints_option = click.option(
    "--allow-suite-endpoints",
    "allow_suite_endpoints",
    is_flag=True,
    envvar="AGENTGAUGE_ALLOW_SUITE_ENDPOINTS",
    help="Let endpoints the suite or run directory names (a ?base_url=, options.base_url, an "
    "http:// agent) receive your API keys; see 'Endpoints and your credentials' in "
    "docs/suite-format.md.",
)


#: ``--output/-o PATH``: the suite file a writing command writes (``generate``, ``redteam``)
suite_output_option = click.option(
    "--output",
    "-o",
    required=True,
    type=click.Path(path_type=Path),
    help="The suite file to write (.yaml), or a folder to write suite.yaml in.",
)

#: ``--force``: overwrite the suite file ``--output`` names (see :func:`refuse_overwrite`)
force_option = click.option("--force", is_flag=True, help="Overwrite an existing output file.")


def refuse_overwrite(output: Path, force: bool) -> None:
    """A UserError when the suite file of ``--output`` (``output`` itself for a ``.yaml``/
    ``.yml``, otherwise ``output/suite.yaml``) exists and ``--force`` was not given."""
    from ..errors import UserError

    path = output if output.suffix in (".yaml", ".yml") else output / "suite.yaml"
    if path.exists() and not force:
        raise UserError(f"{path} exists; pass --force to overwrite it")
