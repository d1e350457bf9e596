"""The run directory: the one owner of its files, their paths and the rules for reading and
writing them.

```
RUN_DIR/
  run.json           the typed RunRecord (written atomically, secrets scrubbed)
  results.jsonl      one CaseResult per line, appended and flushed as each case finishes
  .agentgauge.lock   held (flock) while a run writes to the directory
```

One truncation rule for ``results.jsonl``: a line counts only when it ends with a newline. A
run killed mid-write leaves at most one last line without one; every reader skips it, and
:func:`scan_finished` (resume) cuts it off so that later appends start on a fresh line. Any
other bad line is a UserError naming the file and line.

Everything else (the runner, ``agentgauge score``, metrics, reports, exports) asks this module;
no other module opens these files.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Protocol

import orjson
from pydantic import BaseModel

from .._messages import kind_of
from .._secrets import register_env, scrub_bytes
from .._suite_code import open_regular, writable_file
from ..errors import UserError
from ..files import (
    iter_lines,
    parse_json,
    read_model_file,
    too_deep,
    too_deep_message,
    validated,
)
from ..schema import CaseResult, RunRecord, Suite

__all__ = [
    "LOCK_FILE",
    "RESULTS_FILE",
    "RUN_FILE",
    "Finished",
    "JournalObserver",
    "ResultsWriter",
    "encode_result",
    "header_hash",
    "iter_light_results",
    "iter_results",
    "journal_has_results",
    "load_record",
    "read_record",
    "result_from_line",
    "result_pair",
    "run_dir_lock",
    "scan_finished",
    "suite_hash",
    "write_json_atomic",
    "write_record",
]

RESULTS_FILE = "results.jsonl"
RUN_FILE = "run.json"
#: held (flock) while a run writes to its directory
LOCK_FILE = ".agentgauge.lock"
#: fields of a result line that metrics and reports never read (most of a line's size)
_HEAVY = ("messages", "trace")


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
    with open_regular(run_dir / LOCK_FILE, "ab") as fh:  # never a symlink planted there
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise UserError(
                f"{run_dir}: another agentgauge run is writing to this directory; "
                "let it finish (or stop it) first"
            ) from exc
        yield


def header_hash(suite: Suite) -> hashlib.blake2b:
    """The suite hash (recorded in run.json) before its cases: every case's JSON is added to
    it, one at a time."""
    # the matrix names the agents a run compares; it does not decide any one run's results
    data = suite.model_dump_json(exclude={"cases", "matrix"})
    return hashlib.blake2b(data.encode(), digest_size=12)


def suite_hash(suite: Suite, case_json: dict[int, bytes] | None = None) -> str:
    """A hash of the suite, case by case (never one string of the whole suite); the same as a
    ``agentgauge.runner.SuiteSurvey`` makes of the suite streamed.

    ``case_json``, when given, keeps each case's JSON by ``id(case)`` for the replay keys.
    """
    h = header_hash(suite)
    for case in suite.cases:
        data = case.model_dump_json().encode()
        h.update(data)
        if case_json is not None:
            case_json[id(case)] = data
    return h.hexdigest()


def read_record(run_dir: Path) -> RunRecord:
    """``run.json``; a missing or invalid one is a UserError."""
    record = load_record(run_dir)
    if record is None:
        raise UserError(f"{run_dir}: not a run directory (no {RUN_FILE})")
    return record


def load_record(run_dir: Path) -> RunRecord | None:
    """``run.json``, or None when the directory has none (results written by other tools).

    Read with the input limits (a regular file, within the size limit and nesting depth); a
    record that does not validate is a UserError per problem: ``run.json:LINE: field: message``.
    """
    path = Path(run_dir) / RUN_FILE
    if not os.path.lexists(path):
        return None
    return read_model_file(path, RunRecord, str(path), what="run record")


def write_record(run_dir: Path, record: RunRecord) -> None:
    """Write ``run.json`` atomically (a kill never leaves half a record), secrets scrubbed."""
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    write_json_atomic(Path(run_dir) / RUN_FILE, record)


def write_json_atomic(path: Path, model: BaseModel) -> None:
    """Write ``model`` as indented JSON to ``path`` through a temporary file replaced in one
    step (a kill never leaves half a file), secrets scrubbed: run.json, a matrix's manifest and
    its comparison. ``path`` must be a regular file or absent (a symlink, FIFO or folder in its
    place is refused: :func:`agentgauge._suite_code.writable_file`); the temporary file is a new
    one of a name of its own (never a file or link already there)."""
    import tempfile

    register_env()
    writable_file(path)
    try:
        data = orjson.dumps(model.model_dump(mode="json"), option=orjson.OPT_INDENT_2)
    except TypeError:  # an integer beyond 64 bits (orjson's limit), e.g. --seed 10**30
        data = model.model_dump_json(indent=2).encode()
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(scrub_bytes(data) + b"\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def encode_result(result: CaseResult) -> bytes:
    """The journal line of ``result`` (ending in a newline; secrets not yet scrubbed: the
    writer scrubs every line it writes). A remote worker encodes its results with it, so the
    driver writes the same bytes a local run would."""
    return _encode(result)[0]


def _encode(result: CaseResult) -> tuple[bytes, bool]:
    """The line of ``result`` and whether it went through orjson (then a reader's
    ``orjson.loads`` of it gives back exactly the dump it was made from)."""
    try:
        return orjson.dumps(result.model_dump(mode="json", exclude_none=False)) + b"\n", True
    except TypeError:  # an integer beyond 64 bits (orjson's limit), e.g. in tool arguments
        return result.model_dump_json().encode() + b"\n", False


class JournalObserver(Protocol):
    """Sees every line a :class:`ResultsWriter` appends, as written (secrets scrubbed), in
    order: e.g. a summary folded while the run goes on (``metrics.LiveSummary``)."""

    def opened(self, path: Path, offset: int) -> None:
        """The journal ``path`` was opened; it held ``offset`` bytes (a resume's results)."""

    def line(self, raw: bytes, result: CaseResult | None = None) -> None:
        """``raw`` (one whole line, its newline included) was appended. Must not raise.

        ``result``: the result ``raw`` is the unchanged encoding of (no secret was scrubbed
        from it, and it went through orjson), when the writer was given one; None for a line
        given as bytes (a replay, a worker process's line) or changed by the scrubber."""


class ResultsWriter:
    """Append :class:`CaseResult` lines to ``RUN_DIR/results.jsonl``, flushing each line.

    A line is written whole with one ``write`` call and flushed (and fsync'ed when ``fsync``),
    so a run killed at any moment leaves at most one truncated last line, which the reader skips.
    """

    def __init__(
        self,
        run_dir: Path,
        *,
        fsync: bool = False,
        fresh: bool = False,
        observer: JournalObserver | None = None,
    ) -> None:
        """``fresh``: start an empty journal (replace the lines already there); ``observer``
        sees every line written."""
        register_env()
        run_dir.mkdir(parents=True, exist_ok=True)
        self.path = run_dir / RESULTS_FILE
        self._fsync = fsync
        # a regular file only: a symlink planted in its place (to ~/.bashrc) or a FIFO is refused
        self._fh: IO[bytes] = open_regular(self.path, "wb" if fresh else "ab")
        self._observer = observer
        if observer is not None:
            observer.opened(self.path, os.fstat(self._fh.fileno()).st_size)

    def write(self, result: CaseResult) -> bytes:
        """Append ``result``; returns the line written (secrets scrubbed, see ``_secrets``)."""
        line, exact = _encode(result)
        return self._append(line, flush=True, result=result if exact else None)

    def write_line(self, line: bytes, *, flush: bool = True) -> None:
        """Append one already-serialised result line (it must end with ``\n``).

        ``flush=False`` leaves it buffered until the next flushed line or :meth:`flush` (for
        lines that are cheap to write again, e.g. replayed from a cache).
        """
        self._append(line, flush=flush)

    def _append(self, line: bytes, *, flush: bool, result: CaseResult | None = None) -> bytes:
        """Write ``line`` scrubbed, flush if asked, show it to the observer (with ``result``,
        the result ``line`` encodes, when the scrubber left the line as it was); the bytes
        written."""
        written = scrub_bytes(line)
        self._fh.write(written)
        if flush:
            self.flush()
        if self._observer is not None:
            self._observer.line(written, result if written is line else None)
        return written

    def flush(self) -> None:
        self._fh.flush()
        if self._fsync:
            import os

            os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _results_path(path: Path) -> Path:
    path = Path(path)
    return path / RESULTS_FILE if path.is_dir() else path


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """``(line number, line)`` of every whole, non-blank line: the one truncation rule (a last
    line without a newline is a write cut short, and is not read). Each line is within the
    input limit on one line (``iter_lines``); the file may be larger."""
    for lineno, raw in iter_lines(path, str(path)):
        if not raw.endswith(b"\n"):
            return
        if raw.strip():
            yield lineno, raw


def _result(path: Path, lineno: int, raw: bytes, *, light: bool = False) -> CaseResult:
    """One journal line as a :class:`CaseResult`: invalid JSON, nesting deeper than the input
    limit or a failed validation is a UserError ``results.jsonl:LINE: field: message``.
    ``light``: ``messages`` and ``trace`` are dropped before the depth check and validation."""
    display = str(path)
    what = "result line"
    if not light:
        data = parse_json(raw, display, lineno, what=what)
    else:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            data = parse_json(raw, display, lineno, what=what)  # raises, naming the line
        if isinstance(data, dict):
            for key in _HEAVY:
                data.pop(key, None)
            world = data.get("world")
            if isinstance(world, dict):  # a world's final state: only its verdict is light
                world.pop("final", None)
        deep = too_deep(data, raw)
        if deep is not None:
            raise UserError(f"{too_deep_message(display, lineno, deep)} (not a valid {what})")
    return validated(CaseResult, data, display=display, locator=lineno, what=what)


def result_from_line(path: Path, lineno: int, raw: bytes, *, light: bool = False) -> CaseResult:
    """Line ``lineno`` of the journal ``path`` as :func:`iter_results` (``light``:
    :func:`iter_light_results`) reads it: the same result, or the same UserError."""
    return _result(path, lineno, raw, light=light)


def iter_results(path: Path) -> Iterator[CaseResult]:
    """Read results one at a time (streaming: never holds the whole file). ``path`` is the run
    directory or its results file."""
    path = _results_path(path)
    if not os.path.lexists(path):
        raise UserError(f"{path}: no such results file")
    for lineno, raw in _lines(path):
        yield _result(path, lineno, raw)


def iter_light_results(path: Path) -> Iterator[CaseResult]:
    """Like :func:`iter_results`, with ``messages``, ``trace`` and a world's ``final`` state
    left empty (metrics and reports never read them; they are dropped before validation)."""
    path = _results_path(path)
    if not os.path.lexists(path):
        raise UserError(f"{path}: no such results file")
    for lineno, raw in _lines(path):
        yield _result(path, lineno, raw, light=True)


@dataclass(kw_only=True)
class Finished:
    """The (case id, trial) pairs already in a results journal, and their statuses."""

    pairs: set[tuple[str, int]] = field(default_factory=set)
    passed: int = 0
    failed: int = 0
    errors: int = 0


def result_pair(path: Path, lineno: int, data: object) -> tuple[str, int]:
    """The ``(case id, trial)`` of a parsed journal line, read without validating the rest;
    a line without them is a UserError ``results.jsonl:LINE: field: message``."""
    where = f"{path}:{lineno}"
    if not isinstance(data, dict):
        raise UserError(f"{where}: expected a result object, got {kind_of(data)}")
    case_id, trial = data.get("case_id"), data.get("trial", 0)
    if not isinstance(case_id, str | int) or isinstance(case_id, bool):
        raise UserError(f"{where}: case_id: expected a string, got {kind_of(case_id)}")
    if not isinstance(trial, int) or isinstance(trial, bool):
        raise UserError(f"{where}: trial: expected an integer, got {kind_of(trial)}")
    return str(case_id), trial


def scan_finished(run_dir: Path) -> Finished:
    """Read the journal's finished pairs and cut off a truncated last line (a kill mid-write).

    The cut makes later appends start on a fresh line; the case whose line was cut is simply not
    finished, so it runs again.
    """
    path = run_dir / RESULTS_FILE
    out = Finished()
    if not os.path.lexists(path):
        return out
    good_end = 0
    for lineno, raw in iter_lines(path, str(path)):
        if not raw.endswith(b"\n"):
            break
        good_end += len(raw)
        if not raw.strip():
            continue
        data = parse_json(raw, str(path), lineno, what="result line")
        pair = result_pair(path, lineno, data)
        status = data.get("status")
        if pair not in out.pairs:
            out.pairs.add(pair)
            if status == "passed":
                out.passed += 1
            elif status == "failed":
                out.failed += 1
            else:
                out.errors += 1
    if good_end < path.stat().st_size:
        with open_regular(path, "ab") as fh:  # never truncates the target of a symlink
            fh.truncate(good_end)
    return out


def journal_has_results(run_dir: Path) -> bool:
    path = run_dir / RESULTS_FILE
    return path.exists() and path.stat().st_size > 0
