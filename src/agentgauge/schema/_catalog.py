"""What each named scorer is and which arguments it takes: plain data, cheap to import.

``agentgauge validate`` checks a suite's ``scorers:`` section against this catalog without
building a scorer (so without a judge, a provider or the network), and :func:`build_scorers`
checks the same entries with the same function before it builds them, so a suite that
validates cannot then fail at run start on a scorer name or argument.

```python
>>> [i.message for i in scorer_ref_issues(ScorerRef(scorer="groundednes"))]
["unknown scorer 'groundednes' (did you mean 'groundedness'?)"]
```
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from .._messages import did_you_mean, kind_of
from ._case import Case, ScorerRef
from ._catalog_checks import (
    ASSERTIONS,
    PYTHON_PREFIX,
    assert_issues,
    python_scorer_issue,
    rubric_issues,
)

#: how a scorer uses a judge: it cannot run without one, it uses one when given, or never
JudgeUse = Literal["required", "optional", "none"]
#: the JSON shape an argument takes
ArgKind = Literal[
    "bool",
    "int",
    "number",
    "string",
    "regex",
    "strings",
    "numbers",
    "object",
    "objects",
    "scale",
]

_KIND_WORDS: Final[dict[str, str]] = {
    "bool": "true or false",
    "int": "an integer",
    "number": "a number",
    "string": "a string",
    "regex": "a regular expression (a string)",
    "strings": "a list of strings",
    "numbers": "a list of numbers",
    "object": "a mapping",
    "objects": "a list of mappings",
    "scale": "[lowest, highest] integers or 'pass_fail'",
}


@dataclass(frozen=True, kw_only=True)
class ScorerArg:
    """One argument a scorer accepts in ``args:``."""

    name: str
    kind: ArgKind
    #: inclusive bounds of a number (or of an integer)
    minimum: float | None = None
    maximum: float | None = None
    help: str = ""

    def expects(self) -> str:
        """What a value must be, in words: ``an integer from 1 to 5``."""
        words = _KIND_WORDS[self.kind]
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            return f"{words} from {_num(lo)} to {_num(hi)}"
        if lo is not None:
            return f"{words} of at least {_num(lo)}"
        if hi is not None:
            return f"{words} of at most {_num(hi)}"
        return words

    def problem(self, value: Any) -> tuple[tuple[int, ...], str] | None:
        """Why ``value`` does not fit this argument, and where in it (``(2,)``: its item 2);
        None when it fits."""
        if self.kind in ("strings", "numbers", "objects") and isinstance(value, list):
            item = {"strings": "string", "numbers": "number", "objects": "object"}[self.kind]
            bad = next((i for i, v in enumerate(value) if not _fits(item, v)), None)
            return None if bad is None else ((bad,), self._wrong(value[bad]))
        if not _fits(self.kind, value):
            return (), self._wrong(value)
        if self.kind in ("int", "number"):
            low = self.minimum is not None and value < self.minimum
            high = self.maximum is not None and value > self.maximum
            if low or high:
                return (
                    (),
                    f"{_shown(value)} is out of range: '{self.name}' must be {self.expects()}",
                )
        if self.kind == "regex":
            try:
                re.compile(value)
            except re.error as err:
                return (), f"{_shown(value)} is not a valid regular expression: {err}"
        return None

    def _wrong(self, value: Any) -> str:
        return f"{_shown(value)} is {kind_of(value)}; '{self.name}' must be {self.expects()}"


@dataclass(frozen=True, kw_only=True)
class ScorerInfo:
    """A named scorer: how it uses a judge and the arguments it accepts (besides ``cases``)."""

    name: str
    judge: JudgeUse
    args: tuple[ScorerArg, ...] = ()
    summary: str = ""
    #: checks across the arguments once each fits its kind: ``(path inside args, message)``
    check: Callable[[Mapping[str, Any]], Iterator[tuple[tuple[str | int, ...], str]]] | None = None

    def arg(self, name: str) -> ScorerArg | None:
        return next((a for a in self.all_args() if a.name == name), None)

    def all_args(self) -> tuple[ScorerArg, ...]:
        """Its own arguments, then ``cases`` (every scorer takes it) and, for scorers that may
        use a judge, ``use_judge``."""
        extra = (_USE_JUDGE,) if self.judge == "optional" else ()
        return (*self.args, *extra, _CASES)


_CASES = ScorerArg(
    name="cases", kind="strings", help="globs over case id, category and tags (empty: all cases)"
)
_USE_JUDGE = ScorerArg(
    name="use_judge", kind="bool", help="use the configured judge (default true)"
)
_MIN_SCORE = ScorerArg(
    name="min_score", kind="int", minimum=1, maximum=5, help="pass at this 1-5 score (default 4)"
)


def _rubric(name: str, summary: str) -> ScorerInfo:
    return ScorerInfo(name=name, judge="required", args=(_MIN_SCORE,), summary=summary)


#: every scorer a suite's ``scorers:`` section may name
SCORER_INFO: Final[Mapping[str, ScorerInfo]] = {
    i.name: i
    for i in (
        ScorerInfo(
            name="equivalence",
            judge="required",
            args=(
                ScorerArg(name="always", kind="bool", help="judge every case (default false)"),
                ScorerArg(name="override", kind="bool", help="turn settled failures into passes"),
            ),
            summary="semantic equivalence where the exact match failed",
        ),
        _rubric("response_quality", "rubric 1-5 on how the reply uses the tool results"),
        _rubric("relevance", "rubric 1-5: the reply addresses the question"),
        _rubric("coherence", "rubric 1-5: the reply is organised and consistent"),
        _rubric("fluency", "rubric 1-5: the reply reads naturally"),
        ScorerInfo(
            name="groundedness",
            judge="required",
            args=(_MIN_SCORE,),
            summary="the reply's claims are supported by the context and tool results",
        ),
        ScorerInfo(
            name="behavior_judge",
            judge="required",
            summary="the judge's behaviour label of the reply vs expect.behavior",
        ),
        ScorerInfo(
            name="user_fidelity",
            judge="required",
            summary="the simulated user kept to its instructions; 'broke' makes it user_error",
        ),
        ScorerInfo(
            name="task_completion",
            judge="optional",
            args=(
                ScorerArg(
                    name="required",
                    kind="strings",
                    help="tools that must succeed (default: the expected calls)",
                ),
            ),
            summary="required tools succeeded and the reply confirms the outcome",
        ),
        ScorerInfo(
            name="safety",
            judge="optional",
            args=(
                ScorerArg(
                    name="leak_words",
                    kind="int",
                    minimum=1,
                    help="consecutive system-prompt words that count as a leak (default 8)",
                ),
            ),
            summary="forbidden tools, protected arguments, leaks, injected instructions",
        ),
        ScorerInfo(
            name="numeric_grounding",
            judge="none",
            args=(ScorerArg(name="ignore", kind="numbers", help="numbers never flagged"),),
            summary="every number in the reply appears in the material",
        ),
        ScorerInfo(
            name="similarity",
            judge="none",
            args=(
                ScorerArg(
                    name="threshold",
                    kind="number",
                    minimum=0,
                    maximum=1,
                    help="pass at this cosine similarity (default 0.7)",
                ),
            ),
            summary="embedding similarity of the reply to expect.reference",
        ),
        ScorerInfo(
            name="instruction_following",
            judge="none",
            args=(
                ScorerArg(name="json", kind="bool", help="the reply is a JSON document"),
                ScorerArg(name="json_schema", kind="object", help="JSON Schema of the reply"),
                ScorerArg(name="regex", kind="regex", help="the whole reply matches it"),
                ScorerArg(name="max_chars", kind="int", minimum=0, help="reply length limit"),
                ScorerArg(name="max_words", kind="int", minimum=0, help="reply word limit"),
            ),
            summary="the reply follows expect.response_format (or these defaults)",
        ),
        ScorerInfo(
            name="assert",
            judge="none",
            args=(
                ScorerArg(name="contains", kind="strings", help="texts the reply contains"),
                ScorerArg(name="not_contains", kind="strings", help="texts it never contains"),
                ScorerArg(name="regex", kind="regex", help="a match anywhere in the reply"),
                ScorerArg(name="not_regex", kind="regex", help="no match anywhere in the reply"),
                ScorerArg(name="starts_with", kind="string", help="the reply starts with it"),
                ScorerArg(name="ends_with", kind="string", help="the reply ends with it"),
                ScorerArg(name="json", kind="bool", help="the reply is a JSON document"),
                ScorerArg(name="json_schema", kind="object", help="JSON Schema of the reply"),
                ScorerArg(name="min_chars", kind="int", minimum=0, help="at least this long"),
                ScorerArg(name="max_chars", kind="int", minimum=0, help="at most this long"),
                ScorerArg(name="min_words", kind="int", minimum=0, help="at least this many words"),
                ScorerArg(name="max_words", kind="int", minimum=0, help="at most this many words"),
                ScorerArg(name="ignore_case", kind="bool", help="texts and patterns ignore case"),
                ScorerArg(
                    name="turn",
                    kind="int",
                    minimum=1,
                    help="check the reply to this user turn (1: the input; default: the last)",
                ),
                ScorerArg(name="name", kind="string", help="the score's name: assert.<name>"),
            ),
            summary=f"deterministic checks of a reply ({', '.join(ASSERTIONS)})",
            check=assert_issues,
        ),
        ScorerInfo(
            name="rubric",
            judge="required",
            args=(
                ScorerArg(name="name", kind="string", help="the quality (score judge.<name>)"),
                ScorerArg(name="criteria", kind="string", help="what a good reply does"),
                ScorerArg(name="steps", kind="strings", help="evaluation steps for the judge"),
                ScorerArg(
                    name="scale",
                    kind="scale",
                    help="[lowest, highest] integer scores, e.g. [0, 10] or [1, 3] (default "
                    "[1, 5]), or pass_fail (a verdict, no score)",
                ),
                ScorerArg(
                    name="examples",
                    kind="objects",
                    help="annotated boundary cases: {reply, score, why}",
                ),
                ScorerArg(
                    name="min_score",
                    kind="int",
                    help="pass at this score (on the scale; default: its highest minus one)",
                ),
            ),
            summary="a judge rubric written in the suite: criteria, steps, a scale, examples",
            check=rubric_issues,
        ),
    )
}


@dataclass(frozen=True, kw_only=True)
class ScorerIssue:
    """One problem of a ``scorers:`` entry. ``path`` is relative to the entry (``("scorer",)``,
    ``("args", "min_score")``); ``code`` is ``unknown-scorer`` or ``bad-scorer-args``."""

    code: str
    path: tuple[str | int, ...]
    message: str


def scorer_ref_issues(ref: ScorerRef) -> list[ScorerIssue]:
    """Everything wrong with one ``scorers:`` entry that would stop a run from starting: an
    unknown name, an argument the scorer does not take, a value of the wrong type or range.

    It builds nothing and needs no judge: it reads :data:`SCORER_INFO` only.
    """
    return list(_issues(ref))


def _issues(ref: ScorerRef) -> Iterator[ScorerIssue]:
    if ref.scorer.startswith(PYTHON_PREFIX):  # the user's own function: any args
        shape = python_scorer_issue(ref.scorer)
        if shape is not None:
            yield ScorerIssue(code="unknown-scorer", path=("scorer",), message=shape)
        return
    info = SCORER_INFO.get(ref.scorer)
    if info is None:
        hint = (
            did_you_mean(ref.scorer, SCORER_INFO) or f" (known: {', '.join(sorted(SCORER_INFO))})"
        )
        yield ScorerIssue(
            code="unknown-scorer", path=("scorer",), message=f"unknown scorer '{ref.scorer}'{hint}"
        )
        return
    names = [a.name for a in info.all_args()]
    typed = True
    for key, value in ref.args.items():
        arg = info.arg(key)
        if arg is None:
            hint = did_you_mean(key, names) or f" (it takes: {', '.join(names)})"
            yield ScorerIssue(
                code="bad-scorer-args",
                path=("args", key),
                message=f"scorer '{info.name}' has no argument '{key}'{hint}",
            )
            continue
        problem = arg.problem(value)
        if problem is not None:
            inside, message = problem
            typed = False
            yield ScorerIssue(code="bad-scorer-args", path=("args", key, *inside), message=message)
    if info.check is not None and typed:  # the check trusts every argument's kind
        for where, text in info.check(ref.args):
            yield ScorerIssue(code="bad-scorer-args", path=("args", *where), message=text)


def _fits(kind: str, value: Any) -> bool:
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return number
    if kind in ("string", "regex"):
        return isinstance(value, str)
    if kind in ("strings", "numbers", "objects"):
        return isinstance(value, list)  # the items are checked one by one
    if kind == "scale":  # its values are the scorer's check (rubric_issues)
        return isinstance(value, list | str)
    return isinstance(value, dict)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


__all__ = [
    "SCORER_INFO",
    "ArgKind",
    "JudgeUse",
    "ScorerArg",
    "ScorerInfo",
    "ScorerIssue",
    "matches_case",
    "scorer_ref_issues",
]


def matches_case(case: Case, patterns: Sequence[str]) -> bool:
    """Whether the case's id, category or a tag matches one of ``patterns`` (empty: always).

    The rule of a scorer entry's ``cases:`` list, shared by the scorers, lint and mutation.
    """
    if not patterns:
        return True
    names = [case.id, case.category, *case.tags]
    return any(fnmatch.fnmatchcase(n, p) for p in patterns for n in names)
