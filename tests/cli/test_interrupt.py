"""Ctrl-C exits 130 with one line, not click's "Aborted!" and exit 1 (a failed gate)."""

from __future__ import annotations

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
