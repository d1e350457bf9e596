"""``agentgauge load``: load-test an agent with a suite's cases (docs/load.md).

Exit status: 0 every threshold held, 1 a threshold failed, 2 bad input, 130 interrupted by
Ctrl-C (SIGINT) and 143 by SIGTERM once the load started: the partial report is written first.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ._options import (
    allow_suite_code_option,
    allow_suite_endpoints_option,
    judge_option,
    text_or_json_option,
)

if TYPE_CHECKING:
    from ..load import LoadLimits
    from ..runner import RunConfig
    from ..schema import LoadProfile

#: the flags that make a profile on the command line (instead of --profile or the suite's)
_PROFILE_FLAGS = (
    "users",
    "rate",
    "duration",
    "sessions",
    "stages",
    "step",
    "think_time",
    "max_in_flight",
    "interval",
    "loop",
)


def _pair(text: str, option: str, sep: str = ":") -> tuple[str, str]:
    from ..errors import UserError

    head, found, tail = text.partition(sep)
    if not found or not head.strip() or not tail.strip():
        raise UserError(f"{option} {text!r}: give two values as A{sep}B")
    return head.strip(), tail.strip()


def _number(text: str, option: str) -> float:
    from ..errors import UserError

    try:
        value = float(text)
    except ValueError:
        raise UserError(f"{option} {text!r}: not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise UserError(f"{option} {text!r}: not a finite number")
    return value


def _rate(text: str) -> float:
    """``--rate 5``, ``5/s`` or ``300/min`` as arrivals per second."""
    from ..runner import parse_rate

    if "/" in text:
        return parse_rate(text, option="--rate")
    return _number(text, "--rate")


def _think(text: str) -> float | list[float]:
    if ":" in text:
        low, high = _pair(text, "--think-time")
        return [_number(low, "--think-time"), _number(high, "--think-time")]
    return _number(text, "--think-time")


def _step(f: dict[str, Any]) -> dict[str, Any] | None:
    from ..errors import UserError

    if f["step"] is None:
        if f["budget"]:
            raise UserError("--budget is the budget of a step ramp: give --step START:MAX:STEP")
        return None
    parts = [p.strip() for p in f["step"].split(":")]
    if len(parts) not in (2, 3):
        raise UserError(f"--step {f['step']!r}: give START:MAX or START:MAX:STEP (e.g. 1:32:1)")
    start, top = _number(parts[0], "--step"), _number(parts[1], "--step")
    step = {"start": start, "max": top, "budget": list(f["budget"]) or ["error_rate<0.01"]}
    if len(parts) == 3:
        step["step"] = _number(parts[2], "--step")
    if f["step_every"] is not None:
        step["every"] = f["step_every"]
    return step


def _flag_profile(f: dict[str, Any]) -> dict[str, Any]:
    """The profile the flags describe (as the suite's ``load:`` section would)."""
    rate = _rate(f["rate"]) if f["rate"] is not None else None
    loop = f["loop"] or ("open" if rate is not None else "closed")
    data: dict[str, Any] = {"mode": loop, "baseline": f["baseline"]}
    stages = [_pair(s, "--stage") for s in f["stages"]]
    keys = ("users", "duration", "sessions", "max_in_flight", "interval")
    data.update({k: f[k] for k in keys if f[k] is not None})
    if rate is not None:
        data["rate"] = rate
    if stages:
        targets = [(d, _number(t, "--stage")) for d, t in stages]
        data["stages"] = [{"duration": d, "target": t} for d, t in targets]
    step = _step(f)
    if step is not None:
        data["step"] = step
    if f["think_time"] is not None:
        data["think_time"] = _think(f["think_time"])
    return data


def _profile(f: dict[str, Any]) -> LoadProfile | None:
    """The profile of ``--profile FILE`` or of the flags (None: the suite's ``load:``)."""
    from pydantic import ValidationError

    from ..errors import UserError
    from ..schema import LoadProfile

    given = [k for k in _PROFILE_FLAGS if f[k] not in (None, ())] + (
        ["step"] if f["budget"] else []
    )
    if f["profile_file"] is not None:
        if given:
            raise UserError(
                "load: give --profile FILE or the profile flags (--users ...), not both"
            )
        from ..files import read_model_file

        path: Path = f["profile_file"]
        profile = read_model_file(path, LoadProfile, str(path), what="load profile")
        return profile.model_copy(update={"baseline": profile.baseline and f["baseline"]})
    if not given:
        return None
    try:
        return LoadProfile.model_validate(_flag_profile(f))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        message = str(first.get("msg", "")).removeprefix("Value error, ")
        raise UserError(f"load options: {where + ': ' if where else ''}{message}") from None


def _limits(f: dict[str, Any]) -> LoadLimits:
    from ..load import LoadLimits

    base = LoadLimits()
    duration = base.max_duration_s
    if f["max_duration"] is not None:
        duration = _duration(f["max_duration"], "--max-duration")
    return LoadLimits(
        max_users=f["max_users"] or base.max_users,
        max_rate=_rate(f["max_rate"]) if f["max_rate"] else base.max_rate,
        max_duration_s=duration,
        max_sessions=f["max_sessions"] or base.max_sessions,
    )


def _price(text: str | None) -> tuple[float, float] | None:
    if text is None:
        return None
    low, high = _pair(text.replace(",", "/"), "--price", "/")
    values = (_number(low, "--price"), _number(high, "--price"))
    if min(values) < 0:
        from ..errors import UserError

        raise UserError(f"--price {text!r}: prices are not negative")
    return values


def _config(suite: Path, f: dict[str, Any]) -> RunConfig:
    from ..runner import RunConfig, parse_rate

    return RunConfig(
        agent=f["agent"],
        agent_options={"base_url": f["base_url"]} if f["base_url"] else {},
        timeout_s=f["timeout_s"],
        retries=f["retries"],
        max_steps=f["max_steps"],
        seed=f["seed"],
        stream=f["stream"],
        case_filter=f["filters"],
        limit=f["limit"],
        suite_path=str(suite.resolve()),
        allow_suite_code=f["allow_suite_code"] or None,
        allow_suite_endpoints=f["allow_suite_endpoints"] or None,
        judge=f["judge"],
        executor=f["executor"] or "local",
        provider_concurrency=f["provider_concurrency"],
        rate_limit_per_s=parse_rate(f["rate_limit"]) if f["rate_limit"] else None,
        workers=f["workers"],
    )


#: the options that describe a profile on the command line
_PROFILE_OPTIONS = [
    click.option(
        "--profile",
        "profile_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="YAML or JSON load profile (the shape of a suite's load: section).",
    ),
    click.option(
        "--loop",
        type=click.Choice(["closed", "open"]),
        default=None,
        help="closed: virtual users back to back; open: arrivals at a rate "
        "(default: open with --rate, else closed).",
    ),
    click.option("--users", type=click.IntRange(min=1), help="Virtual users (closed loop)."),
    click.option("--rate", metavar="R|R/s|R/min", help="Arrivals per second (open loop)."),
    click.option("--duration", metavar="D", help="How long to hold the load: 30s, 2m, 1m30s."),
    click.option(
        "--sessions",
        type=click.IntRange(min=1),
        help="End after this many sessions (with --users alone: the whole test).",
    ),
    click.option(
        "--stage",
        "stages",
        multiple=True,
        metavar="DURATION:TARGET",
        help="A k6 stage: ramp to TARGET users (arrivals/s with --loop open) over "
        "DURATION; repeatable, in order.",
    ),
    click.option(
        "--step",
        metavar="START:MAX[:STEP]",
        help="A step ramp that finds the saturation point (users, or arrivals/s with --loop open).",
    ),
    click.option("--step-every", metavar="D", help="How long each step holds (default 10s)."),
    click.option(
        "--budget",
        multiple=True,
        metavar="THRESHOLD",
        help="What a step must hold to count as sustained (repeatable; default "
        "error_rate<0.01), e.g. 'p95<2000'.",
    ),
    click.option(
        "--think-time",
        metavar="S|MIN:MAX",
        help="Seconds a user waits after each session (closed loop).",
    ),
    click.option(
        "--max-in-flight",
        type=click.IntRange(min=1),
        help="Open loop: sessions in flight at the most; later arrivals are "
        "dropped and counted (default 100).",
    ),
    click.option("--interval", metavar="D", help="Reporting interval (default 1s)."),
    click.option(
        "--baseline/--no-baseline",
        default=True,
        show_default=True,
        help="Run every case once, unloaded, first (the quality ratio's reference).",
    ),
]

#: the load gates, the bounds a suite's profile may reach, cost and output
_BOUND_OPTIONS = [
    click.option(
        "--threshold",
        "thresholds",
        multiple=True,
        metavar="THRESHOLD",
        help="A load gate, as k6 writes them: 'p95<500', 'error_rate<1%', "
        "'quality_ratio>0.9' (repeatable; exit 1 if one fails).",
    ),
    click.option(
        "--max-users",
        type=click.IntRange(min=1),
        help="Let the suite's load: ask for up to this many users (default 64).",
    ),
    click.option("--max-rate", metavar="R", help="... up to this rate (default 20/s)."),
    click.option("--max-duration", metavar="D", help="... this long (default 10m)."),
    click.option(
        "--max-sessions",
        type=click.IntRange(min=1),
        help="At most this many sessions (a suite's load: may ask for 5,000 by default).",
    ),
    click.option(
        "--max-cost",
        type=click.FloatRange(min=0, min_open=True),
        metavar="USD",
        help="Stop starting sessions once the run has cost this much.",
    ),
    click.option(
        "--price",
        metavar="IN/OUT",
        help="USD per 1M input / output tokens, for a model the price table lacks.",
    ),
    click.option(
        "--graceful-stop",
        metavar="D",
        help="After Ctrl-C or SIGTERM, how long sessions in flight may take to finish before "
        "they are cancelled (default: the profile's graceful_stop, 30s; a second Ctrl-C "
        "cancels them at once).",
    ),
    click.option(
        "--html",
        "html_file",
        type=click.Path(dir_okay=False, path_type=Path),
        help="Also write the HTML page here (always in RUN_DIR/load.html).",
    ),
    text_or_json_option,
]


def _options(fn: Any) -> Any:
    """The profile, bound and output options of ``load`` (its run options are on the command)."""
    for opt in reversed([*_PROFILE_OPTIONS, *_BOUND_OPTIONS]):
        fn = opt(fn)
    return fn


@click.command("load")
@click.argument("suite", type=click.Path(path_type=Path))
@click.option("--agent", envvar="AGENTGAUGE_AGENT", help="Agent spec (default: the suite's).")
@click.option("--base-url", envvar="AGENTGAUGE_BASE_URL", help="Base URL of the agent's server.")
@judge_option
@click.option(
    "-o",
    "--output",
    "run_dir",
    type=click.Path(path_type=Path),
    help="Run directory (default: runs/<suite>-<timestamp>).",
)
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(min=0, min_open=True),
    help="Seconds per session (default: the suite's, 60).",
)
@click.option(
    "--retries",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Retries of transient provider errors (0: see every 429 the server sends).",
)
@click.option("--max-steps", type=click.IntRange(min=1), help="Model calls per user turn.")
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Seed of the arrivals, think times, fault injection and the model.",
)
@click.option("--stream", is_flag=True, help="Stream responses (measures time to first token).")
@click.option("--filter", "filters", multiple=True, help="Only cases matching this glob.")
@click.option("--limit", type=click.IntRange(min=1), help="Use at most N cases.")
@click.option(
    "--executor",
    metavar="local|ray|ray:auto|ray://ADDRESS",
    help="Where sessions run (as agentgauge run).",
)
@click.option(
    "--provider-concurrency",
    type=click.IntRange(min=1),
    help="Model calls in flight to the provider at once.",
)
@click.option("--rate-limit", metavar="N/s|N/min", help="Model call starts per second or minute.")
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help="Processes that drive the sessions (default 1; more for a client that is CPU-bound "
    "at a high rate, as agentgauge run --workers).",
)
@allow_suite_code_option
@allow_suite_endpoints_option
@_options
def command(suite: Path, run_dir: Path | None, **flags: Any) -> None:
    """Load-test an agent with SUITE's cases: many concurrent sessions, measured over time."""
    from ..errors import RunInterrupted
    from ..load import run_load_file

    profile = _profile(flags)
    config = _config(suite, flags)
    echo = flags["fmt"] == "text"
    given = flags["graceful_stop"]
    grace = None if given is None else _duration(given, "--graceful-stop")
    try:
        outcome = run_load_file(
            suite,
            config,
            run_dir,
            profile=profile,
            limits=_limits(flags),
            thresholds=flags["thresholds"],
            max_sessions=flags["max_sessions"],
            max_cost=flags["max_cost"],
            price=_price(flags["price"]),
            notify=lambda line: click.echo(line, err=True),
            graceful_stop_s=grace,
        )
    except RunInterrupted as err:  # before the load started, or after it ended
        click.echo(str(err), err=True)
        sys.exit(130)
    _write(outcome, flags["html_file"], echo)
    why = outcome.report.interrupted_by
    if why is not None:
        cut = outcome.report.totals.cancelled
        click.echo(
            f"interrupted ({why}): the load stopped early; what ran is in "
            f"{outcome.run.run_dir} (load.json: stopped_by interrupted"
            + (f", {cut} sessions cancelled" if cut else "")
            + ")",
            err=True,
        )
        sys.exit(128 + getattr(signal.Signals, why, signal.SIGINT).value)
    if not outcome.passed:
        sys.exit(1)


def _duration(text: str, option: str) -> float:
    from ..errors import UserError
    from ..schema import parse_duration

    try:
        return parse_duration(text)
    except ValueError as exc:
        raise UserError(f"{option}: {exc}") from None


def _write(outcome: Any, html_file: Path | None, echo: bool) -> None:
    from ..report import LOAD_HTML_FILE, load_lines, write_load_html

    report = outcome.report
    page = write_load_html(report, outcome.run.run_dir / LOAD_HTML_FILE)
    if html_file is not None:
        write_load_html(report, html_file)
    if echo:
        for line in load_lines(report):
            click.echo(line)
        click.echo(f"run: {outcome.run.run_dir}  (load.json, load.jsonl, {page.name})", err=True)
    else:  # ASCII-only: a bidi override or a C1 control from the suite reaches no terminal raw
        import json

        click.echo(json.dumps(report.model_dump(mode="json"), indent=2, ensure_ascii=True))
