"""Running one case and trial: the agent loop under a timeout, then scoring, into a CaseResult."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

import anyio

from .. import scoring as scoring_api
from ..errors import ProviderError
from ..providers import (
    GenerateConfig,
    Provider,
    RequestKeys,
    ResponseCache,
    RetryPolicy,
)
from ..schema import (
    Case,
    CaseResult,
    FaultRate,
    Message,
    Suite,
    ToolCall,
    ToolMode,
    ToolSim,
    ToolSpec,
    Usage,
    UserSpec,
    WorldRecord,
)
from ..worlds import WorldOutcome
from ._config import ExtraScorer
from ._loop import ModelCaller, RunStats, Transcript, run_turn
from ._mcp import case_tool_mode
from ._tools import ToolSimulator
from ._users import UserFactory, converse
from ._world import CaseWorldRun, start_world

if TYPE_CHECKING:
    from ..exchange import McpConnection
    from ..providers import AgentContext, DrivenAgent
    from ..users import Conversation
    from ..worlds import WorldBuilder


@dataclass(frozen=True, kw_only=True)
class CaseContext:
    """Everything a worker needs, shared by every case of a run."""

    suite: Suite
    provider: Provider
    generation: GenerateConfig
    cache: ResponseCache | None
    keys: RequestKeys | None
    #: the provider limits around each model call attempt (calls in flight, when tighter than
    #: the global limit; starts per second): None when neither applies; any async context
    #: manager (the Ray executor's asks the run's cluster-wide limiter actor)
    limiter: AbstractAsyncContextManager[object] | None
    policy: RetryPolicy
    stats: RunStats
    seed: int
    timeout_s: float
    tool_timeout_s: float
    max_steps: int | None
    scoring: scoring_api.ScoringConfig
    extra_scorers: Sequence[ExtraScorer]
    #: suite tools by name, and each tool's default simulation (built once per run)
    tool_map: dict[str, ToolSpec]
    tool_defaults: dict[str, ToolSim | None]
    #: the open MCP session of the suite's ``tools_from`` (real tool mode sends calls to it)
    tool_connection: McpConnection | None = None
    #: ``--tool-mode`` (None: each case's ``tool_mode``, else ``defaults.tool_mode``)
    tool_mode: ToolMode | None = None
    #: builds each case's world from the suite's ``world`` (None: the suite has none)
    world: WorldBuilder | None = None
    #: builds each case's simulated user (None: the suite has no ``user:`` case)
    users: UserFactory | None = None


def _first_messages(case: Case, suite: Suite) -> list[Message]:
    msgs: list[Message] = []
    system = case.system if case.system is not None else suite.defaults.system
    if isinstance(case.input, str):
        if system:
            msgs.append(Message(role="system", content=system))
        msgs.append(Message(role="user", content=case.input))
    else:
        if system and not (case.input and case.input[0].role == "system"):
            msgs.append(Message(role="system", content=system))
        msgs.extend(case.input)
    return msgs


def _case_tools(case: Case, ctx: CaseContext) -> tuple[list[ToolSpec], dict[str, ToolSpec]]:
    if case.tools is None:
        tools = ctx.suite.tools
        return tools, ctx.tool_map
    tools = ctx.suite.tools_for(case)
    return tools, {t.name: t for t in tools}


def _turn_tools(case: Case, tools: list[ToolSpec], turn: int) -> list[ToolSpec]:
    """The tools offered in ``turn``: the case's, but those a later turn adds (``add_tools``)."""
    held = case.tools_held_back(turn) if case.turns else frozenset()
    return [t for t in tools if t.name not in held] if held else tools


def _error_text(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0] if text else type(exc).__name__


def _simulator(
    case: Case,
    trial: int,
    ctx: CaseContext,
    tools: list[ToolSpec],
    mode: str,
    world: CaseWorldRun | None = None,
) -> ToolSimulator:
    """The case's simulated (or, in real mode, connected) tools, with its faults."""
    defaults: dict[str, ToolSim | None] = ctx.tool_defaults
    if case.tools is not None:
        defaults = {t.name: t.simulation for t in tools}
    faults: list[FaultRate] = case.faults or ctx.suite.defaults.faults
    return ToolSimulator(
        case_id=case.id,
        trial=trial,
        seed=ctx.seed,
        case_results=case.tool_results,
        defaults=defaults,
        faults=faults,
        timeout_s=ctx.tool_timeout_s,
        real=ctx.tool_connection if mode == "real" else None,
        world=world.world if world is not None else None,
    )


def _caller(case: Case, trial: int, ctx: CaseContext, tools: list[ToolSpec]) -> ModelCaller:
    """The case's model calls: cache, limiter, retries and stats of the run."""
    return ModelCaller(
        provider=ctx.provider,
        tools=tools,
        config=ctx.generation,
        trial=trial,
        cache=ctx.cache,
        keys=ctx.keys,
        suite_tools=case.tools is None,
        limiter=ctx.limiter,
        policy=ctx.policy,
        rng_seed=f"{ctx.seed}/{case.id}/{trial}",
        stats=ctx.stats,
    )


def _agent_context(case: Case, trial: int, ctx: CaseContext) -> AgentContext:
    """The run context of a framework agent's case and trial; the thread id is new for every
    run of the case, so a checkpointer that outlives the run never resumes an old thread."""
    import uuid

    from ..providers import AgentContext

    values = {**ctx.suite.defaults.agent_context, **case.agent_context}
    thread = f"agentgauge-{case.id}-{trial}-{uuid.uuid4().hex[:12]}"
    return AgentContext(case_id=case.id, trial=trial, thread_id=thread, values=values)


def _driven(provider: object) -> DrivenAgent | None:
    """The agent as one that runs its own loop, or None: what ``isinstance(provider,
    DrivenAgent)`` decides (a ``name`` and a ``run_turn`` method), without the runtime protocol
    check's cost (≈ 40 µs, once per case: a tenth of a case's CPU at high concurrency)."""
    if callable(getattr(provider, "run_turn", None)) and hasattr(provider, "name"):
        return cast("DrivenAgent", provider)
    return None


async def run_case(case: Case, trial: int, ctx: CaseContext) -> CaseResult:
    """Run one case and trial to a CaseResult; never raises for a failure of the case itself."""
    tools, tool_map = _case_tools(case, ctx)
    mode = case_tool_mode(case, ctx.suite, ctx.tool_mode)
    world, world_error = start_world(case, ctx.world)
    sim = _simulator(case, trial, ctx, tools, mode, world)
    caller = _caller(case, trial, ctx, _turn_tools(case, tools, 0))
    max_steps = ctx.max_steps or case.max_steps or ctx.suite.defaults.max_steps
    tr = Transcript(messages=_first_messages(case, ctx.suite))
    # a framework agent runs its own loop: it gets whole user turns (runner/_driven.py)
    driven = _driven(ctx.provider)
    context = _agent_context(case, trial, ctx) if driven is not None else None

    async def play(turn: int) -> None:
        offered = _turn_tools(case, tools, turn)
        if driven is None:
            caller.offer(offered)
            await run_turn(call_model=caller, sim=sim, max_steps=max_steps, turn=turn, tr=tr)
        else:
            from ._driven import run_driven_turn

            await run_driven_turn(
                driven,
                sim=sim,
                max_steps=max_steps,
                turn=turn,
                tr=tr,
                tools=offered,
                mode=mode,
                generation=ctx.generation,
                stats=ctx.stats,
                context=context,
            )

    error: str | None = None
    conv: Conversation | None = None
    t0 = time.perf_counter()
    # a bare cancel scope with a deadline is cheaper than fail_after, and tells the case's own
    # timeout apart from a TimeoutError raised by the provider
    deadline = anyio.current_time() + ctx.timeout_s
    with anyio.CancelScope(deadline=deadline) as scope:
        try:
            if world_error is not None:
                raise world_error
            conv = ctx.users.start(case, trial, case.latency_budget_s) if ctx.users else None
            await _play_turns(case, tr, play, world, conv)
        except Exception as exc:
            attempts = getattr(exc, "attempts", 1)
            suffix = f" (after {attempts} attempts)" if attempts > 1 else ""
            if isinstance(exc, (ProviderError, ConnectionError, TimeoutError)):
                error = f"provider error: {_error_text(exc)}{suffix}"
            else:
                error = f"{type(exc).__name__}: {_error_text(exc)}{suffix}"
    # a call that cannot be interrupted (an inline sync agent blocking the event loop) may end
    # past the deadline without a cancellation ever reaching the case: still a timeout
    if scope.cancelled_caught or (error is None and anyio.current_time() >= deadline):
        error = f"timeout after {ctx.timeout_s:g}s"
    result = build_result(case, trial, tr, (time.perf_counter() - t0) * 1000.0)
    if world is not None:
        result.world = world.record()
    if conv is not None:
        result.user = conv.record
    if error is not None:
        result.status = "error"
        result.error = error
        result.explanation = error
        if conv is not None:
            conv.record.ended_by = "error"
        return result
    if conv is not None:
        await score_conversation(case, result, tr, conv, tool_map, ctx, world)
        return result
    outcome = world.outcome(case, ctx.world) if world is not None and ctx.world else None
    await score_result(
        case, result, tr.turns, tool_map, ctx.scoring, ctx.extra_scorers, world=outcome
    )
    return result


async def _play_turns(
    case: Case,
    tr: Transcript,
    play: Callable[[int], Awaitable[None]],
    world: CaseWorldRun | None,
    conv: Conversation | None,
) -> None:
    """The agent's first turn, then the simulated user's conversation or the scripted turns."""
    tr.turns.append([])
    await play(0)
    if world is not None:
        world.end_turn()
    if conv is not None:
        await converse(conv, tr, play, world)
    for i, turn in enumerate(case.turns, start=1):
        tr.messages.append(Message(role="user", content=turn.user))
        tr.turns.append([])
        await play(i)
        if world is not None:
            world.end_turn()


async def score_conversation(
    case: Case,
    result: CaseResult,
    tr: Transcript,
    conv: Conversation,
    tool_map: dict[str, ToolSpec],
    ctx: CaseContext,
    world: CaseWorldRun | None,
) -> None:
    """A conversation with a simulated user: ``user_error`` when the user broke its
    instructions; else ``expect`` on the whole conversation (one turn: every call, the last
    reply, the final state), then ``user.tell`` and ``user.must_not_obtain``."""
    whole = [[m for turn in tr.turns for m in turn]]
    outcome = None
    if world is not None and ctx.world is not None and conv.record.error is None:
        final = world.outcome(case, ctx.world)
        outcome = replace(final, turns=final.turns[-1:])
    await grade_with_user(
        case,
        result,
        whole,
        conv.spec,
        conv.record.error,
        tool_map,
        ctx.scoring,
        ctx.extra_scorers,
        outcome,
    )


async def grade_with_user(
    case: Case,
    result: CaseResult,
    whole: list[list[Message]],
    spec: UserSpec,
    user_error: str | None,
    tool_map: dict[str, ToolSpec],
    scoring: scoring_api.ScoringConfig,
    extra_scorers: Sequence[ExtraScorer],
    outcome: WorldOutcome | None,
) -> None:
    """The one rule for a case with a simulated user (run or recorded): ``user_error`` with the
    user's broken instruction; else ``expect`` on ``whole`` (the agent's messages of the whole
    conversation as one turn), then ``user.tell`` and ``user.must_not_obtain``."""
    if user_error is not None:
        result.status = "user_error"
        result.explanation = f"user error: {user_error}"
        return
    # the scorers see the user as it played (defaults merged): user_fidelity judges it
    played = case.model_copy(update={"user": spec})
    await score_result(played, result, whole, tool_map, scoring, extra_scorers, world=outcome)
    if result.status == "error":
        return
    if _judged_user_error(result):
        return
    extra = scoring_api.user_scores(spec, whole)
    result.scores.extend(extra)
    failed = [s for s in extra if s.passed is False]
    if failed:
        lines = [f"{s.name}: {s.explanation}" for s in failed]
        result.explanation = "\n".join(filter(None, [result.explanation, *lines]))
        if result.status == "passed":
            result.status = "failed"
            result.score = min(result.score, 0.99) * (1 - len(failed) / (len(extra) + 1))


def _judged_user_error(result: CaseResult) -> bool:
    """A ``user_fidelity`` judge that found the simulated user broke its instructions (what
    the deterministic checks cannot see: drifting from the goal, playing the agent) makes the
    result ``user_error``, as those checks do (docs/users.md)."""
    broke = next(
        (s for s in result.scores if s.name == "user_fidelity" and s.passed is False), None
    )
    if broke is None:
        return False
    reason = f"the judge found the user broke its instructions (user_fidelity): {broke.explanation}"
    result.status = "user_error"
    result.explanation = f"user error: {reason}"
    if result.user is not None:
        result.user.ended_by = "user_error"
        result.user.error = reason
    return True


def build_result(case: Case, trial: int, tr: Transcript, latency_ms: float) -> CaseResult:
    """The result of ``case`` before scoring: what the agent did (``tr``) and what was expected."""
    calls: list[ToolCall] = []
    text: str | None = None
    for turn in tr.turns:
        for msg in turn:
            if msg.role == "assistant":
                calls.extend(msg.tool_calls)
                text = msg.content
    expect = case.expect
    models = [e for e in tr.trace if e.kind == "model"]
    return CaseResult(
        case_id=case.id,
        trial=trial,
        status="error",
        category=case.category,
        difficulty=case.difficulty,
        tags=case.tags,
        labels=case.labels,
        latency_budget_s=case.latency_budget_s,
        expected_behavior=expect.behavior,
        expected_tools=[c.name for c in expect.tool_calls],
        later_expected_tools=case.later_expected_tools(),
        calls=calls,
        text=text,
        messages=tr.messages,
        trace=tr.trace,
        usage=Usage(input_tokens=tr.input_tokens, output_tokens=tr.output_tokens),
        # no step reported token counts: the usage is unknown, not 0 tokens
        usage_recorded=not models or any(e.usage is not None for e in models),
        model_calls=tr.model_calls,
        tool_calls=tr.tool_calls,
        latency_ms=latency_ms,
        ttft_ms=tr.ttft_ms,
        cost_usd=tr.cost_usd,
        step_limit_hit=bool(tr.step_limit_turns),
        predicted_labels=tr.labels,
    )


async def score_result(
    case: Case,
    result: CaseResult,
    turns: list[list[Message]],
    tool_map: dict[str, ToolSpec],
    scoring: scoring_api.ScoringConfig,
    extra_scorers: Sequence[ExtraScorer],
    *,
    world: WorldOutcome | None = None,
) -> None:
    """Score ``result`` in place: the deterministic verdict (``expect.state`` on ``world``),
    then each extra scorer (the one rule for a driven case and a recorded response)."""
    try:
        # the world only when there is one: a score_case stand-in need not know the keyword
        given = {"world": world} if world is not None else {}
        verdict = scoring_api.score_case(case, turns, tool_map, scoring, **given)
    except Exception as exc:
        result.status = "error"
        result.error = f"scorer crashed: {type(exc).__name__}: {_error_text(exc)}"
        result.explanation = result.error
        return
    result.status = verdict.status
    result.score = verdict.score
    result.scores = list(verdict.scores)
    result.explanation = verdict.explanation
    result.behavior = verdict.behavior
    if verdict.goal_met is not None:
        record = result.world or WorldRecord()
        result.world = record.model_copy(
            update={"goal_met": verdict.goal_met, "diff": verdict.state_diff}
        )
    if result.step_limit_hit:
        note = "the agent reached its step limit"
        result.explanation = f"{result.explanation}\n{note}" if result.explanation else note
    for scorer in extra_scorers:
        name = getattr(scorer, "name", type(scorer).__name__)
        try:
            extra = await scorer.score(case, result, turns)
        except Exception as exc:
            result.status = "error"
            result.error = f"scorer '{name}' crashed: {type(exc).__name__}: {_error_text(exc)}"
            result.explanation = result.error
            return
        result.scores.extend(extra)
        failed = [s for s in extra if s.passed is False]
        if failed and result.status == "passed":
            result.status = "failed"
        for s in failed:
            line = f"{s.name}: {s.explanation}" if s.explanation else s.name
            result.explanation = f"{result.explanation}\n{line}" if result.explanation else line
    if result.status == "failed" and len(result.scores) > len(verdict.scores):
        # a failing judge, assert or python: scorer counts in the case score too
        extra_scores = result.scores[len(verdict.scores) :]
        result.score = scoring_api.failed_case_score(result.score, verdict.scores, extra_scores)
