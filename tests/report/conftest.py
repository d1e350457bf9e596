"""Fixture runs and snapshot comparison for the report tests.

Set ``AGENTGAUGE_UPDATE_SNAPSHOTS=1`` to rewrite the snapshots under tests/report/snapshots/
after an intended change (then review the diff).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SNAPSHOTS = HERE / "snapshots"
#: flags that keep Chromium from reaching out to the network of a closed machine
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


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


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _need(what: str) -> None:
    message = (
        f"{what}; the browser tests of the reports need it "
        "(apt-get install chromium; pip install playwright)"
    )
    if os.environ.get("CI"):
        pytest.fail(f"{message} — CI must run them, not skip them")
    pytest.skip(message)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless system Chromium driven by Playwright (the HTML report's and the dashboard's
    browser tests); with ``CI`` set, a missing Playwright or Chromium fails instead of skipping."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _need("Playwright for Python is not installed")
    chromium = _chromium()
    if chromium is None:
        _need("no Chromium found on PATH")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()
