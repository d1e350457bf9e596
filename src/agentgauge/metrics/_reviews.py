"""Expert review of planning paths: ``RUN_DIR/reviews.jsonl`` (written by ``agentgauge
review``, read by the summary's planning-path metric and by ``agentgauge calibrate``).

Each line is a labelled example in the calibrate format (docs/judges.md), so the file a person
graded is also what a judge is calibrated against::

    {"task": "planning_path", "id": "refund-3#0", "inputs": {"question": "...",
     "expected": "search_orders, refund", "plan": "1. search_orders(...)\\n2. refund(...)",
     "agent_output": "..."}, "label": 4, "note": "right tools, one lookup too many"}

``id`` is ``CASE_ID#TRIAL``; ``label`` the grade 1–5 (5: the path an expert would take). A
later line for the same id replaces an earlier one (a re-grade).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

import orjson
from pydantic import Field

from .._factories import new_dict
from ..errors import UserError
from ..schema import CaseResult, Model

__all__ = [
    "PLANNING_TASK",
    "REVIEWS_FILE",
    "Review",
    "ReviewItem",
    "ReviewOutcome",
    "plan_text",
    "read_reviews",
    "review_run",
]

REVIEWS_FILE: Final = "reviews.jsonl"
#: the judge task the grades are labels of (``agentgauge calibrate --task planning_path``)
PLANNING_TASK: Final = "planning_path"
_ARG_WIDTH: Final = 60


class Review(Model):
    """One line of ``reviews.jsonl``."""

    task: Literal["planning_path"] = PLANNING_TASK
    #: ``CASE_ID#TRIAL``
    id: str = Field(min_length=3, pattern=r"#\d+$")
    inputs: dict[str, str] = Field(default_factory=new_dict)
    label: int = Field(ge=1, le=5)
    note: str | None = None

    def key(self) -> tuple[str, int]:
        case_id, _, trial = self.id.rpartition("#")
        return case_id, int(trial)


def read_reviews(run_dir: Path) -> dict[tuple[str, int], int]:
    """(case id, trial) -> grade from ``RUN_DIR/reviews.jsonl`` ({} when there is none)."""
    from ..files import iter_lines, parse_json, validated

    path = Path(run_dir) / REVIEWS_FILE
    if not path.exists() and not path.is_symlink():
        return {}
    display = str(path)
    out: dict[tuple[str, int], int] = {}
    for number, raw in iter_lines(path, display):
        if not raw.strip():
            continue
        data = parse_json(raw, display, number, what="review line")
        review = validated(Review, data, display=display, locator=number, what="review line")
        out[review.key()] = review.label
    return out


def _value(v: object) -> str:
    try:
        return orjson.dumps(v).decode()
    except TypeError:  # an integer beyond 64 bits (json keeps it whole), or a non-JSON value
        import json

        return json.dumps(v, ensure_ascii=False, default=str)


def _args(arguments: dict[str, object]) -> str:
    text = ", ".join(f"{k}={_value(v)}" for k, v in arguments.items())
    return text if len(text) <= _ARG_WIDTH else text[: _ARG_WIDTH - 1] + "…"


def plan_text(r: CaseResult) -> str:
    """The path the agent took, one numbered step a line: each tool call with its arguments
    and whether it failed, the user turn it answered when there were several."""
    lines: list[str] = []
    turns = {e.turn for e in r.trace if e.kind == "tool"}
    for e in r.trace:
        if e.kind != "tool" or e.tool is None:
            continue
        where = f"[turn {e.turn + 1}] " if len(turns) > 1 else ""
        failed = f"  -> error: {e.error}" if e.error else ""
        lines.append(f"{len(lines) + 1}. {where}{e.tool}({_args(e.arguments or {})}){failed}")
    if not lines and r.calls:  # a recorded response without a trace
        lines = [f"{i}. {c.name}({_args(c.arguments)})" for i, c in enumerate(r.calls, 1)]
    return "\n".join(lines) or "(no tool call)"


def _question(r: CaseResult) -> str:
    users = [m.content for m in r.messages if m.role == "user" and m.content]
    return "\n".join(users) if users else "(the case input is not in the result)"


@dataclass(frozen=True, slots=True, kw_only=True)
class ReviewItem:
    """A result to grade, as the reviewer sees it."""

    result: CaseResult
    question: str
    plan: str
    #: the tools the case expects (turn 0 and the later turns)
    expected: list[str]
    agent_output: str
    #: the grade already given (a re-grade shows it)
    previous: int | None
    #: 1-based position among the results to review, and how many there are
    position: int
    total: int


@dataclass(frozen=True, slots=True)
class ReviewOutcome:
    """What a review session did."""

    path: Path
    graded: int
    skipped: int
    #: results already graded that were not shown again (without ``regrade``)
    kept: int


#: the reviewer: a grade 1-5 with an optional note, or None to skip the result (``stop``
#: raised as :class:`StopIteration` ends the session, keeping what was graded)
Grader = Callable[[ReviewItem], tuple[int, str | None] | None]


def _items(
    results: Iterable[CaseResult], done: dict[tuple[str, int], int], regrade: bool
) -> tuple[list[CaseResult], int]:
    todo: list[CaseResult] = []
    kept = 0
    for r in results:
        if r.status == "error":
            continue  # nothing was judged; its path says nothing about planning
        if (r.case_id, r.trial) in done and not regrade:
            kept += 1
            continue
        todo.append(r)
    return todo, kept


def review_run(
    run_dir: Path,
    grader: Grader,
    *,
    cases: Iterable[str] = (),
    regrade: bool = False,
) -> ReviewOutcome:
    """Show each scored result of ``run_dir`` to ``grader`` and append its grades to
    ``RUN_DIR/reviews.jsonl`` as they are given (an interrupted session keeps them).

    ``cases``: only these case ids; ``regrade``: show the results already graded too.
    """
    from .._secrets import register_env, scrub_bytes
    from .._suite_code import open_regular
    from ..rundir import iter_results

    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise UserError(f"{run_dir}: no such run directory")
    done = read_reviews(run_dir)
    wanted = set(cases)
    results = (r for r in iter_results(run_dir) if not wanted or r.case_id in wanted)
    todo, kept = _items(results, done, regrade)
    if wanted and not todo and not kept:
        raise UserError(f"{run_dir}: no scored result of case(s) {', '.join(sorted(wanted))}")
    path = run_dir / REVIEWS_FILE
    register_env()
    graded = skipped = 0
    with open_regular(path, "ab") as fh:
        for i, r in enumerate(todo, 1):
            item = ReviewItem(
                result=r,
                question=_question(r),
                plan=plan_text(r),
                expected=list(dict.fromkeys([*r.expected_tools, *r.later_expected_tools])),
                agent_output=r.text or "",
                previous=done.get((r.case_id, r.trial)),
                position=i,
                total=len(todo),
            )
            try:
                answer = grader(item)
            except StopIteration:
                break
            if answer is None:
                skipped += 1
                continue
            grade, note = answer
            review = Review(
                id=f"{r.case_id}#{r.trial}",
                inputs={
                    "question": item.question,
                    "expected": ", ".join(item.expected),
                    "plan": item.plan,
                    "agent_output": item.agent_output,
                },
                label=grade,
                note=note or None,
            )
            line = orjson.dumps(review.model_dump(mode="json", exclude_none=True))
            fh.write(scrub_bytes(line) + b"\n")
            fh.flush()
            graded += 1
    return ReviewOutcome(path=path, graded=graded, skipped=skipped, kept=kept)
