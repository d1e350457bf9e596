"""Turn checks: behaviour (including recovery), forbidden tools, call budget, response text."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import orjson

from ..schema import Score
from ._transcript import CallRecord, Segment
from ._values import MISSING, norm_text

__all__ = ["score_behavior", "score_forbidden", "score_max_calls", "score_response_contains"]

#: identical failing calls allowed before the agent is said to loop
MAX_IDENTICAL_FAILURES = 2

_EXPLAINS = re.compile(
    r"\b(?:error|errors|fail|failed|failing|failure|unable|couldn't|could not|can't|cannot|"
    r"not available|unavailable|problem|issue|try again|later|timed out|timeout|went wrong|down|"
    r"sorry|apolog\w*|unfortunately|not working|did not work|didn't work)\b"
)


def _call_key(rec: CallRecord) -> tuple[str, bytes]:
    try:
        args = orjson.dumps(rec.call.arguments, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        args = repr(sorted(rec.call.arguments.items())).encode()
    return rec.call.name, args


def _recover(seg: Segment, prefix: str) -> Score:
    name = prefix + "behavior"
    records = seg.records
    first = next((k for k, r in enumerate(records) if r.error), -1)
    if first < 0:
        return Score(
            name=name,
            value=1.0,
            passed=None,
            explanation="no tool error occurred in this turn; nothing to recover from",
            expected="recover",
            actual="no error",
        )
    failures = Counter(_call_key(r) for r in records if r.error)
    (tool, args), worst = failures.most_common(1)[0]
    if worst > MAX_IDENTICAL_FAILURES:
        return Score(
            name=name,
            value=0.0,
            passed=False,
            explanation=(
                f"looped: the identical call {tool}({args.decode()}) failed {worst} times "
                f"(at most {MAX_IDENTICAL_FAILURES} allowed)"
            ),
            expected="recover",
            actual="loop",
        )
    error_pos = records[first].pos
    failed_tool = records[first].call.name
    retried = [r for r in records[first + 1 :] if not r.error and r.result is not MISSING]
    if retried:
        return Score(
            name=name,
            value=1.0,
            passed=True,
            explanation=f"recovered: {retried[0].call.name} succeeded after {failed_tool} failed",
            expected="recover",
            actual="retried",
        )
    text = seg.text
    if text is not None and seg.text_pos > error_pos and _EXPLAINS.search(text.lower()):
        return Score(
            name=name,
            value=1.0,
            passed=True,
            explanation=f"recovered: explained the failed {failed_tool} call to the user",
            expected="recover",
            actual="explained",
        )
    got = (
        "no reply after it"
        if text is None or seg.text_pos < error_pos
        else f"a reply that does not mention it: {text[:80]!r}"
    )
    return Score(
        name=name,
        value=0.0,
        passed=False,
        explanation=(
            f"did not recover from the failed {failed_tool} call: no successful retry and {got}"
        ),
        expected="recover",
        actual="unrecovered",
    )


def score_behavior(expected: str, actual: str, seg: Segment, prefix: str = "") -> Score:
    """Compare the classified behaviour with the expected one (``recover`` has its own rules)."""
    if expected == "recover":
        return _recover(seg, prefix)
    passed = expected == actual
    if passed:
        explanation = f"behaviour {actual} as expected"
    else:
        said = f": {seg.text[:80]!r}" if seg.text else ""
        explanation = f"expected behaviour {expected}, got {actual}{said}"
    return Score(
        name=prefix + "behavior",
        value=1.0 if passed else 0.0,
        passed=passed,
        explanation=explanation,
        expected=expected,
        actual=actual,
    )


def score_forbidden(forbidden: Sequence[str], seg: Segment, prefix: str = "") -> Score:
    """Fails when any forbidden tool was called."""
    banned = set(forbidden)
    hits = Counter(r.call.name for r in seg.records if r.call.name in banned)
    if not hits:
        return Score(
            name=prefix + "forbidden_tools",
            value=1.0,
            passed=True,
            explanation=f"none of {sorted(banned)} called",
        )
    said = ", ".join(f"{n} ({c}×)" if c > 1 else n for n, c in hits.items())
    return Score(
        name=prefix + "forbidden_tools",
        value=0.0,
        passed=False,
        explanation=f"forbidden tool called: {said}",
        actual=", ".join(hits),
    )


def score_max_calls(limit: int, seg: Segment, prefix: str = "") -> Score:
    """Fails when the turn made more than ``limit`` tool calls."""
    n = len(seg.records)
    passed = n <= limit
    return Score(
        name=prefix + "max_calls",
        value=1.0 if passed else limit / n,
        passed=passed,
        explanation=f"{n} tool call(s), at most {limit} allowed",
        expected=str(limit),
        actual=str(n),
    )


def score_response_contains(needles: Sequence[str], seg: Segment, prefix: str = "") -> Score:
    """The final reply must contain each string (case-insensitive, whitespace-insensitive)."""
    hay = norm_text(seg.text or "", True, True)
    missing = [s for s in needles if norm_text(s, True, True) not in hay]
    found = len(needles) - len(missing)
    if not missing:
        explanation = f"reply contains {', '.join(repr(s) for s in needles)}"
    elif seg.text is None:
        explanation = f"no reply text; expected it to contain {', '.join(repr(s) for s in missing)}"
    else:
        explanation = f"reply does not contain {', '.join(repr(s) for s in missing)}"
    return Score(
        name=prefix + "response_contains",
        value=found / len(needles),
        passed=not missing,
        explanation=explanation,
    )
