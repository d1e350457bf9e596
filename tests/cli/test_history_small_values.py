"""``agentgauge history`` never shows a measured latency as 0: under 10 ms it keeps two
significant digits (a mock or replayed run's 0.21 ms read "0 ms")."""

from __future__ import annotations

import pytest

from agentgauge.cli._history import _shown


@pytest.mark.parametrize(
    ("value", "change", "shown"),
    [
        (0.21, False, "0.21 ms"),
        (4.3, False, "4.3 ms"),
        (0.05, True, "+0.05 ms"),
        (-0.3, True, "-0.3 ms"),
        (1830.4, False, "1830 ms"),
        (-25.0, True, "-25 ms"),
        (None, False, "–"),
    ],
)
def test_latency_in_history(value: float | None, change: bool, shown: str) -> None:
    assert _shown("latency_p95_ms", value, change=change) == shown
