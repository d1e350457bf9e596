"""Score every mutant (and the reference) of a case with the real scorers.

The scorers are the ones a run uses: ``scoring.score_case`` with the suite's scoring defaults,
then the suite's extra scorers that need no judge — ``numeric_grounding``,
``instruction_following``, and ``task_completion`` / ``safety`` with their deterministic rules
(their judge is not used), and the suite's own ``python:`` scorers when the user allows suite
code (``AuditConfig.code``). ``similarity`` runs when its offline embedding model is installed
(``agentgauge[embeddings]``: deterministic, no network). Scorers that need a judge model
(``equivalence``, the rubrics, ``groundedness``, ``behavior_judge``), ``similarity`` without its
model and ``python:`` scorers without the opt-in are skipped and listed in the audit. A wrong
transcript whose reply differs from the right one's, in a case a skipped scorer of the reply
applies to, is not decided: that scorer might have failed it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

import anyio

from .._suite_code import SuiteCodePolicy
from ..errors import SuiteCodeRefused, UserError
from ..schema import Case, CaseResult, Message, Suite, ToolCall, ToolSpec, UserSpec
from ..scoring import ScoringConfig, final_text, score_case, user_scores
from ..worlds import WorldBuilder, WorldOutcome
from ._mutants import AXES, Axis, CaseMutants, mutate_case
from ._world import STATE_AXES

__all__ = [
    "AuditConfig",
    "AxisCount",
    "CaseAudit",
    "MutantVerdict",
    "ReferenceVerdict",
    "SkippedScorer",
    "SuiteAudit",
    "audit_case",
    "audit_suite",
]

_GROUNDING_JUDGES: Final = frozenset({"groundedness"})
#: scorers that judge the agent's reply (a skipped one leaves a changed reply undecided)
_REPLY_SCORERS: Final = frozenset(
    {"equivalence", "response_quality", "relevance", "coherence", "fluency", "groundedness",
     "behavior_judge", "similarity"}
)  # fmt: skip
#: scorers that read ``expect.reference`` and score nothing without one
_REFERENCE_SCORERS: Final = frozenset({"similarity"})


@dataclass(frozen=True, kw_only=True)
class AuditConfig:
    """How to audit: the scoring rules, and an optional seeded sample of the cases."""

    scoring: ScoringConfig = field(default_factory=ScoringConfig)
    #: audit at most this many cases (a seeded random sample, in suite order); None: all
    sample: int | None = None
    seed: int = 0
    #: run the suite's extra scorers that need no judge (False: ``score_case`` alone)
    extra_scorers: bool = True
    #: the suite code policy a Python world is built under (None, or not allowed: the state
    #: checks of a suite with a Python world are not decided); a declarative world needs none
    code: SuiteCodePolicy | None = None


@dataclass(frozen=True, kw_only=True)
class MutantVerdict:
    """What the scorers said about one mutant. ``passed`` True: the mutant wrongly passed (the
    case cannot fail on this axis); None: not checked (only a skipped judge could tell)."""

    axis: Axis
    turn: int
    detail: str
    passed: bool | None
    #: why it failed (the scorers' explanation), or why it was not checked
    explanation: str = ""


@dataclass(frozen=True, kw_only=True)
class ReferenceVerdict:
    """The right transcript: ``passed`` None when it could not be built (``explanation`` says
    why); ``defined``: built from the case's expected calls or reference text."""

    passed: bool | None
    explanation: str = ""
    defined: bool = False


@dataclass(frozen=True, kw_only=True)
class CaseAudit:
    """The mutation audit of one case."""

    case_id: str
    reference: ReferenceVerdict
    verdicts: tuple[MutantVerdict, ...] = ()
    #: mutants that could not be built: (axis, why)
    unbuilt: tuple[tuple[Axis, str], ...] = ()

    @property
    def survivors(self) -> list[MutantVerdict]:
        """Mutants that passed: wrong transcripts the case does not catch."""
        return [v for v in self.verdicts if v.passed is True]

    @property
    def surviving_axes(self) -> list[Axis]:
        found = {v.axis for v in self.survivors}
        return [a for a in AXES if a in found]

    @property
    def checked(self) -> list[MutantVerdict]:
        return [v for v in self.verdicts if v.passed is not None]

    @property
    def cannot_fail(self) -> bool:
        """Every checked mutant passed: nothing tried makes this case fail (an error)."""
        checked = self.checked
        return bool(checked) and all(v.passed for v in checked)

    @property
    def reference_failed(self) -> bool:
        return self.reference.passed is False


@dataclass(frozen=True, kw_only=True)
class SkippedScorer:
    """A ``scorers:`` entry the audit did not run."""

    scorer: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class AxisCount:
    """Over the audited cases: how many an axis applied to, and in how many it survived."""

    axis: Axis
    cases: int
    survived: int


@dataclass(frozen=True, kw_only=True)
class SuiteAudit:
    """The mutation audit of a suite (or of a sample of its cases)."""

    suite: str
    cases: tuple[CaseAudit, ...]
    #: cases in the suite (``len(cases)`` is smaller when sampled)
    total_cases: int
    skipped_scorers: tuple[SkippedScorer, ...] = ()

    @property
    def cannot_fail(self) -> list[CaseAudit]:
        return [c for c in self.cases if c.cannot_fail]

    @property
    def reference_failures(self) -> list[CaseAudit]:
        return [c for c in self.cases if c.reference_failed]

    @property
    def failed(self) -> bool:
        """Whether some case cannot fail (``validate --mutate`` then exits 2)."""
        return any(c.cannot_fail for c in self.cases)

    def axes(self) -> list[AxisCount]:
        """Per axis: the cases it applied to and the cases where some mutant of it passed."""
        applied: dict[str, int] = dict.fromkeys(AXES, 0)
        survived: dict[str, int] = dict.fromkeys(AXES, 0)
        for c in self.cases:
            for axis in {v.axis for v in c.checked}:
                applied[axis] += 1
            for axis in set(c.surviving_axes):
                survived[axis] += 1
        return [
            AxisCount(axis=a, cases=applied[a], survived=survived[a]) for a in AXES if applied[a]
        ]


# ------------------------------------------------------------------------------------ scorers


def _extra_scorers(
    suite: Suite, code: SuiteCodePolicy | None
) -> tuple[list[Any], list[Any], list[SkippedScorer]]:
    """(scorers to run, their refs, skipped entries) of the suite's ``scorers:`` section."""
    if not suite.scorers:
        return [], [], []
    from ..judges import SCORER_INFO, build_scorers

    kept = []
    skipped: list[SkippedScorer] = []
    for ref in suite.scorers:
        info = SCORER_INFO.get(ref.scorer)
        if ref.scorer.startswith("python:"):
            checked, why = _own_scorer(ref.scorer, code)
            if checked is None:
                skipped.append(SkippedScorer(scorer=ref.scorer, reason=why))
            else:  # the user's opt-in: their check is audited like the built-in ones
                kept.append(ref.model_copy(update={"scorer": checked, "judge": None}))
        elif info is None:
            skipped.append(SkippedScorer(scorer=ref.scorer, reason="unknown scorer"))
        elif info.judge == "required":
            skipped.append(SkippedScorer(scorer=ref.scorer, reason="needs a judge model"))
        elif ref.scorer == "similarity" and (missing := _embedding_problem()):
            skipped.append(SkippedScorer(scorer=ref.scorer, reason=missing))
        else:
            # the deterministic rules only: a scorer that may use a judge is built without one
            kept.append(ref.model_copy(update={"judge": None}))
    return build_scorers(kept, judge_spec=None) if kept else [], kept, skipped


def _embedding_problem() -> str:
    """Why the similarity scorer's offline embedding model cannot run here ("" when it can)."""
    from ..scoring import embedding_problem

    return embedding_problem()


def _reply_judged_by(case: Case, skipped: Sequence[Any]) -> list[str]:
    """The skipped scorers that would judge this case's reply."""
    from ..schema import matches_case
    from ..scoring import final_expectation

    has_reference = bool(final_expectation(case).reference)
    return [
        r.scorer
        for r in skipped
        if r.scorer in _REPLY_SCORERS
        and matches_case(case, r.cases)
        and (has_reference or r.scorer not in _REFERENCE_SCORERS)
    ]


def _own_scorer(spec: str, code: SuiteCodePolicy | None) -> tuple[str | None, str]:
    """(the checked spec, "") of a suite's ``python:`` scorer the user's opt-in lets run, else
    (None, why it is not run)."""
    if code is None or not code.allowed:
        return None, "your own code: audited only with --allow-suite-code"
    try:
        return code.check_spec(spec, "scorer"), ""
    except SuiteCodeRefused as err:
        return None, f"not run: {err}"


def _grounding(c: Case, refs: Sequence[Any], skipped: Sequence[Any]) -> str:
    """``checked`` when a deterministic check of numbers applies to the case (or it has
    context), ``judge`` when only a skipped judge would check, else ``""``."""
    from ..schema import matches_case

    if any(r.scorer == "numeric_grounding" and matches_case(c, r.cases) for r in refs):
        return "checked"
    if any(r.scorer in _GROUNDING_JUDGES and matches_case(c, r.cases) for r in skipped):
        return "judge"
    return "checked" if c.context else ""


def _case_tools(case: Case, suite: Suite, suite_map: Mapping[str, ToolSpec]) -> dict[str, ToolSpec]:
    if case.tools is None:
        return dict(suite_map)
    return {t.name: t for t in suite.tools_for(case)}


def _first_messages(case: Case, suite: Suite) -> list[Message]:
    system = case.system if case.system is not None else suite.defaults.system
    msgs: list[Message] = []
    if isinstance(case.input, str):
        if system:
            msgs.append(Message(role="system", content=system))
        msgs.append(Message(role="user", content=case.input))
        return msgs
    if system and case.input[0].role != "system":
        msgs.append(Message(role="system", content=system))
    msgs.extend(case.input)
    return msgs


@dataclass(frozen=True, kw_only=True)
class _Scoring:
    suite: Suite
    config: ScoringConfig
    scorers: Sequence[Any]
    suite_map: Mapping[str, ToolSpec]
    #: the suite's world (None: none, or a Python world the audit may not run)
    world: WorldBuilder | None = None
    code: SuiteCodePolicy | None = None
    #: why the state checks are not decided (a Python world without the opt-in)
    world_problem: str | None = None


async def _verdict(
    case: Case,
    turns: list[list[Message]],
    tools: Mapping[str, ToolSpec],
    s: _Scoring,
    world: WorldOutcome | None = None,
) -> tuple[bool | None, str]:
    """(passed, explanation) of one transcript (and the world it left), as a run would score
    it."""
    given = {"world": world} if world is not None else {}
    try:
        verdict = score_case(case, turns, tools, s.config, **given)
    except Exception as exc:
        return None, f"scorer crashed: {type(exc).__name__}: {exc}"
    failed = verdict.status != "passed"
    lines = [verdict.explanation] if verdict.explanation else []
    user = s.suite.user_for(case)
    for sc in user_scores(user, turns) if user is not None else ():  # as a run grades them
        if sc.passed is False:
            failed = True
            lines.append(f"{sc.name}: {sc.explanation}")
    if s.scorers:
        result = _result(case, turns, s.suite)
        result.status = verdict.status
        result.scores = list(verdict.scores)
        for scorer in s.scorers:
            try:
                extra = await scorer.score(case, result, turns)
            except Exception as exc:
                name = getattr(scorer, "name", type(scorer).__name__)
                return None, f"scorer '{name}' crashed: {type(exc).__name__}: {exc}"
            for sc in extra:
                if sc.passed is False:
                    failed = True
                    lines.append(f"{sc.name}: {sc.explanation}" if sc.explanation else sc.name)
    return not failed, "\n".join(lines)


def _result(case: Case, turns: list[list[Message]], suite: Suite) -> CaseResult:
    calls: list[ToolCall] = []
    text: str | None = None
    messages = _first_messages(case, suite)
    for i, turn in enumerate(turns):
        if i > 0 and i - 1 < len(case.turns):
            messages.append(Message(role="user", content=case.turns[i - 1].user))
        for msg in turn:
            messages.append(msg)
            if msg.role == "assistant":
                calls.extend(msg.tool_calls)
                text = msg.content
    return CaseResult(
        case_id=case.id,
        status="passed",
        category=case.category,
        expected_behavior=case.expect.behavior,
        expected_tools=[c.name for c in case.expect.tool_calls],
        calls=calls,
        text=text,
        messages=messages,
    )


async def _audit_one(
    case: Case, s: _Scoring, refs: Sequence[Any], skipped: Sequence[Any]
) -> CaseAudit:
    grounding = _grounding(case, refs, skipped)
    made: CaseMutants = mutate_case(
        case, s.suite, grounding=bool(grounding), world=s.world, policy=s.code
    )
    undecided = s.world_problem if _checks_state(case) else None
    tools = _case_tools(case, s.suite, s.suite_map)
    made = _told(made, s.suite.user_for(case))
    if made.reference is None:
        # an expectation that accepts no value at all is a reference that fails
        reference = ReferenceVerdict(
            passed=False if made.impossible else None,
            explanation=made.reference_problem or "",
            defined=made.reference_defined,
        )
    else:
        passed, why = await _verdict(case, made.reference, tools, s, made.reference_world)
        if passed is False and undecided:
            passed, why = None, f"not decided: {undecided} ({why})"
        if passed is False and made.uses_fakes:
            # the fake's own result (a declined card, an empty search) was not produced
            passed = None
            why = f"not decided: the tools are Python fakes, which the audit does not run ({why})"
        reference = ReferenceVerdict(passed=passed, explanation=why, defined=made.reference_defined)
    verdicts: list[MutantVerdict] = []
    judged = _reply_judged_by(case, skipped)
    right_reply = final_text(None, made.reference or [])
    for m in made.mutants:
        if m.axis == "unsupported_number" and grounding == "judge":
            passed, why = None, "only a judge scorer (groundedness) checks this: skipped"
        elif undecided and m.axis in STATE_AXES:
            passed, why = None, f"not decided: {undecided}"
        else:
            passed, why = await _verdict(case, m.turns, tools, s, m.world)
            if passed and m.benign:
                passed, why = None, f"not a mistake: {m.benign}"
            elif passed and judged and final_text(None, m.turns) != right_reply:
                # the deterministic checks let it through, but a skipped scorer reads the reply
                # this mutant changed: it may well fail there (a false "cannot fail" otherwise)
                names = ", ".join(judged)
                passed, why = None, f"not decided: the reply changed and {names} (skipped) reads it"
        verdicts.append(
            MutantVerdict(axis=m.axis, turn=m.turn, detail=m.detail, passed=passed, explanation=why)
        )
    verdicts.extend(await _leaks(case, made, tools, s))
    return CaseAudit(
        case_id=case.id,
        reference=reference,
        verdicts=tuple(verdicts),
        unbuilt=tuple(made.unbuilt),
    )


#: mutants whose whole reply is a stock text (the agent did not do the task): they keep it
_WHOLE_REPLY: frozenset[str] = frozenset({"text_only", "refusal", "clarify"})


def _told(made: CaseMutants, user: UserSpec | None) -> CaseMutants:
    """A case whose simulated user must be told things (``user.tell``): the right transcript
    tells them in its last reply, and so does every mutant made from it (a mutant then fails on
    its own change, not for the missing words); a stock reply stays as it is."""
    if user is None or not user.tell:
        return made
    words = " ".join(user.tell)

    def tell(turns: list[list[Message]] | None) -> list[list[Message]] | None:
        if turns is None:
            return None
        out = [list(t) for t in turns] or [[]]
        last = out[-1]
        for i in range(len(last) - 1, -1, -1):
            if last[i].role == "assistant" and last[i].content:
                last[i] = last[i].model_copy(update={"content": f"{last[i].content} {words}"})
                return out
        last.append(Message(role="assistant", content=words))
        return out

    mutants = [
        m if m.axis in _WHOLE_REPLY else replace(m, turns=tell(m.turns) or m.turns)
        for m in made.mutants
    ]
    return replace(made, reference=tell(made.reference), mutants=mutants)


async def _leaks(
    case: Case, made: CaseMutants, tools: Mapping[str, ToolSpec], s: _Scoring
) -> list[MutantVerdict]:
    """A case with a simulated user: the right transcript, then a reply that says something the
    agent must not obtain (``user.must_not_obtain``) — one mutant per secret."""
    user = s.suite.user_for(case)
    if user is None or made.reference is None:
        return []
    out: list[MutantVerdict] = []
    for name, text in zip(user.must_not_obtain, user.secret_texts(), strict=True):
        turns = [list(t) for t in made.reference] or [[]]
        turns[-1].append(Message(role="assistant", content=f"Noted, your {name} is {text}."))
        passed, why = await _verdict(case, turns, tools, s, made.reference_world)
        detail = f"the agent says the user's {name}"
        out.append(
            MutantVerdict(axis="leak_secret", turn=0, detail=detail, passed=passed, explanation=why)
        )
    return out


def _checks_state(case: Case) -> bool:
    return any(e is not None and e.state is not None
               for e in [case.expect, *(t.expect for t in case.turns)])  # fmt: skip


def _world(suite: Suite, code: SuiteCodePolicy | None) -> tuple[WorldBuilder | None, str | None]:
    """The suite's world for the audit, or why its state checks cannot be decided: a Python
    world's class runs only under a policy that allows suite code."""
    if suite.world is None:
        return None, None
    builder = WorldBuilder(suite.world, code)
    if suite.world.class_ is None:  # declarative, or built in (agentgauge's own code)
        return builder, None
    why = (
        f"the world is a Python class ({suite.world.class_}), which the audit runs only with "
        "--allow-suite-code"
    )
    if code is None or not code.allowed:
        return None, why
    try:
        builder.load(code)
    except UserError as exc:
        return None, f"the world class cannot be loaded: {exc}"
    return builder, None


def _sample(cases: Sequence[Case], config: AuditConfig) -> list[Case]:
    if config.sample is None or config.sample >= len(cases):
        return list(cases)
    picked = sorted(random.Random(config.seed).sample(range(len(cases)), config.sample))
    return [cases[i] for i in picked]


def audit_suite(suite: Suite, config: AuditConfig | None = None) -> SuiteAudit:
    """Build and score the mutants of every case of ``suite`` (no agent, no judge, no network).

    A case whose every mutant passes cannot fail (``SuiteAudit.failed``); a reference transcript
    that fails points at an expectation no correct agent meets, or at a reference text that is
    not the reply the expectation asks for.
    """
    config = config or AuditConfig()
    scorers: list[Any] = []
    refs: list[Any] = []
    skipped: list[SkippedScorer] = []
    if config.extra_scorers:
        scorers, refs, skipped = _extra_scorers(suite, config.code)
    skipped_refs = [r for r in suite.scorers if any(s.scorer == r.scorer for s in skipped)]
    world, world_problem = _world(suite, config.code)
    s = _Scoring(
        suite=suite,
        config=config.scoring.for_suite(suite),
        scorers=scorers,
        suite_map=suite.tool_map(),
        world=world,
        code=config.code,
        world_problem=world_problem,
    )
    chosen = _sample(suite.cases, config)

    async def run() -> list[CaseAudit]:
        return [await _audit_one(c, s, refs, skipped_refs) for c in chosen]

    audits = anyio.run(run)
    return SuiteAudit(
        suite=suite.name,
        cases=tuple(audits),
        total_cases=len(suite.cases),
        skipped_scorers=tuple(skipped),
    )


def audit_case(case: Case, suite: Suite, config: AuditConfig | None = None) -> CaseAudit:
    """The mutation audit of one case of ``suite``."""
    one = suite.model_copy(update={"cases": [case]})
    return audit_suite(one, replace(config or AuditConfig(), sample=None)).cases[0]
