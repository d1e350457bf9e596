"""The ``assert`` scorer: deterministic checks of one reply, named in a suite's ``scorers:``.

```yaml
scorers:
  - scorer: assert
    args: {contains: ["refund"], not_contains: ["guarantee"], max_words: 80}
  - scorer: assert
    args: {name: greeting, turn: 1, starts_with: "Hello", ignore_case: true}
```

It checks the final reply, or with ``turn: N`` the agent's last text reply to user turn N
(1: the case input). The format checks (``json``, ``json_schema``, ``max_chars``,
``max_words``) are the ones ``instruction_following`` makes (:func:`check_format`); ``regex``
here is *searched* anywhere in the reply (``instruction_following``'s ``regex`` must match the
whole reply). The score's parts list every assertion, each with its own verdict.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from ..schema import Case, CaseResult, Message, ResponseFormat, Score, matches_case
from ..scoring import final_text
from ._checks import check_format


class AssertScorer:
    """Every assertion given must hold on the reply; ``value`` is the fraction that hold."""

    def __init__(
        self,
        *,
        contains: Sequence[str] = (),
        not_contains: Sequence[str] = (),
        regex: str | None = None,
        not_regex: str | None = None,
        starts_with: str | None = None,
        ends_with: str | None = None,
        json: bool = False,
        json_schema: dict[str, Any] | None = None,
        min_chars: int | None = None,
        max_chars: int | None = None,
        min_words: int | None = None,
        max_words: int | None = None,
        ignore_case: bool = False,
        turn: int | None = None,
        name: str | None = None,
        cases: Sequence[str] = (),
    ) -> None:
        self.cases = tuple(cases)
        self.name = f"assert.{name}" if name else "assert"
        self.contains = tuple(contains)
        self.not_contains = tuple(not_contains)
        flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
        self.regex = re.compile(regex, flags) if regex is not None else None
        self.not_regex = re.compile(not_regex, flags) if not_regex is not None else None
        self.starts_with = starts_with
        self.ends_with = ends_with
        self.fmt = ResponseFormat.model_validate(
            {
                "json": json,
                "json_schema": json_schema,
                "max_chars": max_chars,
                "max_words": max_words,
            }
        )
        self.min_chars = min_chars
        self.min_words = min_words
        self.ignore_case = ignore_case
        self.turn = turn

    def _reply(self, result: CaseResult, turns: Sequence[Sequence[Message]]) -> str | None:
        if self.turn is None:
            return final_text(result, turns)
        if self.turn > len(turns):
            return None
        texts = [m.content for m in turns[self.turn - 1] if m.role == "assistant" and m.content]
        return texts[-1] if texts else ""

    async def score(
        self, case: Case, result: CaseResult, turns: Sequence[Sequence[Message]]
    ) -> list[Score]:
        if not matches_case(case, self.cases):
            return []
        reply = self._reply(result, turns)
        if reply is None:
            return [
                Score(
                    name=self.name,
                    value=0.0,
                    passed=False,
                    explanation=f"turn {self.turn}: the transcript has only {len(turns)} turn(s)",
                )
            ]
        parts = list(self._parts(reply))
        bad = [p for p in parts if not p.passed]
        where = f"turn {self.turn} reply" if self.turn else "reply"
        return [
            Score(
                name=self.name,
                value=1 - len(bad) / len(parts) if parts else 1.0,
                passed=not bad,
                explanation=(
                    f"{where}: " + "; ".join(p.explanation for p in bad)
                    if bad
                    else f"{where}: all {len(parts)} assertion(s) hold"
                ),
                actual=_short(reply),
                parts=parts,
            )
        ]

    def _parts(self, reply: str) -> Iterator[Score]:
        def fold(s: str) -> str:
            return s.casefold() if self.ignore_case else s

        text = fold(reply)
        for want in self.contains:
            ok = fold(want) in text
            yield _part("contains", ok, f"{'contains' if ok else 'does not contain'} {want!r}")
        for never in self.not_contains:
            ok = fold(never) not in text
            yield _part("not_contains", ok, f"{'does not contain' if ok else 'contains'} {never!r}")
        if self.regex is not None:
            ok = self.regex.search(reply) is not None
            yield _part(
                "regex", ok, f"{'matches' if ok else 'no match for'} /{self.regex.pattern}/"
            )
        if self.not_regex is not None:
            m = self.not_regex.search(reply)
            said = f"matches /{self.not_regex.pattern}/ at {m.group(0)!r}" if m else "no match"
            yield _part("not_regex", m is None, said)
        if self.starts_with is not None:
            ok = text.lstrip().startswith(fold(self.starts_with))
            yield _part(
                "starts_with",
                ok,
                f"{'starts' if ok else 'does not start'} with {self.starts_with!r}"
                + ("" if ok else f" (starts {_short(reply.lstrip(), 30)!r})"),
            )
        if self.ends_with is not None:
            ok = text.rstrip().endswith(fold(self.ends_with))
            yield _part(
                "ends_with",
                ok,
                f"{'ends' if ok else 'does not end'} with {self.ends_with!r}"
                + ("" if ok else f" (ends {reply.rstrip()[-30:]!r})"),
            )
        n_chars, n_words = len(reply), len(reply.split())
        if self.min_chars is not None:
            ok = n_chars >= self.min_chars
            yield _part("min_chars", ok, f"{n_chars} characters, at least {self.min_chars}")
        if self.fmt.max_chars is not None:
            ok = n_chars <= self.fmt.max_chars
            yield _part("max_chars", ok, f"{n_chars} characters, at most {self.fmt.max_chars}")
        if self.min_words is not None:
            ok = n_words >= self.min_words
            yield _part("min_words", ok, f"{n_words} words, at least {self.min_words}")
        if self.fmt.max_words is not None:
            ok = n_words <= self.fmt.max_words
            yield _part("max_words", ok, f"{n_words} words, at most {self.fmt.max_words}")
        if self.fmt.json_ or self.fmt.json_schema is not None:
            # the JSON checks are instruction_following's own (check_format)
            json_only = self.fmt.model_copy(update={"max_chars": None, "max_words": None})
            problems = check_format(reply, json_only)
            label = "json_schema" if self.fmt.json_schema is not None else "json"
            yield _part(label, not problems, "; ".join(problems) or "valid JSON")


def _part(name: str, ok: bool, explanation: str) -> Score:
    return Score(name=name, value=1.0 if ok else 0.0, passed=ok, explanation=explanation)


def _short(text: str, n: int = 200) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


__all__ = ["AssertScorer"]
