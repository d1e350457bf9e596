"""The run directory: ``run.json`` and the ``results.jsonl`` journal, read and written in one
place (``_rundir``: the lock, atomic writes, truncation rules), and shards of one run merged
into one (``_shards``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._rundir import (
    LOCK_FILE,
    RESULTS_FILE,
    RUN_FILE,
    Finished,
    JournalObserver,
    ResultsWriter,
    encode_result,
    header_hash,
    iter_light_results,
    iter_results,
    journal_has_results,
    load_record,
    read_record,
    result_from_line,
    result_pair,
    run_dir_lock,
    scan_finished,
    suite_hash,
    write_json_atomic,
    write_record,
)

if TYPE_CHECKING:
    from ._shards import MergeReport, Shard, merge_runs, pair_bucket

#: shards merged into one run, imported on first use (a run without ``--shard`` merges none)
_SHARDS: dict[str, str] = dict.fromkeys(
    ("MergeReport", "Shard", "merge_runs", "pair_bucket"), "._shards"
)

__all__ = [
    "LOCK_FILE",
    "RESULTS_FILE",
    "RUN_FILE",
    "Finished",
    "JournalObserver",
    "MergeReport",
    "ResultsWriter",
    "Shard",
    "encode_result",
    "header_hash",
    "iter_light_results",
    "iter_results",
    "journal_has_results",
    "load_record",
    "merge_runs",
    "pair_bucket",
    "read_record",
    "result_from_line",
    "result_pair",
    "run_dir_lock",
    "scan_finished",
    "suite_hash",
    "write_json_atomic",
    "write_record",
]

__getattr__, __dir__ = lazy_exports(__name__, _SHARDS, __all__)
