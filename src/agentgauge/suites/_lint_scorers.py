"""Lint checks of a suite's ``scorers:`` section, against the scorer catalog.

Names and arguments are checked with the same function :func:`agentgauge.judges.build_scorers`
runs before a run starts (``scorer_ref_issues``), so what validates also starts. Nothing is
built: no judge, no provider, no network.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from ..files import PathElem
from ..schema import ScorerRef, Suite


@dataclass(frozen=True)
class ScorerFinding:
    severity: Literal["warning", "error"]
    code: str
    #: from the suite's root: ``("scorers", 1, "args", "min_score")``
    path: tuple[PathElem, ...]
    message: str


def scorer_findings(suite: Suite, judge: str | None = None) -> Iterator[ScorerFinding]:
    """Problems of ``suite.scorers``.

    Errors (a run would not start): ``unknown-scorer`` (with the closest known name),
    ``bad-scorer-args`` (an argument the scorer does not take, or a value of the wrong type or
    range), ``unknown-provider`` (a ``judge:`` spec with an unknown prefix). Warnings:
    ``no-judge`` (a scorer needs a judge, and neither its ``judge:``,
    ``defaults.judge`` nor ``judge`` — the ``--judge`` a run will get — names one),
    ``unused-judge`` (a ``judge:`` on a scorer that never uses one) and ``unmatched-cases``
    (a ``cases`` glob that matches no case id, category or tag).
    """
    if not suite.scorers:
        return
    from ..providers import spec_problem
    from ..schema import SCORER_INFO, scorer_ref_issues

    for i, ref in enumerate(suite.scorers):
        at: tuple[PathElem, ...] = ("scorers", i)
        for issue in scorer_ref_issues(ref):
            yield ScorerFinding("error", issue.code, (*at, *issue.path), issue.message)
        problem = spec_problem(ref.judge) if ref.judge else None
        if problem is not None:
            yield ScorerFinding("error", "unknown-provider", (*at, "judge"), problem)
        info = SCORER_INFO.get(ref.scorer)
        if info is None:
            continue
        if info.judge == "required" and not (ref.judge or suite.defaults.judge or judge):
            yield ScorerFinding(
                "warning",
                "no-judge",
                (*at, "scorer"),
                f"scorer '{ref.scorer}' needs a judge and none is set: add `judge: SPEC` "
                "to the entry, set defaults.judge, or give the run --judge SPEC",
            )
        if info.judge == "none" and ref.judge:
            yield ScorerFinding(
                "warning",
                "unused-judge",
                (*at, "judge"),
                f"scorer '{ref.scorer}' uses no judge, so this judge is never called",
            )
        yield from _unmatched_cases(suite, ref, at)


def _unmatched_cases(
    suite: Suite, ref: ScorerRef, at: tuple[PathElem, ...]
) -> Iterator[ScorerFinding]:
    if not suite.cases:
        return
    from ..schema import matches_case

    globs: list[tuple[tuple[PathElem, ...], str]] = [
        ((*at, "cases", j), p) for j, p in enumerate(ref.cases)
    ]
    in_args = ref.args.get("cases")
    if not ref.cases and isinstance(in_args, list):  # ``cases:`` of the entry wins over args
        globs += [
            ((*at, "args", "cases", j), p) for j, p in enumerate(in_args) if isinstance(p, str)
        ]
    unmatched = [
        (path, p) for path, p in globs if not any(matches_case(c, [p]) for c in suite.cases)
    ]
    never = len(unmatched) == len(globs)
    for path, p in unmatched:
        yield ScorerFinding(
            "warning",
            "unmatched-cases",
            path,
            f"'{p}' matches no case id, category or tag"
            + (f", so scorer '{ref.scorer}' runs on no case" if never else ""),
        )


__all__ = ["ScorerFinding", "scorer_findings"]
