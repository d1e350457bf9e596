"""The install path of BFCL's back-ends: ``.ci/run`` runs ``scripts/setup.sh``, which installs
``bfcl-eval`` (pinned) without its dependencies, and ``mpmath`` — for a dev install (the default,
as in CI) or with ``AGENTGAUGE_BFCL=1``, not otherwise. setup.sh runs here on a stand-in venv
whose ``python`` only logs what it is asked to do; the BFCL tests fail rather than skip in CI."""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
from pathlib import Path

import pytest

import bfcl_multi_helpers
from agentgauge.worlds import BFCL_INSTALL

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup.sh"
PIN = "2026.3.23"  # the bfcl-eval whose checker the conformance tests were written against


def _setup(tmp: Path, **env: str) -> list[str]:
    """The pip commands setup.sh runs, with ``env`` (python: a logging stand-in)."""
    venv, bin_dir, log = tmp / "venv", tmp / "bin", tmp / "calls.log"
    (venv / "bin").mkdir(parents=True)
    bin_dir.mkdir()
    fake = f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexit 0\n'
    for path in (venv / "bin" / "python", bin_dir / "chromium"):
        path.write_text(fake, encoding="utf-8")
        path.chmod(0o755)
    base = {k: v for k, v in os.environ.items() if not k.startswith("AGENTGAUGE_")}
    done = subprocess.run(
        ["bash", str(SETUP)],
        env={**base, "PATH": f"{bin_dir}:{base['PATH']}", "AGENTGAUGE_VENV": str(venv),
             "AGENTGAUGE_WHEELHOUSE": str(tmp / "wheels"), **env},
        capture_output=True, text=True, check=False, cwd=tmp,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return [line for line in log.read_text(encoding="utf-8").splitlines() if "pip" in line]


BFCL_LINE = f"-m pip --disable-pip-version-check install -q --no-deps bfcl-eval=={PIN} mpmath>=1.3"


def test_ci_s_setup_installs_the_pinned_back_ends_without_dependencies(tmp_path: Path) -> None:
    # .ci/run: `bash scripts/setup.sh` with no settings -> the dev extras -> bfcl-eval
    calls = _setup(tmp_path)
    assert BFCL_LINE in calls
    assert calls.index(BFCL_LINE) > next(i for i, c in enumerate(calls) if " -e .[" in c)
    assert any(" -e .[dev," in c for c in calls)


def test_other_installs_get_the_back_ends_only_when_asked(tmp_path: Path) -> None:
    assert BFCL_LINE not in _setup(tmp_path / "a", AGENTGAUGE_EXTRAS="stats")
    assert BFCL_LINE in _setup(tmp_path / "b", AGENTGAUGE_EXTRAS="stats", AGENTGAUGE_BFCL="1")


def test_the_pin_is_the_installed_version_and_the_documented_command() -> None:
    text = SETUP.read_text(encoding="utf-8")
    match = re.search(r'BFCL_EVAL_VERSION="\$\{AGENTGAUGE_BFCL_EVAL_VERSION:-([^}]+)\}"', text)
    assert match is not None
    assert match.group(1) == PIN
    assert BFCL_INSTALL == "pip install --no-deps bfcl-eval mpmath"
    docs = (ROOT / "docs" / "bfcl.md").read_text(encoding="utf-8")
    assert f"$ {BFCL_INSTALL}" in docs
    assert "Apache-2.0" in docs
    bfcl_multi_helpers.need_bfcl_eval()
    assert importlib.metadata.version("bfcl-eval") == PIN


def test_the_bfcl_tests_fail_in_ci_without_the_back_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise ImportError(f"No module named {name!r}")

    monkeypatch.setattr(bfcl_multi_helpers.importlib, "import_module", missing)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"scripts/setup\.sh installs them"):
        bfcl_multi_helpers.need_bfcl_eval()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="not installed"):
        bfcl_multi_helpers.need_bfcl_eval()
