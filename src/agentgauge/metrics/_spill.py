"""Records grouped by key in bounded memory: the per-case state of comparisons and summaries.

A paired comparison needs every trial of a case from both runs together, and pass@k needs every
trial of a case; results arrive in any order. :class:`Spill` holds records in memory up to a
byte budget; past it, records go to bucket files in a temporary folder, chosen by a stable hash
of the key (BLAKE2b, so the same on every machine and run). :meth:`Spill.groups` then hands back
the records one bucket at a time: every record of a key is in the same group, in the order it
was added. A bucket file larger than the budget is split again by the next bits of the hash, so
a group never holds more than about the budget however many records there are (docs/metrics.md
#memory). The only exception is a single key with more records than the budget (one case with
millions of trials), which cannot be split.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

__all__ = ["MEMORY_BYTES", "Spill"]

#: bytes of records held in memory (and per group read back) before spilling to bucket files
MEMORY_BYTES = 4 << 20
#: bucket files per split (6 bits of the 64-bit hash per level)
_BITS = 6
_FANOUT = 1 << _BITS
_MASK = _FANOUT - 1
#: what Python spends per held record besides its bytes (a tuple, an int, a bytes header)
_OVERHEAD = 110
#: a 16-hex-digit hash, then the record
_PREFIX = 16


def _digest(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "little")


class Spill:
    """Records (``bytes`` without a newline) keyed by a string, read back grouped by key.

    Use as a context manager (the temporary folder is removed on exit), or call :meth:`close`.
    """

    def __init__(self, memory_bytes: int | None = None) -> None:
        self.memory_bytes = MEMORY_BYTES if memory_bytes is None else memory_bytes
        self._held: list[tuple[int, bytes]] | None = []
        self._size = 0
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self._files: list[BinaryIO] = []
        #: records added
        self.records = 0

    @property
    def spilled(self) -> bool:
        """Whether the records went to bucket files (more than the memory budget)."""
        return self._tmp is not None

    def __enter__(self) -> Spill:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, key: str, record: bytes) -> None:
        self.records += 1
        h = _digest(key)
        if self._held is None:
            self._files[h & _MASK].write(b"%016x%b\n" % (h, record))
            return
        # a copy: orjson's bytes keep a 4 KB buffer whatever their length
        self._held.append((h, bytes(memoryview(record))))
        self._size += len(record) + _OVERHEAD
        if self._size > self.memory_bytes:
            self._spill()

    def _spill(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="agentgauge-spill-")
        root = Path(self._tmp.name)
        self._files = [open(root / f"{i:02d}", "wb") for i in range(_FANOUT)]  # noqa: SIM115
        held, self._held = self._held or [], None
        for h, record in held:
            self._files[h & _MASK].write(b"%016x%b\n" % (h, record))

    def groups(self) -> Iterator[Iterator[bytes]]:
        """The records, one group (an iterator, to consume before asking for the next) at a time.

        Each key's records are all in one group, in the order they were added. Call once.
        """
        if self._held is not None:
            held, self._held = self._held, []
            if held:
                yield (record for _, record in held)
            return
        for fh in self._files:
            fh.close()
        self._files = []
        assert self._tmp is not None
        root = Path(self._tmp.name)
        for i in range(_FANOUT):
            yield from self._read(root / f"{i:02d}", 1)

    def _read(self, path: Path, level: int) -> Iterator[Iterator[bytes]]:
        size = path.stat().st_size
        if size == 0:
            path.unlink()
            return
        if size <= self.memory_bytes or level * _BITS >= 64:
            yield _lines(path)
            return
        parts = [path.with_name(f"{path.name}.{i:02d}") for i in range(_FANOUT)]
        handles = [open(p, "wb") for p in parts]  # noqa: SIM115
        shift = level * _BITS
        try:
            with open(path, "rb") as fh:
                for line in fh:
                    handles[(int(line[:_PREFIX], 16) >> shift) & _MASK].write(line)
        finally:
            for out in handles:
                out.close()
        path.unlink()
        # one key (or one hash) holds everything: splitting further cannot help
        whole = any(p.stat().st_size == size for p in parts)
        for p in parts:
            yield from self._read(p, 64 if whole else level + 1)

    def close(self) -> None:
        for fh in self._files:
            fh.close()
        self._files = []
        self._held = []
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        for line in fh:
            yield line[_PREFIX:-1]
    path.unlink()
