"""The git program run in a temporary repository, for the tests of ``agentgauge._git``."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """``git ARGS`` in ``repo`` (a fixed author), its stdout stripped; fails on a non-zero exit."""
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout.strip()
