"""Recorded responses ("bring your own responses"): read them for scoring without a model.

One JSON object per line, in either form (the two may be mixed):

- agentgauge's own: ``{"case_id", "trial"?, "text"?, "calls"?: [{"name", "arguments"}],
  "labels"?: {"route", "skill", "intents"}}`` (``labels``: what the agent reported choosing), or
  ``{"case_id", "trial"?, "messages": [...]}`` with the agent's whole transcript for the case
  (assistant turns and the tool results it received; in our form or any vendor format
  ``formats/_transcripts.py`` reads); ``arguments`` may be an object or a JSON string. A
  ``text`` with no ``calls`` whose whole text is a JSON tool call,
  ``{"name": ..., "arguments": {...}}`` or a list of them (what prompt-mode models write, and
  When2Call's ready ``tool_call`` answers), is read as those calls (form ``native-json-text``),
  so the behaviour and tool-selection scores see the same call (docs/scoring.md);
- an OTLP/JSON trace export of the agent (detected), read as ``agentgauge capture`` reads it
  (``exchange/_capture.py``);
- BFCL's result files: ``{"id", "result", ...}`` where ``result`` is a list of
  ``{"<function name>": "<JSON arguments>"}`` (function-calling models; the arguments may also
  be an object) or a string of Python call syntax such as ``"[math.factorial(number=5)]"``
  (prompt-mode models). Python syntax is decoded like BFCL does, safely: literals, names,
  nested calls and arithmetic on literals only, never evaluated as code. A result that cannot
  be decoded is kept as text with no call (for BFCL's irrelevance categories that is the right
  answer). Function-calling models cannot use ``.`` in tool names, so a called name such as
  ``math_factorial`` is mapped back to the case's ``math.factorial``. A multi-turn entry's
  ``result`` is a list of turns of steps (each step one model response, in either form); it
  becomes a conversation with one assistant message per step, each step decoded as BFCL's
  multi-turn checker decodes it (an entry with any list step is a function-calling model's: its
  text steps are replies; otherwise its steps are Python call syntax), a prompt-mode call
  carrying its exact execution string (``bfcl-exec:...`` in its id).


The file is read in bounded memory: :func:`open_responses` checks every line in one pass and
keeps only its keys (case id, trial, and where the line is: ≈ 32 bytes per response, a case
id once), then :meth:`ResponseSet.responses` reads a case's lines again when it is scored.
:func:`read_responses` keeps every response (the whole file in memory, in file order).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from array import array
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Final

from ..errors import UserError
from ..files import max_file_bytes, open_input
from ._recorded import RecordedResponse, restore_tool_name, split_turns
from ._response_decode import decode_line, decode_python_calls

__all__ = [
    "RecordedResponse",
    "ResponseSet",
    "decode_python_calls",
    "open_responses",
    "read_responses",
    "restore_tool_name",
    "split_turns",
]

_MAX_PROBLEMS: Final = 50
#: a case's trials are looked up in its array of trials (a scan in C, no memory) up to this
#: many; beyond, in a set as well (≈ 40 bytes a trial), so that a hostile file of a million
#: trials of one case is not a quadratic scan
_SET_FROM: Final = 512


class ResponseSet(ABC):
    """The responses of a file, by case: which cases have how many, and each case's
    responses in trial order (read when asked, for a file)."""

    #: responses in all
    count: int
    #: the highest trial of any response (-1 with none)
    max_trial: int

    @abstractmethod
    def case_ids(self) -> list[str]:
        """The case ids that have responses, in the order of their first line."""

    @abstractmethod
    def count_of(self, case_id: str) -> int:
        """How many responses ``case_id`` has (0: none)."""

    @abstractmethod
    def responses(self, case_id: str) -> list[RecordedResponse]:
        """The responses of ``case_id``, in trial order (none: empty)."""

    @staticmethod
    def of(responses: Sequence[RecordedResponse]) -> ResponseSet:
        """Responses already in memory (the Python API, OpenTelemetry traces) as a set."""
        return _InMemory(responses)


class _InMemory(ResponseSet):
    def __init__(self, responses: Sequence[RecordedResponse]) -> None:
        self._by_case: dict[str, list[RecordedResponse]] = {}
        for r in responses:
            self._by_case.setdefault(r.case_id, []).append(r)
        self.count = len(responses)
        self.max_trial = max((r.trial for r in responses), default=-1)

    def case_ids(self) -> list[str]:
        return list(self._by_case)

    def count_of(self, case_id: str) -> int:
        return len(self._by_case.get(case_id, ()))

    def responses(self, case_id: str) -> list[RecordedResponse]:
        return sorted(self._by_case.get(case_id, ()), key=lambda r: r.trial)


class _Group:
    """One case's responses as keys: their trials (file order) and where each line is."""

    __slots__ = ("rows", "set", "trials")

    def __init__(self) -> None:
        self.trials = array("Q")  # trials reach 2**64 - 1 (what JSON readers take)
        self.rows = array("q")  # offset, length, line number: three per response
        self.set: set[int] | None = None

    def first_line(self, trial: int) -> int | None:
        """The line of the response for ``trial`` already seen, or None."""
        if self.set is not None:
            if trial not in self.set:
                return None
        elif trial not in self.trials:
            return None
        return self.rows[3 * self.trials.index(trial) + 2]

    def add(self, trial: int, offset: int, length: int, line: int) -> None:
        self.trials.append(trial)
        self.rows.extend((offset, length, line))
        if self.set is not None:
            self.set.add(trial)
        elif len(self.trials) >= _SET_FROM:
            self.set = set(self.trials)


def _lines(p: Path, found: _FileSet) -> Iterator[tuple[int, int, bytes]]:
    """(line number, offset, line) of each line that is not blank. The file is checked by
    :func:`~agentgauge.files.open_input` (a regular file within the size limit) and read line
    by line, each line within the same limit (a file that grows while read is cut there).
    ``found.stamp`` is the file's identity and time when opened (a change is seen later)."""
    if not p.exists() and not p.is_symlink():
        raise UserError(f"{p}: no such responses file")
    display = str(p)
    limit = max_file_bytes()
    with open_input(p, display) as fh:
        found.stamp = _stamp(os.fstat(fh.fileno()))
        offset = number = 0
        while True:
            try:
                raw = fh.readline(limit + 1)
            except OSError as err:
                raise _unreadable(display, err) from None
            if not raw:
                return
            number += 1
            if len(raw) > limit:
                raise UserError(
                    f"{display}:{number}: the line is longer than the limit on input files "
                    f"({limit:,} bytes; set AGENTGAUGE_MAX_FILE_MB to raise it)"
                )
            if raw.strip():
                yield number, offset, raw
            offset += len(raw)


def _scan(p: Path, keep: Callable[[RecordedResponse], None] | None) -> _FileSet:
    """Every line checked, in file order: the keys of the good ones (and ``keep(response)``
    for each); a :class:`UserError` listing the bad lines (up to 50, then the next good one
    ends the list) and each second response for a case and trial."""
    display = str(p)
    found = _FileSet(p)
    problems: list[str] = []
    for number, offset, raw in _lines(p, found):
        try:
            response = decode_line(display, number, raw)
        except UserError as err:
            problems.append(str(err))
            continue
        group = found.groups.get(response.case_id)
        if group is None:
            group = found.groups[response.case_id] = _Group()
        first = group.first_line(response.trial)
        if first is not None:
            problems.append(
                f"{display}:{number}: a second response for case '{response.case_id}' trial "
                f"{response.trial} (first at {display}:{first})"
            )
            continue
        group.add(response.trial, offset, len(raw), number)
        found.count += 1
        found.max_trial = max(found.max_trial, response.trial)
        if keep is not None:
            keep(response)
        if len(problems) >= _MAX_PROBLEMS:
            break
    if problems:
        raise UserError(problems[0], problems=problems)
    if not found.count:
        raise UserError(f"{p}:1: no responses in the file (expected one JSON object per line)")
    return found


def _unreadable(display: str, err: OSError) -> UserError:
    return UserError(f"{display}: cannot read {display}: {err.strerror or err}")


def _stamp(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns


class _FileSet(ResponseSet):
    """A responses file as keys; a case's lines are read again (and decoded) when asked."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.groups: dict[str, _Group] = {}
        self.count = 0
        self.max_trial = -1
        self.stamp: tuple[int, int, int, int] | None = None

    def case_ids(self) -> list[str]:
        return [cid for cid, group in self.groups.items() if group.trials]

    def count_of(self, case_id: str) -> int:
        group = self.groups.get(case_id)
        return 0 if group is None else len(group.trials)

    def responses(self, case_id: str) -> list[RecordedResponse]:
        group = self.groups.get(case_id)
        if group is None or not group.trials:
            return []
        display = str(self.path)
        order = sorted(range(len(group.trials)), key=group.trials.__getitem__)
        rows = group.rows
        with open_input(self.path, display) as fh:
            if _stamp(os.fstat(fh.fileno())) != self.stamp:
                raise UserError(
                    f"{display}:1: the file changed while it was being scored (it is read "
                    "twice: checked, then case by case); score it again"
                )
            out = []
            for i in order:
                offset, length, line = rows[3 * i], rows[3 * i + 1], rows[3 * i + 2]
                try:
                    raw = os.pread(fh.fileno(), length, offset)
                except OSError as err:
                    raise _unreadable(display, err) from None
                out.append(decode_line(display, line, raw))
            return out


def open_responses(path: str | Path) -> ResponseSet:
    """A responses file (native or BFCL form, one JSON object per line; or OpenTelemetry
    traces, which are read whole), every line checked in one pass that keeps only the keys.

    Raises :class:`UserError` listing every bad line as ``file:line: message`` (including a
    second response for the same case and trial), exactly as :func:`read_responses` does.
    """
    p = Path(path)
    from ._otlp import looks_like_otlp

    if looks_like_otlp(p):  # OpenTelemetry traces of the agent (docs/bring-your-agent.md)
        from ._capture import responses_from_traces

        return ResponseSet.of(responses_from_traces(p))
    return _scan(p, None)


def read_responses(path: str | Path) -> list[RecordedResponse]:
    """Read a responses file (native or BFCL form, one JSON object per line), every response
    kept in memory, in file order (:func:`open_responses` keeps the keys only).

    Raises :class:`UserError` listing every bad line as ``file:line: message`` (including a
    second response for the same case and trial).
    """
    p = Path(path)
    from ._otlp import looks_like_otlp

    if looks_like_otlp(p):  # OpenTelemetry traces of the agent (docs/bring-your-agent.md)
        from ._capture import responses_from_traces

        return responses_from_traces(p)
    out: list[RecordedResponse] = []
    _scan(p, out.append)
    return out
