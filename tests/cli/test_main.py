"""Ctrl-C exits 130 (not click's exit 1, a failed gate); output survives a non-UTF-8 console."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import click
import pytest

from agentgauge import cli as cli_module


def test_ctrl_c_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    @click.command()
    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module.LazyGroup, "get_command", lambda self, ctx, name: interrupted)
    with pytest.raises(SystemExit) as exc:
        cli_module.main(["gate"])
    assert exc.value.code == 130
    err = capsys.readouterr().err
    assert "interrupted" in err
    assert "Aborted" not in err


def test_a_console_without_utf8_gets_replacement_characters_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text("name: 'temp ≥ 30 °C ☀'\ncases: []\n", encoding="utf-8")
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="cp1252")  # a Windows console redirected to a file
    monkeypatch.setattr(sys, "stdout", out)
    with pytest.raises(SystemExit) as exc:
        cli_module.main(["validate", str(suite)])
    assert exc.value.code == 0
    out.flush()
    assert "temp ? 30 °C ?".encode("cp1252") in raw.getvalue()
