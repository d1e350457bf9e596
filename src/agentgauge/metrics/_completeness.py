"""A run that holds fewer results than it was started for (interrupted, or merged without all
its shards) says so: its figures are over the results present, not over the run."""

from __future__ import annotations

from ..schema import RunRecord
from ._model import Summary

__all__ = ["missing_pairs", "missing_results"]


def missing_results(summary: Summary) -> list[str]:
    """The warning of a run whose results cover fewer (case, trial) pairs than ``run.json``
    started it for; none for a shard (it holds its part by design) or a record without counts."""
    return missing_pairs(summary.run, summary.overall.results)


def missing_pairs(run: RunRecord | None, have: int) -> list[str]:
    """:func:`missing_results` of a run's record and the results it holds (``have``)."""
    if run is None or run.shard is not None or not run.case_count:
        return []
    expected = run.case_count * max(1, run.trials)
    if have >= expected:
        return []
    if run.merged_from:
        why = f"merged from {len(run.merged_from)} run(s) without all the shards"
    elif run.finished_at is None:
        why = "the run did not finish (agentgauge run --resume continues it)"
    else:
        why = "results are missing from the run directory"
    return [
        f"incomplete: {have} of {expected} (case, trial) pairs have a result "
        f"({expected - have} missing: {why}); every figure is over the results present"
    ]
