"""Streaming a suite: its header now, its cases one at a time, for runs too big to hold.

:func:`open_suite` reads a suite's header (name, tools, defaults, gates, scorers and its inline
cases) and then checks every case of its ``case_files`` in one streaming pass: each problem is
reported exactly as :func:`~agentgauge.io.load_suite` reports it (``file:line: field: message``,
all of them together), and a case id used twice is a problem too — but no case of a case file is
kept (unless ``keep_bytes`` says the case files are small enough to hold: then the checked
cases are kept, at most :data:`KEEP_CASES`, for the first :meth:`~StreamedSuite.iter_cases`).
:meth:`StreamedSuite.iter_cases` reads the cases again from disk, one at a time.

JSONL case files are read line by line (never the whole file at once); a YAML or JSON case file
is read whole, one file at a time.

```python
from agentgauge.suites import open_suite

streamed = open_suite("suites/big/suite.yaml")   # raises UserError listing every problem
print(streamed.suite.name, streamed.count)        # the header; how many cases in all
for case in streamed.iter_cases():                # inline cases, then each case file's
    ...
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Final

from ..errors import UserError
from ..files import FixedLocator, decode_utf8, jsonl_records, open_input
from ..schema import Case, Suite
from ._loader import (
    _JSONL_SUFFIXES,
    _MAX_PROBLEMS,
    Origin,
    _Head,
    _Problems,
    _read_case_file,
    _read_head,
    _resolved,
    _validate_case,
)

__all__ = ["CaseVisitor", "StreamedSuite", "open_suite"]

CaseVisitor = Callable[[Case], object]
"""Sees each case of the checking pass, in order (inline cases first)."""

_CaseFiles = Sequence[tuple[Path, str, str | None]]
_NO_FIELD: Final = ()
#: the most case-file cases ``open_suite(..., keep_bytes=...)`` holds (≈ 3.4 KB each for a
#: small case, so ≈ 34 MB at most); past it they are dropped and read again
KEEP_CASES = 10_000


class StreamedSuite:
    """A suite whose cases are read from disk each time they are iterated.

    ``suite`` is the header: tools from ``tool_files`` merged in, ``case_files`` emptied, and
    ``cases`` holding only the inline cases. ``count`` is the number of cases in all.
    """

    __slots__ = ("_case_files", "_kept", "count", "file", "suite")

    def __init__(
        self,
        suite: Suite,
        file: str,
        count: int,
        case_files: _CaseFiles,
        kept: list[Case] | None = None,
    ) -> None:
        self.suite = suite
        #: the suite file as shown in messages
        self.file = file
        #: inline cases plus the cases of every case file
        self.count = count
        self._case_files = case_files
        #: the case files' cases as checked, for the first iter_cases (None: read them)
        self._kept = kept

    def __repr__(self) -> str:
        return f"StreamedSuite({self.suite.name!r}, {self.count} cases, file={self.file!r})"

    def iter_cases(self) -> Iterator[Case]:
        """Every case, in :func:`load_suite` order: the inline cases, then each case file's.

        A case file that changed since :func:`open_suite` checked it and no longer reads is a
        :class:`~agentgauge.errors.UserError` at the first problem.
        """
        yield from self.suite.cases
        kept, self._kept = self._kept, None
        if kept is not None:  # given up case by case, as they are taken
            kept.reverse()
            while kept:
                yield kept.pop()
            return
        problems = _Problems()
        for case, _ in _file_cases(self._case_files, problems):
            if problems.lines:
                break
            yield case
        problems.raise_if_any()


def open_suite(
    path: str | Path,
    *,
    visit: Callable[[Suite], CaseVisitor] | None = None,
    keep_bytes: int = 0,
) -> StreamedSuite:
    """Read a suite's header and check all its cases without keeping those of its case files.

    ``visit`` (optional) is called with the header (when it is valid) before the cases are
    checked; the callable it returns sees every valid case of the checking pass, in order — a
    way to compute something over all cases (a hash, a count) without a pass of one's own. It
    should collect, not raise.

    ``keep_bytes``: when the case files come to at most this many bytes on disk, the checked
    cases (at most :data:`KEEP_CASES`) are kept for the first ``iter_cases()``, which then does
    not read the files again (it runs the cases as they were checked).

    Raises :class:`~agentgauge.errors.UserError` listing every problem found, one
    ``file:line: field: message`` line each (those :func:`load_suite` reports, plus case ids used
    twice).
    """
    head = _read_head(path)
    kept: list[Case] | None = [] if _files_bytes(head.case_files) <= keep_bytes else None
    problems = head.problems
    header = _resolved(head, head.cases) if head.suite is not None else None
    on_case = visit(header) if visit is not None and header is not None else None

    first: dict[str, int] = {}
    #: (where the second use is, id, ordinal of the first use)
    twice: list[tuple[str, str, int]] = []
    count = 0
    inline = len(head.cases)
    for case, origin in _all_cases(head, problems):
        seen = first.setdefault(case.id, count)
        if seen != count and len(twice) < _MAX_PROBLEMS:
            twice.append((origin.where("id"), case.id, seen))
        if on_case is not None:
            on_case(case)
        count += 1
        if kept is not None and count > inline:
            kept = kept if len(kept) < KEEP_CASES else None  # too many: read them again
            if kept is not None:
                kept.append(case)
    if twice:
        _report_twice(head, twice, problems)
    problems.raise_if_any()
    assert header is not None  # no problems means the head validated
    return StreamedSuite(header, head.display, count, tuple(head.case_files), kept)


def _files_bytes(case_files: _CaseFiles) -> float:
    """The case files' size on disk (inf when one cannot be told: then nothing is kept)."""
    total = 0
    for file, _, _ in case_files:
        try:
            total += file.stat().st_size
        except OSError:
            return float("inf")
    return total


def _all_cases(head: _Head, problems: _Problems) -> Iterator[tuple[Case, Origin]]:
    return chain(
        zip(head.cases, head.case_origins, strict=True), _file_cases(head.case_files, problems)
    )


def _report_twice(head: _Head, twice: list[tuple[str, str, int]], problems: _Problems) -> None:
    """Problems for ids used twice (a second pass finds where each first use was)."""
    wanted = {ordinal for _, _, ordinal in twice}
    where: dict[int, str] = {}
    for i, (_, origin) in enumerate(_all_cases(head, _Problems())):
        if i in wanted:
            where[i] = origin.where()
            if len(where) == len(wanted):
                break
    for at, case_id, ordinal in twice:
        first_at = where.get(ordinal, "an earlier case")
        problems.add(f"{at}: id: case id '{case_id}' is used twice (first at {first_at})")


def _file_cases(case_files: _CaseFiles, problems: _Problems) -> Iterator[tuple[Case, Origin]]:
    for file, display, referenced_at in case_files:
        if problems.full:
            return
        if file.suffix.lower() in _JSONL_SUFFIXES:
            yield from _jsonl_cases(file, display, referenced_at, problems)
        else:
            cases, origins = _read_case_file(file, display, problems, referenced_at)
            yield from zip(cases, origins, strict=True)


def _jsonl_cases(
    path: Path, display: str, referenced_at: str | None, problems: _Problems
) -> Iterator[tuple[Case, Origin]]:
    """The cases of a JSONL file, read line by line (lines numbered as ``str.splitlines``)."""
    mark = len(problems.lines)
    try:
        with open_input(path, display, referenced_at=referenced_at) as fh:
            for record in jsonl_records(_numbered(fh, display), display, problems.add):
                origin = Origin(display, FixedLocator(record.line))
                case = _validate_case(record.data, origin, _NO_FIELD, problems)
                if case is not None:
                    yield case, origin
                if problems.full:
                    return
    except UserError as err:
        # a file that cannot be read is one problem (as load_suite reports it), not its lines
        del problems.lines[mark:]
        problems.extend_from(err)


def _numbered(fh: Iterable[bytes], display: str) -> Iterator[tuple[int, str]]:
    """The lines of an open JSONL file with their numbers (as ``str.splitlines`` counts them),
    decoded line by line (a byte \\n never occurs inside a UTF-8 character)."""
    number = 0
    for raw in fh:
        chunk = decode_utf8(raw, display, first_line=number + 1)
        if number == 0:
            chunk = chunk.removeprefix("\ufeff")
        for line in chunk.splitlines():
            number += 1
            yield number, line
