"""Fixture runs and snapshot comparison for the report tests.

Set ``AGENTGAUGE_UPDATE_SNAPSHOTS=1`` to rewrite the snapshots under tests/report/snapshots/
after an intended change (then review the diff).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SNAPSHOTS = HERE / "snapshots"


@pytest.fixture
def snapshot() -> Callable[[str, str], None]:
    def check(name: str, text: str) -> None:
        path = SNAPSHOTS / name
        if os.environ.get("AGENTGAUGE_UPDATE_SNAPSHOTS") == "1" or not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8", newline="")
            if not os.environ.get("AGENTGAUGE_UPDATE_SNAPSHOTS"):
                pytest.fail(f"snapshot {name} did not exist; written, review and re-run")
        assert text == path.read_text(encoding="utf-8"), f"{name} differs from its snapshot"

    return check
