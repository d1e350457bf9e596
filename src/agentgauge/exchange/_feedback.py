"""Online user feedback on captured conversations (docs/metrics.md#module-metrics): read from a
trace's span attributes, or from a feedback file keyed by trace id.

Span attributes (on any span of the trace; the last span carrying a score wins, a re-rating)::

    user.feedback.score    4            (or agentgauge.feedback.score)
    user.feedback.scale    [1, 5]       (default [0, 1]: thumbs down / up)
    user.feedback.comment  "quick and right"

A feedback file (``RUN_DIR/feedback.jsonl``, or ``agentgauge score --feedback FILE``) has one
JSON object a line, keyed by the trace the conversation was captured in or by the result::

    {"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "score": 4, "scale": [1, 5]}
    {"case_id": "kb-cancel", "trial": 0, "score": 0, "comment": "it never answered"}

A later line for the same key replaces an earlier one. The file is read within the input
limits of :mod:`agentgauge.files`; a bad line is refused at ``file:line``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from pydantic import Field, model_validator

from ..errors import UserError
from ..schema import Feedback, Model
from ._otlp import Span

__all__ = ["FEEDBACK_FILE", "FeedbackLine", "feedback_key", "read_feedback", "span_feedback"]

FEEDBACK_FILE: Final = "feedback.jsonl"
_PREFIXES: Final = ("user.feedback.", "agentgauge.feedback.")


def _reason(err: ValueError) -> str:
    """The validator's own sentence out of a pydantic error (``score 6 is outside ...``)."""
    text = str(err)
    match = re.search(r"Value error, (.+?)(?: \[type=|$)", text, re.MULTILINE)
    return match.group(1) if match else text.splitlines()[0]


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _scale(value: Any, where: str, key: str) -> tuple[float, float]:
    if value is None:
        return (0.0, 1.0)
    if isinstance(value, list | tuple) and len(value) == 2:
        lo, hi = _number(value[0]), _number(value[1])
        if lo is not None and hi is not None:
            return (lo, hi)
    raise UserError(f"{where}: {key}: expected [low, high], two numbers (got {value!r})")


def _one_span(span: Span) -> Feedback | None:
    a = span.attributes
    for prefix in _PREFIXES:
        raw = a.get(f"{prefix}score")
        if raw is None:
            continue
        score = _number(raw)
        if score is None:
            raise UserError(f"{span.where}: {prefix}score: expected a number (got {raw!r})")
        comment = a.get(f"{prefix}comment")
        try:
            return Feedback(
                score=score,
                scale=_scale(a.get(f"{prefix}scale"), span.where, f"{prefix}scale"),
                source=f"span {prefix}score",
                comment=comment if isinstance(comment, str) else None,
            )
        except ValueError as err:  # outside its scale
            raise UserError(f"{span.where}: {prefix}score: {_reason(err)}") from None
    return None


def span_feedback(spans: Sequence[Span]) -> Feedback | None:
    """The user's feedback on a trace: the last span (by start time) that carries a score."""
    found: Feedback | None = None
    for span in sorted(spans, key=lambda s: (s.start_ns, s.span_id)):
        feedback = _one_span(span)
        if feedback is not None:
            found = feedback
    return found


class FeedbackLine(Model):
    """One line of a feedback file: a trace id, or a case id and trial, and the feedback."""

    trace_id: str | None = Field(default=None, min_length=1)
    case_id: str | None = Field(default=None, min_length=1)
    trial: int = Field(default=0, ge=0)
    score: float
    scale: tuple[float, float] = (0.0, 1.0)
    comment: str | None = None

    @model_validator(mode="after")
    def _keyed(self) -> FeedbackLine:
        if (self.trace_id is None) == (self.case_id is None):
            raise ValueError("give either trace_id or case_id (with trial), not both or neither")
        return self

    def key(self) -> str:
        return feedback_key(trace_id=self.trace_id, case_id=self.case_id, trial=self.trial)


def feedback_key(*, trace_id: str | None = None, case_id: str | None = None, trial: int = 0) -> str:
    """The lookup key of a feedback entry: ``trace:ID`` or ``case:ID#TRIAL``."""
    return f"trace:{trace_id.lower()}" if trace_id is not None else f"case:{case_id}#{trial}"


def read_feedback(path: Path) -> dict[str, Feedback]:
    """``feedback_key`` -> feedback, from a feedback file ({} when there is none)."""
    from ..files import iter_lines, parse_json, validated

    path = Path(path)
    if not path.exists() and not path.is_symlink():
        return {}
    display = str(path)
    out: dict[str, Feedback] = {}
    for number, raw in iter_lines(path, display):
        if not raw.strip():
            continue
        data = parse_json(raw, display, number, what="feedback line")
        line = validated(FeedbackLine, data, display=display, locator=number, what="feedback line")
        try:
            feedback = Feedback(
                score=line.score,
                scale=line.scale,
                source=f"{path.name}:{number}",
                comment=line.comment,
            )
        except ValueError as err:
            raise UserError(f"{display}:{number}: score: {_reason(err)}") from None
        out[line.key()] = feedback
    return out
