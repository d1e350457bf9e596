"""The garbage collector's pace while a run's cases are in flight.

At high concurrency every case in flight holds a few hundred container objects (its messages,
trace, request and connection state) for the length of a model call. CPython's young-generation
collection is triggered by the net count of new objects (700 by default), and most of a case's
objects are freed by reference counting long before a collection could matter; yet each
collection walks every young object still alive, so at 256 cases in flight a collection walks
tens of thousands of objects (20–70 ms each, measured: a pause of the whole event loop) and the
collector took ≈ 10 % of the run's CPU. While cases run, the young threshold is raised to
:data:`CALL_PHASE_THRESHOLD` (objects in reference cycles are still collected, a little later),
and the thresholds are given back when the last run of the process ends
(``benchmarks/README.md``, "CPU per call"). The same pace holds while ``run_suite_file``
checks a suite whose cases it keeps for the run (``open_suite(..., keep_bytes=)``): the kept
cases are tens of thousands of surviving objects, each 700 of which made a collection.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["CALL_PHASE_THRESHOLD", "call_phase_gc"]

#: the young generation's threshold while cases run (CPython's default: 700)
CALL_PHASE_THRESHOLD = 10_000

_lock = threading.Lock()
_depth = 0
_saved: tuple[int, ...] = ()


@contextmanager
def call_phase_gc() -> Iterator[None]:
    """Collect young objects less often inside the block. Runs of one process may overlap (a
    matrix runs its members side by side): the first to enter raises the threshold, the last to
    leave restores what it was. A threshold already at or above the call-phase one, or 0 (the
    collector switched off by its thresholds), is left as it is."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = gc.get_threshold()
            if 0 < _saved[0] < CALL_PHASE_THRESHOLD:
                gc.set_threshold(CALL_PHASE_THRESHOLD, *_saved[1:])
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                gc.set_threshold(*_saved)
