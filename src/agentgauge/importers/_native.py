"""agentgauge's own suites, so ``agentgauge import suite S -o OUT --to FORMAT`` re-exports them."""

from __future__ import annotations

from pathlib import Path

from ..errors import UserError
from ..schema import Suite
from ._common import ImportOptions

__all__ = ["import_native"]


def import_native(sources: list[Path], options: ImportOptions) -> Suite:
    """Load one agentgauge suite (file, folder with ``suite.yaml``, or JSONL of cases)."""
    from ..suites import load_suite

    if len(sources) != 1:
        raise UserError(f"import suite: give exactly one suite, got {len(sources)}")
    suite = load_suite(sources[0])
    cases = suite.cases
    if options.limit is not None:
        cases = cases[: options.limit]
    if options.category is not None:
        cases = [c.model_copy(update={"category": options.category}) for c in cases]
    update: dict[str, object] = {"cases": cases, "case_files": [], "tool_files": []}
    if options.name:
        update["name"] = options.name
    return suite.model_copy(update=update)
