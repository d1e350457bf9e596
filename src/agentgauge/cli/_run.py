"""``agentgauge run``: run a suite against an agent, score it and print a summary."""

from __future__ import annotations

import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from .._messages import printable
from ._history import history_options, judge_samples_option
from ._options import allow_suite_code_option, allow_suite_endpoints_option, judge_option

if TYPE_CHECKING:
    from ..metrics import LiveSummary
    from ..runner import RunConfig, RunOutcome, Shard


def _finish(
    outcome: RunOutcome,
    gate: bool,
    history: Path | None = None,
    record: bool = True,
    live: LiveSummary | None = None,
) -> int:
    """Write ``summary.json``, print the summary (and gate verdicts); returns the exit status.
    ``live``: the summary folded while the run wrote its journal."""
    from rich.console import Console

    from ..metrics import finish_run
    from ..report import render_console

    run_dir = outcome.run_dir
    summary, gates = finish_run(run_dir, gate=gate, record=record, history=history, live=live)
    render_console(summary, Console(file=sys.stdout), gates=gates)
    failed = gates is not None and not gates.passed
    source = outcome.record.options.get("tool_source")
    if isinstance(source, dict):  # tools_from: how loading the tool module went
        head = printable(
            f"tools: {source.get('tool_count')} from MCP server '{source.get('target')}'"
        )
        how = [
            f"{source.get('transport')}",
            f"loaded in {source.get('latency_ms')} ms",
            f"tool mode {outcome.record.options.get('tool_mode')}",
        ]
        click.echo(_fit_line(head, how), err=True)
    counts = [
        f"{outcome.ran} run now",
        f"{outcome.resumed} resumed",
        f"{outcome.provider_calls} model calls",
        f"{outcome.cache_hits} cached",
        f"{outcome.replayed} results replayed",
        *([f"{outcome.user_errors} user errors"] if outcome.user_errors else []),
        f"{outcome.wall_s:.1f}s",
    ]
    click.echo(_fit_line(printable(f"run: {run_dir}"), counts), err=True)
    return 1 if failed else 0


def _fit_line(head: str, items: list[str]) -> str:
    """``head  (a, b, c)`` on one line when it fits the terminal's width (``COLUMNS``); else
    ``head`` alone, then the parenthesis on indented lines broken between items."""
    width = shutil.get_terminal_size().columns
    line = f"{head}  ({', '.join(items)})"
    if len(line) <= width or not items:
        return line
    pieces = [f"{item}," for item in items[:-1]] + [f"{items[-1]})"]
    pieces[0] = "(" + pieces[0]
    lines, current = [head], "  " + pieces[0]
    for piece in pieces[1:]:
        if len(current) + 1 + len(piece) > width:
            lines.append(current)
            current = "   " + piece
        else:
            current += " " + piece
    return "\n".join([*lines, current])


class _AgentSpec(click.types.StringParamType):
    """An agent spec; ``AGENTGAUGE_AGENT`` is one spec, never split at spaces."""

    name = "spec"

    def split_envvar_value(self, rv: str) -> list[str]:
        return [rv]


#: options that --resume takes from run.json, not from the command line (parameter -> flag)
_RECORDED_OPTIONS = {
    "agent": "--agent",
    "trials": "--trials",
    "timeout_s": "--timeout",
    "retries": "--retries",
    "cache": "--cache/--no-cache",
    "base_url": "--base-url",
    "mode": "--mode",
    "filters": "--filter",
    "limit": "--limit",
    "seed": "--seed",
    "max_steps": "--max-steps",
    "stream": "--stream",
    "tool_mode": "--tool-mode",
    "shard": "--shard",
    "judge_samples": "--judge-samples",
    "user_model": "--user-model",
}


def _given(value: bool, name: str) -> bool | None:
    """``value`` when the option was given (command line or environment), else None."""
    from click.core import ParameterSource

    source = click.get_current_context().get_parameter_source(name)
    explicit = source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    return value if explicit else None


def _refuse_ignored_flags(
    resume_dir: Path, run_dir: Path | None, *, same_agent: bool, same_base_url: bool = False
) -> None:
    """A flag given with --resume that run.json overrides would be silently ignored: refuse it
    (``--agent`` naming the recorded agent again is allowed: a ``python:`` agent needs it; so
    is ``--base-url`` naming the recorded endpoint again: your key goes only where you say)."""
    from click.core import ParameterSource

    from ..errors import UserError

    ctx = click.get_current_context()
    given = [
        flag
        for name, flag in _RECORDED_OPTIONS.items()
        if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE
        and not (name == "agent" and same_agent)
        and not (name == "base_url" and same_base_url)
    ]
    from_command_line = ctx.get_parameter_source("run_dir") == ParameterSource.COMMANDLINE
    if from_command_line and run_dir is not None and run_dir != resume_dir:
        given.insert(0, "--output")
    if given:
        raise UserError(
            f"--resume {resume_dir}: {', '.join(given)} cannot be changed on resume (the run "
            "keeps the options in its run.json; start a new run to change them)"
        )


@click.command("run")
@click.argument("suite", required=False, type=click.Path(path_type=Path))
@click.option(
    "--agent",
    envvar="AGENTGAUGE_AGENT",
    multiple=True,
    type=_AgentSpec(),
    help="Agent spec (default: the suite's matrix, else defaults.agent, else local:smollm2). "
    "Given more than once, every agent runs over the suite (OUT/<label>/ each) and they are "
    "compared; LABEL=SPEC names one (docs/running.md, 'Many agents in one run').",
)
@judge_option
@click.option(
    "--user-model",
    envvar="AGENTGAUGE_USER_MODEL",
    help="Play every simulated user (a case's user:) with this provider spec, e.g. "
    "local:smollm2 (over each user.model; a user without kind: scripted becomes model-driven; "
    "docs/users.md).",
)
@click.option(
    "-o",
    "--output",
    "run_dir",
    type=click.Path(path_type=Path),
    envvar="AGENTGAUGE_RUN_DIR",
    help="Run directory (default: runs/<suite>-<timestamp>).",
)
@click.option(
    "--trials",
    type=click.IntRange(min=1),
    envvar="AGENTGAUGE_TRIALS",
    help="Independent trials per case.",
)
@click.option(
    "--max-concurrency",
    type=click.IntRange(min=1),
    envvar="AGENTGAUGE_MAX_CONCURRENCY",
    help="Cases running at once (default 16).",
)
@click.option(
    "--provider-concurrency",
    type=click.IntRange(min=1),
    envvar="AGENTGAUGE_PROVIDER_CONCURRENCY",
    help="Model calls in flight to the provider at once (default: as many as cases running); "
    "across the whole cluster with --executor ray. A resume keeps it unless given again.",
)
@click.option(
    "--rate-limit",
    envvar="AGENTGAUGE_RATE_LIMIT",
    metavar="N/s|N/min",
    help="Model call starts per second or minute, evenly spaced (500/min: one start every "
    "0.12 s at the most), retries included; across the whole cluster with --executor ray. A "
    "resume keeps it unless given again.",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0, min_open=True),
    envvar="AGENTGAUGE_TIMEOUT",
    help="Seconds per case (default 60).",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    envvar="AGENTGAUGE_RETRIES",
    default=2,
    show_default=True,
    help="Retries of transient provider errors.",
)
@click.option(
    "--cache/--no-cache",
    default=True,
    envvar="AGENTGAUGE_CACHE",
    show_default=True,
    help="Use the response cache ($AGENTGAUGE_CACHE_DIR, default ~/.cache/agentgauge).",
)
@click.option(
    "--replay/--no-replay",
    default=True,
    envvar="AGENTGAUGE_REPLAY",
    show_default=True,
    help="Copy whole results of unchanged cases from the cache (--no-replay re-drives them "
    "from cached responses).",
)
@click.option(
    "--resume",
    "resume_dir",
    type=click.Path(path_type=Path),
    help="Continue the interrupted run in this directory.",
)
@click.option(
    "--base-url", envvar="AGENTGAUGE_BASE_URL", help="Base URL of an OpenAI-compatible server."
)
@click.option(
    "--mode",
    type=click.Choice(["default", "bfcl"]),
    default="default",
    envvar="AGENTGAUGE_MODE",
    show_default=True,
    help="Scoring rules.",
)
@click.option(
    "--filter",
    "filters",
    multiple=True,
    envvar="AGENTGAUGE_FILTER",
    help="Run only cases whose id, category or tag matches this glob (repeatable).",
)
@click.option(
    "--limit", type=click.IntRange(min=1), envvar="AGENTGAUGE_LIMIT", help="Run at most N cases."
)
@click.option(
    "--seed",
    type=int,
    default=0,
    envvar="AGENTGAUGE_SEED",
    show_default=True,
    help="Seed of fault injection and of the model.",
)
@click.option(
    "--max-steps",
    type=click.IntRange(min=1),
    envvar="AGENTGAUGE_MAX_STEPS",
    help="Model calls per user turn (default: the case's, else 8).",
)
@click.option(
    "--stream",
    is_flag=True,
    envvar="AGENTGAUGE_STREAM",
    help="Stream responses to measure time to first token.",
)
@click.option(
    "--tool-mode",
    type=click.Choice(["mock", "real"]),
    default=None,
    envvar="AGENTGAUGE_TOOL_MODE",
    help="Answer every case's tool calls with the suite's simulations (mock) or the tools "
    "themselves (real: the suite's MCP server, a framework agent's own tools). Default: each "
    "case's tool_mode, else the suite's defaults.tool_mode (mock).",
)
@click.option(
    "--shard",
    envvar="AGENTGAUGE_SHARD",
    metavar="I/N",
    help="Run only shard I of N of the (case, trial) pairs (a stable hash decides; e.g. one "
    "CI job per shard), then combine the N runs with 'agentgauge merge'.",
)
@click.option(
    "--executor",
    envvar="AGENTGAUGE_EXECUTOR",
    metavar="local|ray|ray:auto|ray://ADDRESS",
    help="Where the case trials run: here (local, the default) or as Ray tasks on a cluster "
    "(needs agentgauge[ray]; see docs/large-suites.md). A resume keeps it unless given again.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    envvar="AGENTGAUGE_WORKERS",
    help="Processes of this machine that drive the cases (1: this process alone; default: "
    "the cores when the run is big and concurrent enough to pay, see docs/running.md, "
    "'Every core'). This process stays the only writer of the run directory.",
)
@click.option(
    "--system",
    envvar="AGENTGAUGE_SYSTEM",
    metavar="TEXT",
    help='System prompt of the run: replaces the suite\'s defaults.system ("": none); a '
    "case's own system still wins, and so does a matrix entry's own system. Recorded in "
    "run.json; a resume keeps it and refuses another one.",
)
@click.option(
    "--system-file",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="Like --system, the prompt read from this UTF-8 file (trailing newlines removed).",
)
@click.option(
    "--progress/--no-progress", default=None, help="Progress bar (default: only on a terminal)."
)
@click.option("--gate", is_flag=True, help="Check the suite's gates; exit 1 if one fails.")
@click.option(
    "--otel-endpoint",
    envvar="AGENTGAUGE_OTEL_ENDPOINT",
    help="Also send the run as OpenTelemetry traces to this OTLP/HTTP receiver.",
)
@allow_suite_code_option
@allow_suite_endpoints_option
@judge_samples_option
@history_options
def command(
    suite: Path | None,
    resume_dir: Path | None,
    run_dir: Path | None,
    gate: bool,
    otel_endpoint: str | None,
    **flags: Any,
) -> None:
    """Run SUITE (a suite file or folder) against an agent and score every case."""
    from ..errors import RunInterrupted, UserError
    from ..metrics import LiveSummary, finish_run  # noqa: F401  (imported with the collector off)
    from ..report import render_console  # noqa: F401
    from ..runner import arun_suite, run_suite_file  # noqa: F401
    from . import startup_done
    from ._interrupt import interrupt_status

    startup_done()
    agents: tuple[str, ...] = flags["agent"]
    flags["system"] = _system(flags)
    status = _matrix(suite, agents, resume_dir, run_dir, gate, otel_endpoint, flags)
    if status is not None:
        if status:
            sys.exit(status)
        return
    flags["agent"] = agents[0] if agents else None
    if resume_dir is not None:
        suite_path, config = _resume_config(resume_dir, suite, run_dir, flags)
        run_dir = resume_dir
    elif suite is None:
        raise UserError("run: give a SUITE file or folder (or --resume RUN_DIR)")
    else:
        suite_path, config = suite, _new_config(suite, flags)
    with LiveSummary() as live:  # the summary folded while the cases run
        try:
            outcome = run_suite_file(
                suite_path,
                config,
                run_dir,
                notify=lambda m: click.echo(f"warning: {m}", err=True),
                observer=live,
            )
        except RunInterrupted as err:
            click.echo(str(err), err=True)
            sys.exit(interrupt_status())
        if otel_endpoint:
            from ._run_otel import export_otel

            export_otel(outcome, otel_endpoint)
        status = _finish(outcome, gate, flags["history"], not flags["no_history"], live)
    if status:
        sys.exit(status)


def _matrix(
    suite: Path | None,
    agents: tuple[str, ...],
    resume_dir: Path | None,
    run_dir: Path | None,
    gate: bool,
    otel_endpoint: str | None,
    f: dict[str, Any],
) -> int | None:
    """A run of many agents (``--agent`` more than once, a suite's ``matrix:``, ``--resume``
    of a matrix folder): its exit status; None when this is a run of one agent (whose start
    imports none of the matrix modules)."""
    if resume_dir is not None:
        from ..runner import is_matrix_dir, read_manifest

        if not is_matrix_dir(resume_dir):
            return None
        manifest = read_manifest(resume_dir)
        recorded = {m.agent for m in manifest.members}
        _refuse_ignored_flags(resume_dir, run_dir, same_agent=set(agents) <= recorded)
        _refuse_changed_system(resume_dir, f["system"], manifest.options.get("system"))
    elif suite is None or len(agents) == 1 or (not agents and _members(suite) is None):
        return None
    from ._run_matrix import MatrixFinish, new_matrix, resumed_matrix

    def export(member: Any) -> None:
        if otel_endpoint and member.outcome is not None:
            from ._run_otel import export_otel

            export_otel(member.outcome, otel_endpoint)

    finish = MatrixFinish(
        gate=gate, history=f["history"], record=not f["no_history"], export=export
    )
    if resume_dir is not None:
        given = {"replay_given": _given(f["replay"], "replay"), "rate_limit_per_s": _rate(f)}
        return resumed_matrix(resume_dir, agents, {**f, **given}, finish)
    assert suite is not None
    return new_matrix(suite, agents, _new_config(suite, {**f, "agent": None}), run_dir, finish)


def _members(suite: Path) -> object:
    """The suite's ``matrix:`` members (None: it has none)."""
    from ..runner import suite_members

    return suite_members(suite)


def _resume_config(
    resume_dir: Path, suite: Path | None, run_dir: Path | None, f: dict[str, Any]
) -> tuple[Path, RunConfig]:
    """The suite and options of ``--resume RUN_DIR``: from its run.json, with the flags that
    may change on resume (a flag run.json overrides is refused, not ignored)."""
    from .._secrets import public_url
    from ..errors import UserError
    from ..runner import RunConfig, public_spec, read_record

    record = read_record(resume_dir)
    recorded_url = record.options.get("base_url")
    _refuse_ignored_flags(
        resume_dir,
        run_dir,
        # run.json holds them without their secrets: the same agent or endpoint given again
        # with its key or password is the same one
        same_agent=f["agent"] is not None and record.agent in (f["agent"], public_spec(f["agent"])),
        same_base_url=f["base_url"] is not None
        and recorded_url in (f["base_url"], public_url(f["base_url"])),
    )
    _refuse_changed_system(resume_dir, f["system"], record.options.get("system"))
    if not record.suite_path:
        raise UserError(f"{resume_dir}/run.json does not name its suite file")
    suite_path = Path(suite) if suite is not None else Path(record.suite_path)
    config = RunConfig.from_record(
        record,
        resume_dir,
        agent=f["agent"],
        judge=f["judge"],
        max_concurrency=f["max_concurrency"],
        progress=f["progress"],
        replay=_given(f["replay"], "replay"),
        allow_suite_code=f["allow_suite_code"] or None,
        executor=f["executor"],
        provider_concurrency=f["provider_concurrency"],
        rate_limit_per_s=_rate(f),
        allow_suite_endpoints=f["allow_suite_endpoints"] or None,
        base_url=f["base_url"],
    )
    if suite is not None:  # the suite you name is the one whose folder holds its code
        config = replace(config, suite_path=str(Path(suite).resolve()))
    return suite_path, replace(config, workers=f["workers"])


def _system(f: dict[str, Any]) -> str | None:
    """The run's system prompt: ``--system`` or the text of ``--system-file`` (None: neither;
    a file named on the command line wins over ``$AGENTGAUGE_SYSTEM``)."""
    from click.core import ParameterSource

    from ..errors import UserError

    text: str | None = f.pop("system")
    path: Path | None = f.pop("system_file")
    if path is None:
        return text
    source = click.get_current_context().get_parameter_source("system")
    if text is not None and source == ParameterSource.COMMANDLINE:
        raise UserError("run: give --system or --system-file, not both")
    from ..files import read_plain_text

    if not path.exists() and not path.is_symlink():
        raise UserError(f"--system-file {path}: cannot read it (no such file)")
    # with the input limits: a device, FIFO, huge file, bad UTF-8 or NUL is one located line
    return read_plain_text(path, str(path)).rstrip("\r\n")


def _refuse_changed_system(resume_dir: Path, given: str | None, recorded: object) -> None:
    """``--system`` (or ``--system-file``) on resume must be the recorded prompt: another one
    would mix the results of two prompts in one run. Not given: the run keeps its own."""
    from click.core import ParameterSource

    from ..errors import UserError

    ctx = click.get_current_context()
    named = any(
        ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE
        for name in ("system", "system_file")
    )
    if named and given != recorded:
        shown = "none" if recorded is None else repr(_clip(str(recorded)))
        raise UserError(
            f"--resume {resume_dir}: --system cannot be changed on resume (the run was "
            f"started with system prompt {shown}; start a new run to try another prompt)"
        )


def _clip(text: str, width: int = 60) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _rate(f: dict[str, Any]) -> float | None:
    """``--rate-limit`` as model call starts per second (None: not given)."""
    from ..runner import parse_rate

    text: str | None = f["rate_limit"]
    return None if text is None else parse_rate(text)


def _shard(text: str | None) -> Shard | None:
    """``--shard i/N`` parsed (the shard module is imported only when the option is given)."""
    if not text:
        return None
    from ..runner import Shard

    return Shard.parse(text)


def _new_config(suite: Path, f: dict[str, Any]) -> RunConfig:
    """The options of a new run, from the flags (and their environment variables)."""
    from ..runner import RunConfig
    from ..scoring import ScoringConfig

    tool_mode = f["tool_mode"]
    return RunConfig(
        agent=f["agent"],
        agent_options={"base_url": f["base_url"]} if f["base_url"] else {},
        trials=f["trials"],
        max_concurrency=f["max_concurrency"] or 16,
        timeout_s=f["timeout_s"],
        retries=f["retries"],
        max_steps=f["max_steps"],
        cache=f["cache"],
        replay=f["replay"],
        seed=f["seed"],
        stream=f["stream"],
        case_filter=f["filters"],
        limit=f["limit"],
        scoring=ScoringConfig(mode="bfcl" if f["mode"] == "bfcl" else "default"),
        progress=f["progress"],
        suite_path=str(suite.resolve()),
        allow_suite_code=f["allow_suite_code"] or None,
        allow_suite_endpoints=f["allow_suite_endpoints"] or None,
        tool_mode="real" if tool_mode == "real" else "mock" if tool_mode else None,
        judge=f["judge"],
        judge_samples=f["judge_samples"],
        shard=_shard(f["shard"]),
        executor=f["executor"] or "local",
        workers=f["workers"],
        provider_concurrency=f["provider_concurrency"],
        rate_limit_per_s=_rate(f),
        system=f["system"],
        user_model=f["user_model"],
    )
