"""``agentgauge cache``: see what the response cache holds, and clear it (all, or the old part)."""

from __future__ import annotations

import json
import re
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ._options import text_or_json_option

if TYPE_CHECKING:
    from ..runner import PruneReport

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"(?:\d+(?:\.\d+)?[smhdw])+")
_PART = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")

cache_dir_option = click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Cache directory (default: $AGENTGAUGE_CACHE_DIR, else $XDG_CACHE_HOME/agentgauge, "
    "else ~/.cache/agentgauge).",
)


def parse_duration(text: str) -> float:
    """``30d``, ``12h``, ``90m``, ``45s``, ``2w`` or a sum such as ``1d12h``, in seconds."""
    from ..errors import UserError

    spec = text.strip()
    if not _DURATION.fullmatch(spec):
        raise UserError(
            f"--older-than {text!r}: expected a number and a unit s, m, h, d or w "
            "(e.g. 30d, 12h, 90m)"
        )
    return sum(float(n) * _UNITS[unit] for n, unit in _PART.findall(spec))


def _resolve(cache_dir: Path | None) -> Path:
    from ..runner import default_cache_dir

    return cache_dir if cache_dir is not None else default_cache_dir()


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def _when(t: float | None) -> str:
    if t is None:
        return "-"
    stamp = datetime.fromtimestamp(t).astimezone().isoformat(sep=" ", timespec="seconds")
    age = max(0.0, time.time() - t)
    ago = (
        f"{age:.0f}s"
        if age < 60
        else f"{age / 60:.0f}m"
        if age < 3600
        else f"{age / 3600:.0f}h"
        if age < 2 * 86400
        else f"{age / 86400:.0f}d"
    )
    return f"{stamp}  ({ago} ago)"


def _iso(t: float | None) -> str | None:
    return None if t is None else datetime.fromtimestamp(t, UTC).isoformat(timespec="seconds")


def _n(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def _counts(r: PruneReport, results_only: bool) -> str:
    results = _n(r.results, "result", "results")
    if results_only:
        return f"{results} (responses kept)"
    responses = _n(r.responses, "response", "responses")
    return f"{responses}, {_n(r.judge_entries, 'judge reply', 'judge replies')} and {results}"


def _interactive() -> bool:
    """Whether a person can answer a prompt (CI and pipes are not asked)."""
    return sys.stdin.isatty()


@click.group("cache")
def command() -> None:
    """Inspect or clear the response cache (model and judge responses, replayable results)."""


@command.command("info")
@cache_dir_option
@text_or_json_option
def info(cache_dir: Path | None, fmt: str) -> None:
    """Show the cache file, its size, what it holds and its dates."""
    from ..runner import cache_file, cache_stats

    directory = _resolve(cache_dir)
    stats = cache_stats(directory)
    if fmt == "json":
        data = {
            "path": str(cache_file(directory)),
            "exists": stats is not None,
            "size_bytes": stats.size_bytes if stats else 0,
            "responses": stats.responses if stats else 0,
            "judge_entries": stats.judge_entries if stats else 0,
            "results": stats.results if stats else 0,
            "oldest": _iso(stats.oldest) if stats else None,
            "newest": _iso(stats.newest) if stats else None,
        }
        click.echo(json.dumps(data, indent=2))
        return
    if stats is None:
        click.echo(f"no cache at {cache_file(directory)}")
        return
    rows = [
        ("file", str(stats.path)),
        ("size", f"{_size(stats.size_bytes)} ({stats.size_bytes:,} bytes)"),
        ("responses", f"{stats.responses:,}  (model responses)"),
        ("judge", f"{stats.judge_entries:,}  (judge replies)"),
        ("results", f"{stats.results:,}  (replayable case results)"),
        ("oldest", _when(stats.oldest)),
        ("newest", _when(stats.newest)),
    ]
    for name, value in rows:
        click.echo(f"{name + ':':<11}{value}")


@command.command("clear")
@cache_dir_option
@click.option(
    "--older-than",
    "older_than",
    metavar="DURATION",
    help="Only entries created more than DURATION ago (e.g. 30d, 12h, 90m; units s m h d w).",
)
@click.option(
    "--results-only",
    is_flag=True,
    help="Only replayable results (keep model and judge responses).",
)
@click.option("--dry-run", is_flag=True, help="Show what would be removed; change nothing.")
@click.option(
    "-y", "--yes", is_flag=True, help="Do not ask (never asked when stdin is not a terminal)."
)
def clear(
    cache_dir: Path | None,
    older_than: str | None,
    results_only: bool,
    dry_run: bool,
    yes: bool,
) -> None:
    """Remove cache entries (all, or the older ones) and compact the file.

    Run it while no run is using the cache. On a terminal it asks first (unless --yes); when
    stdin is not a terminal (CI, a pipe) it goes ahead without asking.
    """
    from ..runner import cache_file, prune_cache

    before = None if older_than is None else time.time() - parse_duration(older_than)
    directory = _resolve(cache_dir)
    when = ""
    if before is not None:
        stamp = datetime.fromtimestamp(before).astimezone().isoformat(sep=" ", timespec="seconds")
        when = f" created before {stamp}"
    planned = prune_cache(directory, before=before, results_only=results_only, dry_run=True)
    if planned is None:
        click.echo(f"no cache at {cache_file(directory)}: nothing to clear")
        return
    if dry_run:
        click.echo(f"would remove {_counts(planned, results_only)}{when} from {planned.path}")
        return
    if planned.entries and not yes and _interactive():
        prompt = f"Remove {_counts(planned, results_only)}{when} from {planned.path}?"
        if not click.confirm(prompt, default=False):
            click.echo("cancelled: nothing removed", err=True)
            sys.exit(1)
    done = prune_cache(directory, before=before, results_only=results_only)
    assert done is not None
    click.echo(f"removed {_counts(done, results_only)}{when} from {done.path}")
    now = _size(done.size_after)
    click.echo(f"reclaimed {_size(done.reclaimed_bytes)} (the file is now {now})")
