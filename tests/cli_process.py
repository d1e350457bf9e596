"""``python -m agentgauge ARGS`` in a child process, for the tests that run the command itself."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def run_agentgauge(
    *args: str, cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The finished child (its exit code, stdout and stderr as text); never raises on a
    non-zero exit. ``env``: the child's whole environment (None: this process's)."""
    return subprocess.run(
        [sys.executable, "-m", "agentgauge", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
