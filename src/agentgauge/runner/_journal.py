"""``run.json`` and the finished part of ``results.jsonl``, for crash-safe resume."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from .._secrets import register_env, scrub_bytes
from ..errors import UserError
from ..io import RESULTS_FILE
from ..schema import RunRecord

RUN_FILE = "run.json"
#: held (flock) while a run writes to its directory
LOCK_FILE = ".agentgauge.lock"


@contextmanager
def run_dir_lock(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``run_dir`` while a run writes to it.

    A second run or ``--resume`` of a run that is still going (a Ctrl-C that did not stop it, a
    CI retry) would append the same cases to one journal and count them twice; it is refused.
    """
    try:
        import fcntl
    except ImportError:  # no advisory locks on this platform: the directory is not guarded
        yield
        return
    run_dir.mkdir(parents=True, exist_ok=True)
    with open(run_dir / LOCK_FILE, "ab") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise UserError(
                f"{run_dir}: another agentgauge run is writing to this directory; "
                "let it finish (or stop it) first"
            ) from exc
        yield


@dataclass(kw_only=True)
class Finished:
    """The (case id, trial) pairs already in a results journal, and their statuses."""

    pairs: set[tuple[str, int]] = field(default_factory=set)
    passed: int = 0
    failed: int = 0
    errors: int = 0


def scan_finished(run_dir: Path) -> Finished:
    """Read the journal's finished pairs and cut off a truncated last line (a kill mid-write).

    The cut makes later appends start on a fresh line; the case whose line was cut is simply not
    finished, so it runs again.
    """
    path = run_dir / RESULTS_FILE
    out = Finished()
    if not path.exists():
        return out
    good_end = 0
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                break
            if raw.strip():
                try:
                    data = orjson.loads(raw)
                    pair = (str(data["case_id"]), int(data.get("trial", 0)))
                    status = data.get("status")
                except (orjson.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                    raise UserError(f"{path}:{lineno}: not a valid result line ({exc})") from exc
                if pair not in out.pairs:
                    out.pairs.add(pair)
                    if status == "passed":
                        out.passed += 1
                    elif status == "failed":
                        out.failed += 1
                    else:
                        out.errors += 1
            good_end += len(raw)
    if good_end < path.stat().st_size:
        with open(path, "r+b") as fh:
            fh.truncate(good_end)
    return out


def journal_has_results(run_dir: Path) -> bool:
    path = run_dir / RESULTS_FILE
    return path.exists() and path.stat().st_size > 0


def read_record(run_dir: Path) -> RunRecord:
    path = run_dir / RUN_FILE
    if not path.exists():
        raise UserError(f"{run_dir}: not a run directory (no {RUN_FILE})")
    try:
        return RunRecord.model_validate_json(path.read_bytes())
    except ValueError as exc:
        first = str(exc).splitlines()[0]
        raise UserError(f"{path}: not a valid run record: {first}") from exc


def write_record(run_dir: Path, record: RunRecord) -> None:
    """Write ``run.json`` atomically (a kill never leaves half a record), secrets scrubbed."""
    register_env()
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / RUN_FILE
    tmp = path.with_suffix(".json.tmp")
    try:
        data = orjson.dumps(record.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    except TypeError:  # an integer beyond 64 bits (orjson's limit), e.g. --seed 10**30
        data = record.model_dump_json(indent=2).encode()
    tmp.write_bytes(scrub_bytes(data) + b"\n")
    os.replace(tmp, path)
