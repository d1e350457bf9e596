"""Shared test set-up: offline by default, isolated caches, and the location of shared datasets."""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
#: public datasets laid beside the repository (absent on a user's fresh clone)
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
# processes the tests start (Ray's head and workers) report no usage statistics to the internet
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"


def _is_loopback(address: Any) -> bool:
    if not isinstance(address, tuple) or not address:
        return True  # AF_UNIX paths and the like
    host = str(address[0])
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_loopback(address):
        raise ConnectionRefusedError(f"tests are offline: refused connection to {address!r}")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: Any) -> Any:
    if not _is_loopback(address):
        raise ConnectionRefusedError(f"tests are offline: refused connection to {address!r}")
    return _real_connect_ex(self, address)


@pytest.fixture(autouse=True, scope="session")
def _offline() -> Iterator[None]:
    """Refuse every connection that is not to the loopback interface."""
    socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]
    yield
    socket.socket.connect = _real_connect  # type: ignore[method-assign]
    socket.socket.connect_ex = _real_connect_ex  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _isolated_state(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """Keep caches and run history out of the user's home and the working directory, and the
    secrets one test registers out of the next one's scrubbing."""
    state = tmp_path_factory.mktemp("agentgauge-state")
    monkeypatch.setenv("AGENTGAUGE_CACHE_DIR", str(state / "cache"))
    monkeypatch.setenv("AGENTGAUGE_HISTORY", str(state / "history.sqlite"))
    # the history's default folder too, for a test that unsets AGENTGAUGE_HISTORY
    monkeypatch.setenv("XDG_DATA_HOME", str(state / "data"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"):
        if key in os.environ:
            monkeypatch.delenv(key)
    yield
    from agentgauge import _secrets

    _secrets._reset()


@pytest.fixture
def shared_data() -> Path:
    """The ``shared/data`` folder beside the repository; skips the test when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("shared datasets not present (../shared/data)")
    return SHARED_DATA
