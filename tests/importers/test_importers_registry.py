"""The importer registry."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentgauge.errors import UserError
from agentgauge.io.importers import IMPORTERS, get_importer, import_suite


def test_known_formats_are_registered() -> None:
    assert {"bfcl", "when2call", "tool-selection", "golden", "suite"} <= set(IMPORTERS)
    for name in ("when2call", "tool-selection", "golden", "suite", "acebench", "tooltalk"):
        assert callable(get_importer(name))


def test_unknown_format() -> None:
    with pytest.raises(UserError, match="unknown import format 'csv' \\(known: acebench, bfcl, "):
        get_importer("csv")


def test_no_sources() -> None:
    with pytest.raises(UserError, match="give at least one source file"):
        import_suite("golden", [])


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        import_suite("golden", [tmp_path / "missing.jsonl"])
