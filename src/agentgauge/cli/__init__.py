"""The ``agentgauge`` command line: thin commands, each ending in one public API call.

Commands are imported only when invoked, so ``agentgauge --help`` stays fast.
"""

from __future__ import annotations

import gc
import importlib
import sys
from typing import Any, NoReturn

import click

from .._version import __version__
from . import _startup
from ._interrupt import interrupt_status, terminate_as_interrupt

#: command name -> (module under agentgauge.cli, one-line help shown by --help)
COMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("_validate", "Validate and lint suite files."),
    "schema": ("_schema", "Print the JSON Schema of the suite format."),
    "import": ("_import", "Import cases from BFCL, When2Call, test_dataset.json or golden files."),
    "tools": ("_tools", "Convert tool definitions between OpenAI, Anthropic, Gemini and MCP."),
    "run": ("_run", "Run a suite against an agent and score it."),
    "load": ("_load", "Load-test an agent: concurrent sessions, latency and errors over time."),
    "score": ("_score", "Score recorded responses (no model calls)."),
    "report": ("_report", "Render a run as console, Markdown, JUnit, JSON or CSV."),
    "merge": ("_merge", "Merge the shard runs of one suite (--shard i/N) into one run."),
    "compare": ("_compare", "Compare two runs of the same suite, case by case."),
    "gate": ("_gate", "Check a run against gate thresholds (exit 0 pass, 1 fail)."),
    "history": ("_history", "Show a metric's trend across recorded runs."),
    "calibrate": ("_calibrate", "Measure a judge's agreement with human labels."),
    "review": ("_review", "Grade the planning path of a run's results by hand (1-5)."),
    "cache": ("_cache", "Show or clear the response cache (info, clear)."),
    "capture": ("_capture", "Turn OpenTelemetry traces of an agent into test cases."),
    "export-otel": ("_export_otel", "Export a run as OpenTelemetry traces (OTLP/JSON or HTTP)."),
    "redteam": ("_redteam", "Write red-team (adversarial) cases for a suite's own tools."),
    "generate": ("_generate", "Write cases and scripted-user conversations from a suite's tools."),
}


#: commands that call :func:`startup_done` themselves, once their modules are imported
_OWN_STARTUP = frozenset({"run", "score"})


def startup_done() -> None:
    """Start-up is over: from here the garbage collector runs again, and never walks the objects
    start-up built (``gc.freeze``: modules, classes, pydantic schemas).

    :func:`main` turns the collector off while a command's modules are imported (each import
    allocates thousands of objects and frees almost none, so the collections it triggers are
    wasted work: about a tenth of a one-case run). ``run`` and ``score`` call this once their
    modules are in, before any suite is read; every other command before it starts."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


class LazyGroup(click.Group):
    """A click group that imports a command's module only when that command runs."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = COMMANDS.get(cmd_name)
        if entry is None:
            return None
        module = importlib.import_module(f"{__name__}.{entry[0]}")
        if cmd_name not in _OWN_STARTUP:
            startup_done()
        command = module.command
        assert isinstance(command, click.Command)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        from .. import _secrets
        from .._messages import printable
        from ..errors import UserError

        # everything a command prints passes the secret scrubber (keys in the environment now,
        # and those providers register once they resolve one)
        _secrets.register_env()
        saved = sys.stdout, sys.stderr
        sys.stdout = _secrets.ScrubbingStream(sys.stdout)
        sys.stderr = _secrets.ScrubbingStream(sys.stderr)
        try:
            return super().invoke(ctx)
        except UserError as err:
            for line in err.problems:
                click.echo(printable(_secrets.scrub(line)), err=True)  # one line each, shown
            ctx.exit(2)
        except KeyboardInterrupt:
            # click would print "Aborted!" and exit 1, which reads as a failed gate
            click.echo("interrupted", err=True)
            ctx.exit(interrupt_status())
        finally:
            sys.stdout, sys.stderr = saved

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agentgauge")
def cli() -> None:
    """agentgauge: test and evaluate LLM agents that call tools."""


def run() -> NoReturn:
    """The ``agentgauge`` program (the console script, ``python -m agentgauge``): :func:`main`,
    then the process ends without the interpreter's teardown (``_startup.exit_process``).
    Call :func:`main` to run a command inside a process that goes on."""
    try:
        main()
    except SystemExit as exc:
        _startup.exit_process(exc.code)
    _startup.exit_process(0)


def main(argv: list[str] | None = None) -> None:
    """Entry point. User errors print one line each on stderr and exit with status 2."""
    for stream in (sys.stdout, sys.stderr):
        # a console that cannot show "≥", "–" or a non-ASCII case id (cp1252, ascii) gets "?"
        # in their place instead of a UnicodeEncodeError traceback
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="replace")
    gc.disable()  # until the command's modules are imported: see startup_done
    _startup.begin()  # the bytecode cache of generated methods, no pydantic plugin scan
    try:
        with terminate_as_interrupt():
            cli.main(args=argv, prog_name="agentgauge")
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(interrupt_status())
    finally:
        # at exit the interpreter's last collections would walk every object still alive
        # (about 60 ms after a one-case run); what is left is freed without them
        startup_done()
        gc.freeze()
        _startup.end()
