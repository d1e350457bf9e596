"""The results journal: ``results.jsonl``, appended and flushed as each case finishes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import IO

import orjson

from .._secrets import register_env, scrub_bytes
from ..errors import UserError
from ..schema import CaseResult

RESULTS_FILE = "results.jsonl"


class ResultsWriter:
    """Append :class:`CaseResult` lines to ``RUN_DIR/results.jsonl``, flushing each line.

    A line is written whole with one ``write`` call and flushed (and fsync'ed when ``fsync``),
    so a run killed at any moment leaves at most one truncated last line, which the reader skips.
    """

    def __init__(self, run_dir: Path, *, fsync: bool = False) -> None:
        register_env()
        run_dir.mkdir(parents=True, exist_ok=True)
        self.path = run_dir / RESULTS_FILE
        self._fsync = fsync
        self._fh: IO[bytes] = open(self.path, "ab")  # noqa: SIM115 - closed in close()

    def write(self, result: CaseResult) -> bytes:
        """Append ``result``; returns the line written (secrets scrubbed, see ``_secrets``)."""
        try:
            line = orjson.dumps(result.model_dump(mode="json", exclude_none=False)) + b"\n"
        except TypeError:  # an integer beyond 64 bits (orjson's limit), e.g. in tool arguments
            line = result.model_dump_json().encode() + b"\n"
        line = scrub_bytes(line)
        self._fh.write(line)
        self.flush()
        return line

    def write_line(self, line: bytes, *, flush: bool = True) -> None:
        """Append one already-serialised result line (it must end with ``\n``).

        ``flush=False`` leaves it buffered until the next flushed line or :meth:`flush` (for
        lines that are cheap to write again, e.g. replayed from a cache).
        """
        self._fh.write(scrub_bytes(line))
        if flush:
            self.flush()

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


def iter_results(path: Path) -> Iterator[CaseResult]:
    """Read results one at a time (streaming: never holds the whole file).

    A truncated last line (a run killed mid-write) is skipped; any other bad line is a UserError
    naming the file and line.
    """
    if path.is_dir():
        path = path / RESULTS_FILE
    if not path.exists():
        raise UserError(f"{path}: no such results file")
    with open(path, "rb") as fh:
        lines = iter(fh)
        lineno = 0
        for raw in lines:
            lineno += 1
            if not raw.strip():
                continue
            is_last_partial = not raw.endswith(b"\n")
            try:
                data = orjson.loads(raw)
                yield CaseResult.model_validate(data)
            except (orjson.JSONDecodeError, ValueError) as exc:
                if is_last_partial:
                    return
                first = str(exc).splitlines()[0]
                raise UserError(f"{path}:{lineno}: not a valid result line: {first}") from exc
