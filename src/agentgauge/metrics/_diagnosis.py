"""The diagnosis rates of one streaming pass (docs/metrics.md#diagnosis): intent recognition,
clarification, the tool-call decision and memory retention, one scored result at a time.

The summary (``_summarize.py``) and a comparison (``_compare.py``) both add results here, so
the comparison pairs exactly the verdicts the summary counts: with :attr:`DiagnosisAcc.seen`
set, each verdict of the result being added is recorded there as well (:func:`saw`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from ..schema import CaseResult
from ._acc import RateAcc
from ._model import Coverage, Diagnosis, IntentStats, Rate
from ._verdicts import (
    NO_CALL_BEHAVIORS,
    behavior_ok,
    first_turn_observation,
    saw,
    split_score_name,
)

__all__ = ["CLARIFY_CATEGORIES", "DiagnosisAcc"]

CLARIFY_CATEGORIES = frozenset({"ambiguous", "clarify"})


@dataclass(slots=True)
class DiagnosisAcc:
    """Streaming accumulator of the diagnosis rates (see the module notes)."""

    intent_acc: RateAcc = field(default_factory=RateAcc)
    intent_source: set[str] = field(default_factory=set)
    intent_tp: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    intent_fp: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    intent_fn: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    #: (tool, intent) co-occurrences, to attribute unexpected calls to an intent at the end
    tool_intent: defaultdict[tuple[str, str], int] = field(default_factory=lambda: defaultdict(int))
    unexpected_calls: defaultdict[str, int] = field(default_factory=lambda: defaultdict(int))
    multi_cases: int = 0
    multi_expected: int = 0
    multi_matched: int = 0
    multi_complete: RateAcc = field(default_factory=RateAcc)
    clarify: RateAcc = field(default_factory=RateAcc)
    call_decision: RateAcc = field(default_factory=RateAcc)
    memory: RateAcc = field(default_factory=RateAcc)
    memory_by: defaultdict[int, RateAcc] = field(default_factory=lambda: defaultdict(RateAcc))
    #: when not None, the verdicts of the result being added (metric -> [successes, verdicts];
    #: memory retention has one per checked turn), for a comparison to pair; the caller clears it
    seen: dict[str, list[int]] | None = None

    def add(self, r: CaseResult, selection: bool | None) -> None:
        """A scored result (errors and user errors are in no diagnosis rate); ``selection``:
        its tool-selection verdict (None: not applicable)."""
        called = list(dict.fromkeys(c.name for c in r.calls))
        # the expectation describes turn 0; judge a multi-turn result by what it did there
        called_any, behavior = bool(called), r.behavior
        first = first_turn_observation(r)
        if first is not None:
            called_any, behavior = first[0], first[1] or r.behavior
        expect_call = bool(r.expected_tools) or r.expected_behavior in ("tool_call", "any_tool")
        if expect_call or r.expected_behavior in NO_CALL_BEHAVIORS:
            self.call_decision.add(expect_call == called_any)
            saw(self.seen, "call_decision_accuracy", expect_call == called_any)
        if r.expected_behavior == "clarify" or (
            r.expected_behavior is None and r.category in CLARIFY_CATEGORIES
        ):
            self.clarify.add(behavior == "clarify")
            saw(self.seen, "clarification_rate", behavior == "clarify")
        labels = r.labels
        if labels is not None and labels.intents:
            self._intents(r, labels.intents, called, selection)
        self._memory(r)

    def _intents(
        self, r: CaseResult, intents: list[str], called: list[str], selection: bool | None
    ) -> None:
        expected = list(dict.fromkeys(intents))
        predicted_labels = r.predicted_labels
        if predicted_labels is not None and predicted_labels.intents:
            self.intent_source.add("predicted")
            got = set(predicted_labels.intents)
            matched = [i for i in expected if i in got]
            for extra in got.difference(expected):
                self.intent_fp[extra] += 1
        else:
            self.intent_source.add("calls")
            matched = self._intents_from_calls(r, expected, called, selection)
        for i in expected:
            if i in matched:
                self.intent_tp[i] += 1
            else:
                self.intent_fn[i] += 1
        all_matched = len(matched) == len(expected)
        self.intent_acc.add(all_matched)
        saw(self.seen, "intent_accuracy", all_matched)
        if len(expected) > 1:
            self.multi_cases += 1
            self.multi_expected += len(expected)
            self.multi_matched += len(matched)
            self.multi_complete.add(all_matched)

    def _intents_from_calls(
        self, r: CaseResult, expected: list[str], called: list[str], selection: bool | None
    ) -> list[str]:
        tools = list(dict.fromkeys(r.expected_tools))
        if not tools:
            # a no-tool intent (chit-chat, unsupported request) is served by the right behaviour
            ok = (
                r.status == "passed"
                if r.expected_behavior is None
                else (
                    r.behavior is not None
                    and behavior_ok(r.expected_behavior, r.behavior, bool(called))
                )
            )
            for tool in called:
                self.unexpected_calls[tool] += 1
            return list(expected) if ok else []
        if len(tools) == len(expected):
            # intent i is served by expected tool i
            for tool, intent in zip(tools, expected, strict=True):
                self.tool_intent[(tool, intent)] += 1
            for tool in called:
                if tool not in tools:
                    self.unexpected_calls[tool] += 1
            return [i for t, i in zip(tools, expected, strict=True) if t in called]
        ok = selection if selection is not None else set(tools) <= set(called)
        return list(expected) if ok else []

    def _memory(self, r: CaseResult) -> None:
        # the turn-level scores, each name split once (most results have none)
        turns = [
            (turn, name, s.passed)
            for s in r.scores
            for turn, name in (split_score_name(s.name),)
            if turn is not None
        ]
        if not turns:
            return
        failed_selection = {t for t, n, ok in turns if n == "tool_selection" and ok is False}
        # a ``memory`` score of any level makes the ``turn[i].memory`` scores the checks
        explicit = any(split_score_name(s.name)[1] == "memory" for s in r.scores)
        wanted = "memory" if explicit else "arguments"
        for turn, name, passed in turns:
            if name != wanted or turn < 1:
                continue
            ok = None if turn in failed_selection else passed
            self.memory.add(ok)
            self.memory_by[turn].add(ok)
            if ok is not None:  # a skipped check is in no rate
                saw(self.seen, "memory_retention", ok)

    def build(self, c: float, *, routing: Rate, skill: Rate) -> Diagnosis:
        """The summary's ``diagnosis`` (routing and skill are the module accumulator's)."""
        fp = dict(self.intent_fp)
        for tool, count in self.unexpected_calls.items():
            votes = [(n, i) for (t, i), n in self.tool_intent.items() if t == tool]
            if votes:
                intent = max(votes, key=lambda v: (v[0], v[1]))[1]
                fp[intent] = fp.get(intent, 0) + count
        names = sorted(set(self.intent_tp) | set(self.intent_fn) | set(fp))
        intents = [
            IntentStats.of(i, self.intent_tp[i], fp.get(i, 0), self.intent_fn[i]) for i in names
        ]
        return Diagnosis(
            intent_accuracy=self.intent_acc.build(c),
            intent_source="predicted" if "predicted" in self.intent_source else "calls",
            intents=intents,
            multi_intent=Coverage(
                cases=self.multi_cases,
                expected=self.multi_expected,
                matched=self.multi_matched,
                missed=self.multi_expected - self.multi_matched,
                complete=self.multi_complete.build(c),
            ),
            clarification_rate=self.clarify.build(c),
            routing_accuracy=routing,
            skill_accuracy=skill,
            call_decision_accuracy=self.call_decision.build(c),
            memory_retention=self.memory.build(c),
            retention_by_distance={str(k): v.build(c) for k, v in sorted(self.memory_by.items())},
        )
