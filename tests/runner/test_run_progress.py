"""Progress display: plain periodic lines when the output is not a terminal."""

from __future__ import annotations

import io

import pytest

from agentgauge.runner import _progress
from agentgauge.runner._progress import ProgressReporter


def test_plain_lines_are_periodic_not_per_case(monkeypatch: pytest.MonkeyPatch) -> None:
    out = io.StringIO()
    progress = ProgressReporter(1000, enabled=None, stream=out)
    for _ in range(999):
        progress.advance("passed")
    assert out.getvalue() == ""  # nothing until LINE_EVERY_S has passed
    monkeypatch.setattr(_progress, "LINE_EVERY_S", 0.0)
    progress.advance("error")
    progress.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[-1].startswith("agentgauge: 1000/1000 cases, 1 errors, ")
    assert lines[-1].endswith(" cases/s")


def test_disabled_progress_prints_nothing() -> None:
    out = io.StringIO()
    progress = ProgressReporter(3, enabled=False, stream=out)
    for _ in range(3):
        progress.advance("failed")
    progress.close()
    assert out.getvalue() == ""
    assert (progress.done, progress.errors) == (3, 0)


def test_bar_on_a_terminal() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    progress = ProgressReporter(2, enabled=None, stream=out)
    progress.advance("passed")
    progress.advance("error")
    progress.close()
    text = out.getvalue()
    assert "2/2" in text
    assert "errors 1" in text
