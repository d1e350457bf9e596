"""Progress display: a rich bar on a terminal, periodic plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import Any, TextIO

#: seconds between plain progress lines
LINE_EVERY_S = 10.0


class ProgressReporter:
    """Counts finished cases and shows them; ``enabled=None`` picks the bar only on a TTY."""

    def __init__(
        self,
        total: int | None,
        *,
        enabled: bool | None,
        stream: TextIO | None = None,
        label: str = "running",
        unit: str = "cases",
    ) -> None:
        self.total = total
        #: the bar's title and what is counted (``judging`` / ``examples`` for calibrate)
        self.label = label
        self.unit = unit
        self.done = 0
        self.errors = 0
        self._stream = stream if stream is not None else sys.stderr
        self._start = time.monotonic()
        self._last_line = self._start
        is_tty = self._stream.isatty()
        self._bar: Any = None
        self._task: Any = None
        self._plain = enabled is not False and not is_tty
        if enabled is not False and is_tty:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._bar = Progress(
                TextColumn(f"[bold]{label}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("errors {task.fields[errors]}"),
                TextColumn("{task.fields[rate]}"),
                TimeElapsedColumn(),
                console=Console(file=self._stream),
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task("run", total=total, errors=0, rate="")

    def advance(self, status: str) -> None:
        self.done += 1
        if status == "error":
            self.errors += 1
        now = time.monotonic()
        if self._bar is not None:
            if now - self._last_line >= 0.1 or self.done == self.total:
                self._last_line = now
                rate = self.done / max(now - self._start, 1e-9)
                self._bar.update(
                    self._task, completed=self.done, errors=self.errors, rate=f"{rate:.1f}/s"
                )
        elif self._plain and now - self._last_line >= LINE_EVERY_S:
            self._last_line = now
            self._line(now)

    def _line(self, now: float) -> None:
        elapsed = now - self._start
        rate = self.done / max(elapsed, 1e-9)
        of = f"/{self.total}" if self.total is not None else ""
        print(
            f"agentgauge: {self.done}{of} {self.unit}, {self.errors} errors, "
            f"{elapsed:.0f}s elapsed, {rate:.1f} {self.unit}/s",
            file=self._stream,
            flush=True,
        )

    def close(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, errors=self.errors)
            self._bar.stop()
        elif self._plain and self.done:
            self._line(time.monotonic())
