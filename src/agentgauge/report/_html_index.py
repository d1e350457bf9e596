"""The case table's data, gathered in one streaming pass over the results.

- :class:`CaseIndex`: one compact row per result, stored by column (short keys, status,
  category, difficulty and tags as numbers into small dictionaries), each column appended to its
  own temporary file as results go by, so memory does not grow with the number of results.
- :class:`InlineDetails`: the details of at most ``cap`` results (failed and errored ones first),
  embedded in the page (a small run, or a page written without a directory next to it).
- :class:`SidecarDetails`: every result's details in script chunks next to the page
  (``report.d/cases-0000.js`` ...), each calling ``agentgaugeCases(token, chunk, start, [...])``;
  the page loads a chunk with a ``<script>`` element when a case of it is opened, which works
  from ``file://`` where ``fetch()`` does not.

Every string goes through :func:`script_json` (no ``<``, ``>``, ``&``, U+2028/U+2029 survive).
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import orjson

from .._secrets import ScrubbingStream, register_env, scrub
from ..errors import UserError
from ..schema import CaseResult
from ._html_data import MAX_ROW_TEXT, clip, script_json, transcript

__all__ = [
    "CHUNK_BYTES",
    "CHUNK_RESULTS",
    "STATUSES",
    "CaseIndex",
    "DetailsNote",
    "InlineDetails",
    "SidecarDetails",
    "chunk_name",
    "remove_chunks",
]

STATUSES = ("passed", "failed", "error", "user_error")
#: a sidecar chunk is closed when it holds this many results ...
CHUNK_RESULTS = 500
#: ... or this many bytes, whichever comes first
CHUNK_BYTES = 512 * 1024
_CHUNK_FILE = re.compile(r"cases-\d{4,}\.js")


def chunk_name(k: int) -> str:
    return f"cases-{k:04d}.js"


def remove_chunks(directory: Path) -> None:
    """Delete the chunk files of an earlier report in ``directory`` (nothing else), and the
    directory itself when that leaves it empty."""
    if not directory.is_dir():
        return
    for p in directory.iterdir():
        if _CHUNK_FILE.fullmatch(p.name) and p.is_file():
            p.unlink()
    if not any(directory.iterdir()):
        directory.rmdir()


def _details(r: CaseResult) -> str:
    """The case's details as escaped JSON; a case that cannot be shown says why, on its own
    (the rest of the report is still written)."""
    try:
        return script_json(transcript(r))
    except Exception as exc:  # one odd result must not cost the whole report
        why = f"the report could not show this case's details ({type(exc).__name__}: {exc})"
        return script_json({"error": clip(why, 2000), "explanation": clip(r.explanation)})


class _Column:
    """A JSON array written one element at a time to a temporary file."""

    def __init__(self) -> None:
        self._fh: IO[str] = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115
        self._sep = ""

    def add(self, fragment: str) -> None:
        # scrubbed whole here: copied out later in blocks, a secret could straddle two of them
        self._fh.write(self._sep + scrub(fragment))
        self._sep = ","

    def copy_to(self, out: IO[str]) -> None:
        out.write("[")
        self._fh.seek(0)
        while block := self._fh.read(1 << 16):
            out.write(block)
        out.write("]")

    def close(self) -> None:
        self._fh.close()


class _Dict:
    """Strings numbered in order of first appearance, with how many rows hold each."""

    def __init__(self, seed: tuple[str, ...] = ()) -> None:
        self.codes: dict[str, int] = {}
        self.counts: list[int] = []
        for s in seed:
            self.code(s)

    def code(self, value: str) -> int:
        c = self.codes.get(value)
        if c is None:
            c = self.codes[value] = len(self.codes)
            self.counts.append(0)
        return c

    def count(self, value: str) -> int:
        c = self.code(value)
        self.counts[c] += 1
        return c

    @property
    def names(self) -> list[str]:
        return list(self.codes)


def _num(value: float) -> str:
    return orjson.dumps(value).decode()


class CaseIndex:
    """The table's rows, by column: ``id``, ``trial``, ``st`` (status code), ``cat``, ``diff``,
    ``tags`` (lists of codes), ``score``, ``lat`` (ms), ``why`` (the explanation on one line,
    clipped) and, with inline details, ``t`` (the row's detail number, -1 if not embedded)."""

    KEYS = ("id", "trial", "st", "cat", "diff", "tags", "score", "lat", "why")

    def __init__(self, *, slots: bool) -> None:
        self.n = 0
        self.status = _Dict(STATUSES)
        self.category = _Dict()
        self.difficulty = _Dict(("",))
        self.tag = _Dict()
        keys = (*self.KEYS, "t") if slots else self.KEYS
        self._cols = {k: _Column() for k in keys}

    def add(self, r: CaseResult, slot: int) -> None:
        self.n += 1
        why = " / ".join(line.strip() for line in r.explanation.splitlines() if line.strip())
        c = self._cols
        c["id"].add(script_json(r.case_id))
        c["trial"].add(str(r.trial))
        c["st"].add(str(self.status.count(r.status)))
        c["cat"].add(str(self.category.count(r.category)))
        c["diff"].add(str(self.difficulty.count(r.difficulty or "")))
        c["tags"].add("[" + ",".join(str(self.tag.count(t)) for t in r.tags) + "]")
        c["score"].add(_num(round(r.score, 4)))
        c["lat"].add(_num(round(r.latency_ms, 1)))
        c["why"].add(script_json(clip(why, MAX_ROW_TEXT)))
        if "t" in c:
            c["t"].add(str(slot))

    def write(self, out: IO[str]) -> None:
        """The index as the body of a JSON object (``"n":...,"dict":...,"cols":{...}``)."""
        dicts = {
            "status": self.status.names,
            "cat": self.category.names,
            "diff": self.difficulty.names,
            "tag": self.tag.names,
        }
        out.write(f'"n":{self.n},"dict":{script_json(dicts)},"cols":{{')
        for i, (key, col) in enumerate(self._cols.items()):
            out.write(f'{"," if i else ""}"{key}":')
            col.copy_to(out)
        out.write("}")

    def close(self) -> None:
        for col in self._cols.values():
            col.close()


@dataclass(frozen=True, slots=True)
class DetailsNote:
    """How the details of the run travel, for the page's note on the case table."""

    inline: bool
    carried: int
    omitted: int
    failing_carried: int
    passing_carried: int
    #: the sidecar directory's name ('' when the details are embedded)
    directory: str
    chunks: int
    #: bytes of the chunk files
    bytes: int


class InlineDetails:
    """At most ``cap`` results' details, embedded: failed and errored ones first (``failing`` of
    them are expected, from the summary), then passing ones while the budget lasts."""

    def __init__(self, *, cap: int, failing: int) -> None:
        self.cap = cap
        self._passing_budget = max(0, cap - failing)
        self._col = _Column()
        self.carried = self.passing = self.failing = self.omitted = 0

    def add(self, r: CaseResult) -> int:
        if self.carried >= self.cap or (
            r.status == "passed" and self.passing >= self._passing_budget
        ):
            self.omitted += 1
            return -1
        self._col.add(_details(r))
        self.carried += 1
        if r.status == "passed":
            self.passing += 1
        else:
            self.failing += 1
        return self.carried - 1

    def write(self, out: IO[str]) -> None:
        out.write('"details":')
        self._col.copy_to(out)

    def note(self) -> DetailsNote:
        return DetailsNote(True, self.carried, self.omitted, self.failing, self.passing, "", 0, 0)

    def close(self) -> None:
        self._col.close()


class SidecarDetails:
    """Every result's details, in chunk scripts written to ``directory`` as results go by."""

    def __init__(self, directory: Path, *, token_seed: str) -> None:
        register_env()
        self.directory = directory
        if directory.exists() and not directory.is_dir():
            raise UserError(
                f"{directory}: exists and is not a directory; the HTML report of a run this big "
                "puts its case details there (move that file, or write the report elsewhere)"
            )
        remove_chunks(directory)
        directory.mkdir(parents=True, exist_ok=True)
        self.token = hashlib.sha256(token_seed.encode()).hexdigest()[:16]
        self.starts: list[int] = []
        self.bytes = 0
        self._n = 0
        self._pending: list[str] = []
        self._size = 0

    def add(self, r: CaseResult) -> int:
        if not self._pending:
            self.starts.append(self._n)
        text = _details(r)
        self._pending.append(text)
        self._size += len(text)
        self._n += 1
        if len(self._pending) >= CHUNK_RESULTS or self._size >= CHUNK_BYTES:
            self._flush()
        return self._n - 1

    def _flush(self) -> None:
        if not self._pending:
            return
        k = len(self.starts) - 1
        path = self.directory / chunk_name(k)
        with open(path, "w", encoding="utf-8", newline="\n") as fh:
            out = ScrubbingStream(fh)
            out.write(f'agentgaugeCases("{self.token}",{k},{self.starts[k]},[')
            out.write(",".join(self._pending))
            out.write("]);\n")
        self.bytes += path.stat().st_size
        self._pending = []
        self._size = 0

    def finish(self) -> None:
        self._flush()

    def write(self, out: IO[str]) -> None:
        meta = {"dir": self.directory.name, "token": self.token, "starts": self.starts}
        out.write(f'"chunks":{script_json(meta)}')

    def note(self) -> DetailsNote:
        return DetailsNote(
            False, self._n, 0, 0, 0, self.directory.name, len(self.starts), self.bytes
        )

    def close(self) -> None:
        self._pending = []
