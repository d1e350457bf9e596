"""The summary folded while a run writes its journal, so that only a short finish is left when
the last case ends (the call phase's CPU is mostly idle, waiting for replies).

:class:`LiveSummary` is a ``rundir.JournalObserver``: give it to the run (``run_suite_file(...,
observer=live)``), then to :func:`~._files.summarize` (``live=live``), which takes the folded
summary only when it is sure to be the one its own pass over ``results.jsonl`` would make:

- every line is folded as the journal reader would read it, in the journal's order — a
  resume's lines already on disk first: decoded by the reader itself (``rundir.result_from_line``,
  the light reader unless the suite's ``modules:`` read retrieval from the traces) from the bytes
  written (secrets scrubbed), or, for a line the writer made from a result in hand and wrote
  unchanged, that result itself when the reader could not see anything else in it (see
  :func:`_as_read`: the light reader, a line within the input limits, no float JSON cannot
  carry) — the decode a run's summary would otherwise pay per result;
- the inputs are compared at the end: ``run.json``'s run id and trials, the gates, the
  ``modules:`` settings and the confidence must be those the fold began with, the run directory
  must hold no ``reviews.jsonl`` or ``feedback.jsonl``, and the journal's size must be the bytes
  folded (a line written by anyone else, or a second journal, makes them differ);
- anything else (a line the reader would refuse, a line over the input limit, a suite that no
  longer reads) leaves the fold, and the file pass decides, errors included.
"""

from __future__ import annotations

import math
import os
import stat
from pathlib import Path

from ..files import MAX_DEPTH, iter_lines, max_file_bytes
from ..rundir import load_record, result_from_line
from ..schema import CaseResult, Gates, ModuleSettings, RunRecord, Score
from ._files import has_side_files, suite_gates, suite_modules
from ._model import Summary
from ._summarize import _Acc, new_accumulator

__all__ = ["LiveSummary"]


class _NotSure(Exception):
    """The fold cannot be sure to match the file pass: the file is read at the end instead."""


class LiveSummary:
    """The summary of a run folded one journal line at a time, as the run writes them.

    Use as a context manager (its spill files, if any, are removed at exit). Never raises from
    :meth:`line`: a line it cannot fold leaves the fold to the file pass.
    """

    def __init__(self) -> None:
        self._path: Path | None = None
        #: the journal's bytes when it was opened (a resume's results), folded first
        self._offset = 0
        #: bytes of the lines written since
        self._written = 0
        self._lineno = 0
        self._acc: _Acc | None = None
        self._light = True
        self._limit = 0
        #: (run id, trials tracked, gates, modules, confidence) the fold began with
        self._inputs: tuple[object, ...] = ()
        self._dropped = False

    def __enter__(self) -> LiveSummary:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def folding(self) -> bool:
        """Whether the fold still holds (no line or input it could not be sure of)."""
        return not self._dropped and self._path is not None

    def opened(self, path: Path, offset: int) -> None:
        # one journal: a second one (another run) makes the sizes differ, and the files decide
        self._path, self._offset = path, offset

    def line(self, raw: bytes, result: CaseResult | None = None) -> None:
        if self._dropped:
            return
        try:
            if self._acc is None:
                self._begin()
            self._fold(raw, result)
            self._written += len(raw)
        except Exception:  # e.g. a line the reader refuses: the file pass reports it
            self._drop()

    def summary(
        self,
        run: RunRecord | None,
        *,
        gates: Gates,
        modules: ModuleSettings | None,
        confidence: float,
    ) -> Summary | None:
        """The folded summary when the inputs and the journal are those it was folded from
        (None: read the file). Once: the fold is closed after."""
        try:
            if not self.folding or self._path is None:
                return None
            if self._acc is None:  # nothing written now: the resumed lines alone
                self._begin()
            assert self._acc is not None
            if self._inputs != _inputs(run, gates, modules, confidence):
                return None
            if has_side_files(self._path.parent):
                return None
            st = os.lstat(self._path)
            if not stat.S_ISREG(st.st_mode) or st.st_size != self._offset + self._written:
                return None
            return self._acc.finish(run)
        except Exception:  # the file pass decides (and raises what it raises)
            return None
        finally:
            self._drop()

    def close(self) -> None:
        self._drop()

    def _drop(self) -> None:
        self._dropped = True
        if self._acc is not None:
            self._acc.per_case.close()
            self._acc = None

    def _begin(self) -> None:
        """The accumulators, made from what the file pass would read (run.json, the suite's
        gates and modules), and the lines the journal held when it was opened."""
        assert self._path is not None
        run_dir = self._path.parent
        if has_side_files(run_dir):
            raise _NotSure
        run = load_record(run_dir)
        gates = suite_gates(run) or Gates()
        modules = suite_modules(run)
        confidence = 0.95  # summarize's default, the one `agentgauge run` summarizes with
        self._inputs = _inputs(run, gates, modules, confidence)
        self._light = not (modules is not None and modules.retrieval)
        self._limit = max_file_bytes()
        self._acc = new_accumulator(
            run=run,
            gates=gates,
            confidence=confidence,
            modules=modules,
            reviews=None,
            feedback=None,
        )
        if self._offset:
            self._fold_resumed()

    def _fold_resumed(self) -> None:
        """The lines before ``offset`` (read by the journal's own line rule)."""
        assert self._path is not None
        assert self._acc is not None
        read = 0
        for lineno, raw in iter_lines(self._path, str(self._path)):
            if read >= self._offset:
                break
            read += len(raw)
            self._lineno = lineno
            if not raw.endswith(b"\n"):
                raise _NotSure
            if raw.strip():
                self._acc.add(result_from_line(self._path, lineno, raw, light=self._light))
        if read != self._offset:
            raise _NotSure

    def _fold(self, raw: bytes, result: CaseResult | None) -> None:
        assert self._path is not None
        assert self._acc is not None
        self._lineno += 1
        if len(raw) > self._limit or not raw.endswith(b"\n") or raw.count(b"\n") != 1:
            raise _NotSure  # the reader would see other lines (or refuse this one)
        if result is not None and self._light and _as_read(result, raw):
            self._acc.add(result)
        elif raw.strip():
            self._acc.add(result_from_line(self._path, self._lineno, raw, light=self._light))


def _as_read(result: CaseResult, raw: bytes) -> bool:
    """Whether the light reader, given ``raw`` (``result``'s own unchanged encoding, one line
    within the size limit), reads back what the summary takes from ``result``.

    The line is orjson's dump of ``result.model_dump(mode="json")``, and a result is built by
    validation, so reading it back gives the same values, but for what the reader would see
    differently: a line nested too deep (refused: with no more brackets than the depth limit
    it cannot be), and a float JSON cannot carry (inf, nan: written as ``null``) in a field the
    summary reads — a score, a latency, a cost, a budget, a scale. The light reader drops
    ``messages``, ``trace`` and a world's ``final`` state, which the summary does not read
    (``modules.retrieval``, which reads the trace, folds from the bytes)."""
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
        return False
    floats = [result.score, result.latency_ms, result.ttft_ms, result.cost_usd]
    floats.append(result.latency_budget_s)
    for s in result.scores:
        if not _scores_finite(s):
            return False
    if result.user is not None:
        floats += [result.user.cost_usd, result.user.latency_ms]
    if result.feedback is not None:
        floats += [result.feedback.score, *result.feedback.scale]
    if result.world is not None and result.world.diff and result.status != "passed":
        return False  # a failure keeps its state differences (JSON values): read them back
    return all(x is None or math.isfinite(x) for x in floats)


def _scores_finite(s: Score) -> bool:
    vals = [s.value, s.agreement, *(s.scale or ())]
    if not all(x is None or math.isfinite(x) for x in vals):
        return False
    return all(_scores_finite(p) for p in s.parts)


def _inputs(
    run: RunRecord | None, gates: Gates, modules: ModuleSettings | None, confidence: float
) -> tuple[object, ...]:
    """What a summary is made from besides the journal's lines."""
    run_id = run.run_id if run is not None else None
    tracked = run is None or run.trials != 1
    return (run_id, tracked, gates, modules, confidence)
