"""SIGTERM stops a command the way Ctrl-C does.

CI systems cancel a job, ``timeout`` ends a command and container runtimes stop one with
SIGTERM, whose default action kills the process at once: a run then ended with no word on
stderr and no hint that ``--resume`` continues it. While a command runs, SIGTERM is handed to
whatever handles SIGINT at that moment — Python's ``KeyboardInterrupt``, or the event loop's
handler, which cancels the run's main task so that it unwinds cleanly (the journal keeps every
finished case) — and the command exits 143 (128 + SIGTERM) instead of 130.

A command that handles SIGTERM itself (``load``, through its event loop's signal receiver)
replaces this handler while it does.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["interrupt_status", "terminate_as_interrupt"]

#: the exit status of a command interrupted by SIGINT (Ctrl-C) and by SIGTERM
SIGINT_STATUS = 128 + signal.SIGINT
SIGTERM_STATUS = 128 + signal.SIGTERM

_terminated = False


def interrupt_status() -> int:
    """130 after Ctrl-C, 143 when SIGTERM stopped the command."""
    return SIGTERM_STATUS if _terminated else SIGINT_STATUS


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _terminated
    _terminated = True
    handler = signal.getsignal(signal.SIGINT)
    if callable(handler):
        # the event loop's own handler (cancels the main task) or default_int_handler (raises
        # KeyboardInterrupt here)
        handler(signal.SIGINT, frame)
        return
    # SIGINT ignored (a background job of a non-interactive shell) or left to the default:
    # SIGTERM still stops the command, through the same unwinding as Ctrl-C
    raise KeyboardInterrupt


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """While the block runs (in the main thread), SIGTERM interrupts it like Ctrl-C; the
    handler that was there before is put back after."""
    global _terminated
    _terminated = False
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (an embedding application's worker thread)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
