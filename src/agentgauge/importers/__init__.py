"""Importers: turn datasets in other formats into agentgauge suites.

Each importer is a function ``(sources: list[Path], options: ImportOptions) -> Suite``, registered
here by name as ``"module:function"`` and imported only when used. Every imported case records
its provenance in ``metadata``: ``source`` (the format), ``source_file`` (file name),
``source_line`` (1-based line of the record) and ``source_id`` (the dataset's own id, if any).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

from ..errors import UserError
from ..schema import Suite
from ._common import ImportOptions

__all__ = [
    "IMPORTERS",
    "ImportOptions",
    "Importer",
    "get_importer",
    "import_suite",
    "load_suite_any",
    "looks_like_bfcl",
]

Importer = Callable[[list[Path], ImportOptions], Suite]

#: format name -> "module:function" of its importer
IMPORTERS: Final[dict[str, str]] = {
    "bfcl": "agentgauge.importers._bfcl:import_bfcl",
    "when2call": "agentgauge.importers._when2call:import_when2call",
    "tool-selection": "agentgauge.importers._tool_selection:import_tool_selection",
    "golden": "agentgauge.importers._golden:import_golden",
    "acebench": "agentgauge.importers._acebench:import_acebench",
    "tooltalk": "agentgauge.importers._tooltalk:import_tooltalk",
    "suite": "agentgauge.importers._native:import_native",
}


def get_importer(fmt: str) -> Importer:
    """The importer registered as ``fmt`` (a :class:`UserError` names the known ones)."""
    target = IMPORTERS.get(fmt)
    if target is None:
        known = ", ".join(sorted(IMPORTERS))
        raise UserError(f"unknown import format '{fmt}' (known: {known})")
    module_name, _, func_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name != module_name:
            raise
        raise UserError(f"the '{fmt}' importer is not available in this version") from None
    func: Importer = getattr(module, func_name)
    return func


def import_suite(
    fmt: str, sources: Sequence[str | Path], options: ImportOptions | None = None
) -> Suite:
    """Import ``sources`` (files of format ``fmt``) as one suite."""
    if not sources:
        raise UserError(f"import {fmt}: give at least one source file")
    paths = [Path(s) for s in sources]
    return get_importer(fmt)(paths, options if options is not None else ImportOptions())


def load_suite_any(path: Path) -> Suite:
    """A suite file / folder (``agentgauge.io.load_suite``), or BFCL data imported on the fly."""
    from ._bfcl import looks_like_bfcl

    if looks_like_bfcl(path):
        return import_suite("bfcl", [path])
    from ..suites import load_suite

    return load_suite(path)


def looks_like_bfcl(path: Path) -> bool:
    """Whether ``path`` is BFCL data rather than an agentgauge suite (see ``import_bfcl``)."""
    from ._bfcl import looks_like_bfcl as looks

    return looks(path)
