"""The ``bfcl`` built-in world as the registry loads it: importing this module checks that
BFCL's back-ends are installed (:class:`~agentgauge.errors.MissingExtraError` with the install
command otherwise), so a run or ``score`` refuses before its first case."""

from __future__ import annotations

from ._bfcl_exec import require_bfcl_eval
from ._bfcl_world import bfcl_world

__all__ = ["bfcl_world"]

require_bfcl_eval()
