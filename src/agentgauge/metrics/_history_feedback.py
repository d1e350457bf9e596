"""Feedback and expert reviews that reach a run directory after its history row was written.

A run's row is recorded when the run ends; user feedback (``RUN_DIR/feedback.jsonl``) and
planning reviews (``RUN_DIR/reviews.jsonl``, ``agentgauge review``) usually come later. When
the history is read, each row whose run directory now holds one of those files has the metrics
they feed — ``user_satisfaction`` and ``planning_grade`` — recomputed from the directory, as
``report`` and ``gate`` compute them, so a trend shows what the users said. The value the run's
end recorded is kept beside it (``HistoryEntry.recorded``) and the reports label the row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from ..errors import UserError
from ._history_entry import HistoryEntry, entry_of

__all__ = ["SIDE_FILE_METRICS", "with_side_files"]

#: the history metrics that feedback and reviews added after the run change
SIDE_FILE_METRICS: Final = ("user_satisfaction", "planning_grade")


def _adjusted(e: HistoryEntry) -> HistoryEntry:
    from ._files import has_side_files, summarize

    run_dir = Path(e.run_dir)
    try:
        if not run_dir.is_dir() or not has_side_files(run_dir):
            return e
        summary = summarize(run_dir)
    except (OSError, UserError) as exc:  # a bad feedback line: this row only, said, not fatal
        note = f"feedback / reviews in {run_dir} not applied: {exc}"
        return dataclasses.replace(e, note=note)
    if summary.run is None or summary.run.run_id != e.run_id:
        note = f"{run_dir} now holds another run; the row keeps what its run's end recorded"
        return dataclasses.replace(e, note=note)
    fresh = entry_of(run_dir, summary)
    if fresh is None:
        return e
    metrics, intervals = dict(e.metrics), dict(e.intervals)
    recorded: dict[str, float | None] = {}
    for name in SIDE_FILE_METRICS:
        old, new = e.metrics.get(name), fresh.metrics.get(name)
        if old == new and e.intervals.get(name) == fresh.intervals.get(name):
            continue
        recorded[name] = old
        metrics[name] = new
        intervals.pop(name, None)
        if name in fresh.intervals:
            intervals[name] = fresh.intervals[name]
    if not recorded:
        return e
    return dataclasses.replace(e, metrics=metrics, intervals=intervals, recorded=recorded)


def with_side_files(entries: Sequence[HistoryEntry]) -> list[HistoryEntry]:
    """``entries`` with the metrics of the feedback and reviews their run directories now hold
    (see the module notes); a row whose directory has none, is gone, or holds another run is
    as recorded."""
    return [_adjusted(e) for e in entries]
