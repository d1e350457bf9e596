"""One recorded response made into its case's result, scored as ``agentgauge run`` scores a
driven case: what ``agentgauge score`` does for every (case, trial), in this process
(``_recorded.py``) or in a worker process (``_recorded_procs.py``) alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from .._suite_code import SuiteCodePolicy
from ..exchange import RecordedResponse
from ..schema import Case, CaseResult, Message, Suite, ToolSpec, TraceEvent, UserSpec
from ..scoring import ScoringConfig
from ..users import recorded_user_error
from ..worlds import WorldBuilder
from ._case import build_result, grade_with_user, score_result
from ._config import ExtraScorer, RunConfig
from ._loop import Transcript
from ._workers import error_result
from ._world import recorded_world

__all__ = ["BATCH", "NO_RESPONSE", "Item", "RecordedScoring", "recorded_result", "suite_world"]

NO_RESPONSE: Final = "no response"
#: responses per request to a worker process (a request and its reply each cost a wake-up of
#: both processes and a pickle: one per response would cost more than scoring a simple case)
BATCH: Final = 128
#: one (case, trial) to score: (the case's index in the suite, the case, the trial, its
#: recorded response or None)
Item = tuple[int, Case, int, RecordedResponse | None]


@dataclass(frozen=True, kw_only=True)
class RecordedScoring:
    """What every recorded response of a run is scored with: the suite (its tools, users,
    world), the scoring rules, the suite's extra scorers and the world builder."""

    suite: Suite
    scoring: ScoringConfig
    extra: Sequence[ExtraScorer]
    world: tuple[WorldBuilder, SuiteCodePolicy] | None = None
    _tools: dict[str, ToolSpec] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._tools.update((t.name, t) for t in self.suite.tools)

    def case_tools(self, case: Case) -> dict[str, ToolSpec]:
        """The tools the case offers, by name (its own list, else every suite tool)."""
        if case.tools is None:
            return dict(self._tools)
        out: dict[str, ToolSpec] = {}
        for t in case.tools:
            if isinstance(t, ToolSpec):
                out[t.name] = t
            elif t in self._tools:
                out[t] = self._tools[t]
        return out

    async def result(self, case: Case, trial: int, response: RecordedResponse | None) -> CaseResult:
        """The case's result for ``response`` (None: no response). A scorer or agentgauge
        failing on it is an ``error`` on that case, as in a run: the others are scored."""
        try:
            return await recorded_result(
                case, trial, response, self.case_tools(case), self.scoring, self.extra,
                self.world, self.suite.user_for(case),
            )  # fmt: skip
        except Exception as exc:
            return error_result(case, trial, f"internal error: {type(exc).__name__}: {exc}")


def suite_world(suite: Suite, base: RunConfig) -> tuple[WorldBuilder, SuiteCodePolicy] | None:
    """The suite's world builder (a Python world's class checked as suite code, then
    imported) and the policy to build under; None without a world."""
    if suite.world is None:
        return None
    policy = base.code_policy()
    builder = WorldBuilder(suite.world)
    builder.load(policy)
    return builder, policy


async def recorded_result(
    case: Case,
    trial: int,
    response: RecordedResponse | None,
    tools: dict[str, ToolSpec],
    scoring: ScoringConfig,
    extra: Sequence[ExtraScorer],
    world: tuple[WorldBuilder, SuiteCodePolicy] | None = None,
    user: UserSpec | None = None,
) -> CaseResult:
    """The result of one recorded response, built and scored as the runner does for a driven
    case (a case without a response is an ``error``: "no response"). With a suite world, the
    recorded calls are applied to a fresh one, turn by turn, and its state graded. A case with
    a simulated user (``user``) is graded as a run grades it: the recorded conversation's user
    messages checked against the user's instructions, ``expect`` on the whole conversation."""
    if response is None:
        result = build_result(case, trial, Transcript(), 0.0)
        result.error = result.explanation = NO_RESPONSE
        return result
    turns = response.turns(tools.keys(), 1 + len(case.turns))
    whole = response.conversation if response.conversation is not None else response.messages
    messages = list(whole) if whole is not None else []
    user_error = None
    if user is not None:  # one turn: every agent message after the opening
        turns = [_agent_part(messages) if messages else turns[0]]
        opening = [case.input] if isinstance(case.input, str) else []
        user_error = recorded_user_error(user, opening, messages)
    tr = Transcript(messages=messages, turns=turns, labels=response.labels)
    if response.trace is not None:
        _steps_into(tr, response.trace)
    result = build_result(case, trial, tr, response.latency_ms or 0.0)
    result.text = response.text
    result.trace_id, result.feedback = response.trace_id, response.feedback
    if not any(e.kind == "tool" for e in tr.trace):
        result.tool_calls = len(result.calls)
    models = [e for e in tr.trace if e.kind == "model"]
    result.usage_recorded = not models or any(e.usage is not None for e in models)
    outcome = None
    if world is not None:
        run, outcome, problem = recorded_world(case, world[0], turns, world[1])
        if problem is not None:
            result.error = result.explanation = problem
            return result
        assert run is not None
        result.world = run.record()
    if user is not None:
        await grade_with_user(case, result, turns, user, user_error, tools, scoring, extra, outcome)
    else:
        await score_result(case, result, turns, tools, scoring, extra, world=outcome)
    if response.decode_error and result.status != "passed":
        note = f"(response not decodable: {response.decode_error})"
        result.explanation = f"{result.explanation}\n{note}".strip()
    return result


def _agent_part(conversation: list[Message]) -> list[Message]:
    """The agent's messages (and the tool results) after the first user message."""
    first = next((i for i, m in enumerate(conversation) if m.role == "user"), -1)
    return [m for m in conversation[first + 1 :] if m.role not in ("user", "system")]


def _steps_into(tr: Transcript, steps: Sequence[TraceEvent]) -> None:
    """A traced response's steps as the transcript's performance record (what a driven run
    counts): the steps, model and tool call counts, tokens summed over the model steps that
    report usage, and the first time to first token. A step without usage adds nothing."""
    tr.trace = list(steps)
    for e in steps:
        if e.kind == "tool":
            tr.tool_calls += 1
            continue
        tr.model_calls += 1
        if e.usage is not None:
            tr.input_tokens += e.usage.input_tokens
            tr.output_tokens += e.usage.output_tokens
        if tr.ttft_ms is None and e.ttft_ms is not None:
            tr.ttft_ms = e.ttft_ms
