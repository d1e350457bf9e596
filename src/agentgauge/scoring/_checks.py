"""Turn checks: behaviour (including recovery), forbidden tools, call budget, response text."""

from __future__ import annotations

import contextlib
import re
from collections import Counter
from collections.abc import Sequence

import orjson

from ..schema import Score, is_pattern, name_matches
from ._transcript import CallRecord, Segment
from ._values import MISSING, norm_text

__all__ = ["score_behavior", "score_forbidden", "score_max_calls", "score_response_contains"]

#: identical failing calls allowed before the agent is said to loop
MAX_IDENTICAL_FAILURES = 2

#: words that tell the user a tool call failed (English; curly apostrophes are normalised first)
_EXPLAINS = re.compile(
    r"\b(?:errors?|fail(?:s|ed|ing|ure)?|unable|couldn't|could not|can't|cannot|can not|"
    r"wasn't able|was not able|weren't able|not able to|isn't available|not available|"
    r"unavailable|unreachable|not responding|didn't respond|did not respond|no response|"
    r"not working|didn't work|did not work|went wrong|problems?|issues?|try again|timed out|"
    r"time ?out|(?:is|was|seems|appears to be) down|invalid|malformed|corrupt(?:ed)?|"
    r"unreadable|garbled|empty|unfortunately)\b"
)
#: "no errors", "without problems": these words then say the opposite
_NEGATED = re.compile(r"\b(?:no|without(?: any)?|zero)\s+(?:errors?|problems?|issues?|failures?)\b")
#: a JSON-looking fragment ({...} or [...]) inside a reply: a pasted payload, not words
_FRAGMENT = re.compile(r"\{[^{}]*\}|\[[^\[\]]*\]")
_WORD = re.compile(r"[^\W\d_]+")
#: words an explanation needs besides the pasted error text
MIN_EXPLANATION_WORDS = 3


def _call_key(rec: CallRecord) -> tuple[str, bytes]:
    try:
        args = orjson.dumps(rec.call.arguments, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        args = repr(sorted(rec.call.arguments.items())).encode()
    return rec.call.name, args


def _malformed(result: object) -> bool:
    """Text that looks like JSON but does not parse: a truncated or garbled tool result."""
    if not isinstance(result, str):
        return False
    head = result.lstrip()[:1]
    if head not in ("{", "["):
        return False
    try:
        orjson.loads(result)
    except orjson.JSONDecodeError:
        return True
    return False


def tool_failed(rec: CallRecord) -> bool:
    """Whether the call failed: an error result (error/exception/timeout faults, an empty
    result, error text, see :mod:`._transcript`) or a malformed one (JSON that does not parse)."""
    return rec.error or _malformed(rec.result)


def _payload_strings(value: object) -> list[str]:
    """The texts of a failed result that a reply might merely repeat (longest first)."""
    out: list[str] = []

    def walk(v: object) -> None:
        if isinstance(v, str):
            if v.strip():
                out.append(v.strip())
        elif isinstance(v, dict):
            for item in v.values():
                walk(item)
        elif isinstance(v, list):
            for item in v:
                walk(item)

    walk(value)
    if not isinstance(value, str) and value is not MISSING:
        with contextlib.suppress(TypeError):  # not JSON: its strings were collected above
            out.append(orjson.dumps(value).decode())
    return sorted(set(out), key=len, reverse=True)


def _explanation_problem(text: str, failed: Sequence[CallRecord]) -> str | None:
    """Why ``text`` is not a user-facing explanation of the failure (None: it is one).

    It must be words, not the error payload: a reply that is JSON, or that is left with fewer
    than :data:`MIN_EXPLANATION_WORDS` words once the failed results' texts and any pasted
    ``{...}`` fragment are removed, only repeats the error; and what remains must say that
    something failed (:data:`_EXPLAINS`, not negated as in "no errors").
    """
    stripped = text.strip()
    try:
        orjson.loads(stripped)
    except orjson.JSONDecodeError:
        pass
    else:
        return f"a reply that is only data, not an explanation: {stripped[:80]!r}"
    original = rest = stripped.replace("\u2019", "'").lower()
    for rec in failed:
        for piece in _payload_strings(rec.result):
            # whole words only: an error text "x" must not eat the x of "explain"
            rest = re.sub(rf"(?<!\w){re.escape(piece.lower())}(?!\w)", " ", rest)
    previous = None
    while previous != rest:
        previous, rest = rest, _FRAGMENT.sub(" ", rest)
    if len(_WORD.findall(rest)) < MIN_EXPLANATION_WORDS and rest != original:
        return f"a reply that only repeats the tool's error: {stripped[:80]!r}"
    if len(_WORD.findall(rest)) < MIN_EXPLANATION_WORDS or not _EXPLAINS.search(
        _NEGATED.sub(" ", rest)
    ):
        return f"a reply that does not say the call failed: {stripped[:80]!r}"
    return None


def _recovery(name: str, passed: bool | None, explanation: str, actual: str) -> Score:
    """A ``recover`` verdict (``passed`` None: nothing to recover from, value 1)."""
    return Score(
        name=name,
        value=0.0 if passed is False else 1.0,
        passed=passed,
        explanation=explanation,
        expected="recover",
        actual=actual,
    )


def _recover(seg: Segment, prefix: str) -> Score:
    """After a tool failure, the turn must end recovered: a later successful call (a retry or
    another tool) or a final reply explaining the failure in words; no identical failing loop.
    """
    name = prefix + "behavior"
    records = seg.records
    failed = [r for r in records if tool_failed(r)]
    if not failed:
        if not records:
            return _recovery(
                name,
                False,
                "expected to recover from a tool failure, but the agent called no tool "
                "in this turn",
                "no call",
            )
        return _recovery(
            name, None, "no tool failed in this turn; nothing to recover from", "no error"
        )
    failures = Counter(_call_key(r) for r in failed)
    (tool, args), worst = failures.most_common(1)[0]
    if worst > MAX_IDENTICAL_FAILURES:
        return _recovery(
            name,
            False,
            f"looped: the identical call {tool}({args.decode()}) failed {worst} times "
            f"(at most {MAX_IDENTICAL_FAILURES} allowed)",
            "loop",
        )
    last = failed[-1]
    failed_tool = last.call.name
    # a success counts only when made after the agent saw the failure (a later message), not
    # a call made alongside the failing one
    later = [
        r for r in records if r.pos > last.pos and r.result is not MISSING and not tool_failed(r)
    ]
    if later:
        retried = later[0].call.name in {r.call.name for r in failed}
        return _recovery(
            name,
            True,
            f"recovered: {later[0].call.name} succeeded after {failed_tool} failed"
            + ("" if retried else " (another way)"),
            "retried" if retried else "alternative",
        )
    text = seg.text
    if text is None or seg.text_pos <= last.pos:
        got = "no reply after it"
    else:
        problem = _explanation_problem(text, failed)
        if problem is None:
            return _recovery(
                name,
                True,
                f"recovered: explained the failed {failed_tool} call to the user",
                "explained",
            )
        got = problem
    return _recovery(
        name,
        False,
        f"did not recover from the failed {failed_tool} call: no successful retry and {got}",
        "unrecovered",
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
    globs = [f for f in forbidden if is_pattern(f)]
    hits = Counter(
        r.call.name
        for r in seg.records
        if r.call.name in banned or any(name_matches(g, r.call.name) for g in globs)
    )
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
