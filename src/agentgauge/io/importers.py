"""Compatibility: the importers now live in :mod:`agentgauge.importers`; this module re-exports
its names so ``from agentgauge.io.importers import import_suite`` keeps working."""

from ..importers import (
    IMPORTERS,
    Importer,
    ImportOptions,
    get_importer,
    import_suite,
    load_suite_any,
    looks_like_bfcl,
)

__all__ = [
    "IMPORTERS",
    "ImportOptions",
    "Importer",
    "get_importer",
    "import_suite",
    "load_suite_any",
    "looks_like_bfcl",
]
