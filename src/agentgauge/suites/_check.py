"""A suite file loaded and linted in one step: what ``agentgauge validate`` prints.

:func:`check_suite` never raises for a bad suite: loading problems and lint findings are both
in the :class:`SuiteCheck` it returns. When the suite does not load, the expected calls that no
agent could make (a tool the case does not offer) are still reported, from what could be read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ._lint import LintFinding, _Linter, lint_suite
from ._loader import LoadedSuite
from ._mix import CategoryMix, category_mix

__all__ = ["SuiteCheck", "check_suite"]


@dataclass(frozen=True, kw_only=True)
class SuiteCheck:
    """The outcome of loading and linting one suite (what ``agentgauge validate`` prints)."""

    path: str
    #: the suite with its origins, or None when it did not load
    loaded: LoadedSuite | None
    #: loading problems, one ``file:line: field: message`` line each
    problems: list[str] = field(default_factory=list)
    findings: list[LintFinding] = field(default_factory=list)

    def failed(self, *, strict: bool = False) -> bool:
        """Whether the suite fails validation (``strict``: warnings count as errors)."""
        if self.problems or self.loaded is None:
            return True
        return any(strict or f.severity == "error" for f in self.findings)

    def mix(self) -> CategoryMix | None:
        return category_mix(self.loaded.suite) if self.loaded else None


def check_suite(path: str | Path, *, judge: str | None = None) -> SuiteCheck:
    """Load and lint a suite; never raises for a bad suite (the problems are in the result).

    ``judge``: the judge spec a run will be given, as for :func:`lint_suite`."""
    from ..errors import UserError
    from ._loader import read_partial_suite, read_suite

    try:
        loaded = read_suite(path)
    except UserError as err:
        # calls no agent can make are errors too: report them now, not after the fix
        partial = read_partial_suite(path)
        found = _Linter(partial, judge).call_tools() if partial is not None else []
        return SuiteCheck(path=str(path), loaded=None, problems=list(err.problems), findings=found)
    return SuiteCheck(path=str(path), loaded=loaded, findings=lint_suite(loaded, judge=judge))
