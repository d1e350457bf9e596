"""How a suite's cases spread over categories and the usual strata (common / edge /
adversarial): what ``agentgauge validate`` prints and the lint's ``category-mix`` finding
checks."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from ..schema import CATEGORY_STRATA, Suite

__all__ = ["STRATA_TARGETS", "CategoryCount", "CategoryMix", "category_mix"]

#: the usual stratification of a golden dataset: share of cases per stratum
STRATA_TARGETS: Final = {"common": 0.60, "edge": 0.25, "adversarial": 0.15}


@dataclass(frozen=True, kw_only=True)
class CategoryCount:
    name: str
    count: int
    #: fraction of all cases
    share: float
    #: ``common`` / ``edge`` / ``adversarial``, or ``other`` for categories of the user's own
    stratum: str


@dataclass(frozen=True, kw_only=True)
class CategoryMix:
    """How the cases of a suite spread over categories and the usual strata."""

    total: int
    categories: list[CategoryCount] = field(default_factory=list)
    strata: list[CategoryCount] = field(default_factory=list)

    def stratum(self, name: str) -> CategoryCount | None:
        return next((s for s in self.strata if s.name == name), None)


def category_mix(suite: Suite) -> CategoryMix:
    """Counts and shares of the suite's cases per category and per stratum."""
    total = len(suite.cases)
    counts = Counter(c.category for c in suite.cases)
    share = (lambda n: n / total) if total else (lambda n: 0.0)
    categories = [
        CategoryCount(
            name=name, count=n, share=share(n), stratum=CATEGORY_STRATA.get(name, "other")
        )
        for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    by_stratum = Counter[str]()
    for c in categories:
        by_stratum[c.stratum] += c.count
    names = [*STRATA_TARGETS, *(["other"] if by_stratum["other"] else [])]
    strata = [
        CategoryCount(name=s, count=by_stratum[s], share=share(by_stratum[s]), stratum=s)
        for s in names
    ]
    return CategoryMix(total=total, categories=categories, strata=strata)
