"""The records a gate writes: one check, the comparison with a baseline, the report."""

from __future__ import annotations

from pydantic import Field

from .._factories import new_list
from ..schema import Model

__all__ = ["GateBaseline", "GateCheck", "GateReport"]


class GateCheck(Model):
    """One threshold check: what was required, what the run reached, and the verdict."""

    name: str
    threshold: str
    actual: str
    passed: bool
    message: str


class GateBaseline(Model):
    """What a gate given a baseline compared: the runs, their paired cases, the rule."""

    base_run: str
    new_run: str
    paired: int
    fixed: int = 0
    broken: int = 0
    unchanged: int = 0
    #: cases only in this run / only in the baseline (not compared)
    new: int = 0
    removed: int = 0
    mcnemar_p: float = 1.0
    #: the metrics checked for a regression
    metrics: list[str] = Field(default_factory=new_list)
    #: of ``metrics``, those not measured in both runs: no regression check was made on them
    not_compared: list[str] = Field(default_factory=new_list)
    #: the regression rule in words
    rule: str = ""
    #: no ``max_regression_points``: any statistically significant drop fails
    default_rule: bool = False
    #: what the comparison noted (different agents, a changed suite ...)
    notes: list[str] = Field(default_factory=new_list)

    def lines(self, base: str | None = None) -> list[str]:
        """The comparison in a few lines (``agentgauge gate`` prints them under its verdict);
        ``base`` names the baseline instead of its path (a report read elsewhere)."""
        line = (
            f"compared with the baseline {base or self.base_run}: {self.paired} paired cases "
            f"({self.fixed} fixed, {self.broken} broken, {self.unchanged} unchanged; exact "
            f"McNemar p = {self.mcnemar_p:.3g})"
        )
        unpaired = [
            f"{n} {what}" for what, n in (("new", self.new), ("removed", self.removed)) if n
        ]
        if unpaired:
            line += f"; {' and '.join(unpaired)} case(s) not compared"
        checked = [m for m in self.metrics if m not in self.not_compared]
        metrics = ", ".join(checked) or "none"
        if self.not_compared:
            metrics += f" (not checked, not measured in both runs: {', '.join(self.not_compared)})"
        return [line, f"regression rule: {self.rule}; metrics: {metrics}"] + [
            f"note: {n}" for n in self.notes
        ]


class GateReport(Model):
    version: int = 1
    passed: bool = True
    checks: list[GateCheck] = Field(default_factory=new_list)
    warnings: list[str] = Field(default_factory=new_list)
    #: with a baseline: what was compared and by which rule
    compared: GateBaseline | None = None

    @property
    def failed(self) -> list[GateCheck]:
        return [c for c in self.checks if not c.passed]
