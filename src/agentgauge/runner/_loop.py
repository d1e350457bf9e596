"""The agent loop: model -> tool calls -> simulated results -> model ... for every user turn."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field

from ..providers import (
    GenerateConfig,
    ModelRequest,
    ModelResponse,
    Provider,
    RequestKeys,
    ResponseCache,
    RetryPolicy,
    with_retries,
)
from ..schema import Labels, Message, ToolCall, ToolSpec, TraceEvent
from ._prices import FREE_PREFIXES, cost_usd
from ._tools import ToolSimulator


@dataclass(kw_only=True, slots=True)
class RunStats:
    """Counters shared by every case of a run."""

    provider_calls: int = 0
    cache_hits: int = 0


@dataclass(kw_only=True, slots=True)
class Transcript:
    """What happened in one case: the whole conversation, per-turn agent messages and a trace."""

    messages: list[Message] = field(default_factory=list)
    turns: list[list[Message]] = field(default_factory=list)
    trace: list[TraceEvent] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    model_calls: int = 0
    tool_calls: int = 0
    ttft_ms: float | None = None
    cost_usd: float | None = None
    #: user turns (0 = the case input) whose step limit was reached
    step_limit_turns: list[int] = field(default_factory=list)
    #: what the agent reported about its decisions (route, skill, intents), merged over the
    #: case's responses: see :func:`merge_labels`
    labels: Labels | None = None


def merge_labels(seen: Labels | None, new: Labels | None) -> Labels | None:
    """The case's reported labels after one more response.

    The first route and the first skill reported win (the decision an agent makes on the
    request; a later step is a sub-agent's business); intents and retrieved knowledge items
    accumulate, in the order they were first reported; the case fell back when any response
    said so. Every response's own labels stay on its trace step.
    """
    if new is None:
        return seen
    if seen is None:
        return new
    intents = list(dict.fromkeys([*seen.intents, *new.intents]))
    fallback = seen.fallback if new.fallback is None else new.fallback or bool(seen.fallback)
    return Labels(
        route=seen.route if seen.route is not None else new.route,
        skill=seen.skill if seen.skill is not None else new.skill,
        intents=intents,
        knowledge=list(dict.fromkeys([*seen.knowledge, *new.knowledge])),
        fallback=fallback,
    )


class ModelCaller:
    """Calls the provider for one case: cache, per-provider limit, retries and trace events."""

    def __init__(
        self,
        *,
        provider: Provider,
        tools: list[ToolSpec],
        config: GenerateConfig,
        trial: int,
        cache: ResponseCache | None,
        keys: RequestKeys | None,
        suite_tools: bool,
        limiter: AbstractAsyncContextManager[object] | None,
        policy: RetryPolicy,
        rng_seed: str,
        stats: RunStats,
    ) -> None:
        self._provider = provider
        self._tools = tools
        self._config = config
        self._cache = cache
        self._hasher = None
        self._keys = keys
        self._trial = trial
        self._suite_tools = suite_tools
        if cache is not None and keys is not None:
            self._hasher = keys.for_case(tools, trial, suite_tools=suite_tools)
        self._limiter = limiter
        self._policy = policy
        self._rng_seed = rng_seed
        self._rng: random.Random | None = None
        self._stats = stats
        #: a local, mock or Python agent costs nothing, whatever its model is called
        self._free = provider.name.startswith(FREE_PREFIXES)

    @property
    def tools(self) -> list[ToolSpec]:
        return self._tools

    def offer(self, tools: list[ToolSpec]) -> None:
        """Offer ``tools`` from the next model call on (a turn that adds held-back tools)."""
        if [t.name for t in tools] == [t.name for t in self._tools]:
            return
        self._tools = tools
        if self._hasher is not None and self._keys is not None:
            self._hasher = self._keys.for_case(tools, self._trial, suite_tools=False)

    def _get_rng(self) -> random.Random:
        """The case's backoff jitter source, made only when a retry needs it."""
        if self._rng is None:
            self._rng = random.Random(self._rng_seed)
        return self._rng

    async def __call__(self, messages: list[Message], turn: int, tr: Transcript) -> ModelResponse:
        start = time.time()
        t0 = time.perf_counter()
        key = self._hasher.key(messages) if self._hasher is not None else None
        cached = False
        attempts = 1
        hit = self._cache.get(key) if self._cache is not None and key is not None else None
        if hit is not None:
            resp = hit
            cached = True
            self._stats.cache_hits += 1
        else:
            request = ModelRequest(messages=list(messages), tools=self._tools, config=self._config)

            limiter = self._limiter
            generate = self._provider.generate

            async def attempt() -> ModelResponse:
                self._stats.provider_calls += 1
                if limiter is None:
                    return await generate(request)
                async with limiter:
                    return await generate(request)

            try:
                resp, attempts = await with_retries(attempt, self._policy, rng=self._get_rng)
            except Exception as exc:
                end = time.time()
                tr.trace.append(
                    TraceEvent(
                        kind="model",
                        turn=turn,
                        start=start,
                        end=end,
                        latency_ms=(time.perf_counter() - t0) * 1000.0,
                        model=self._provider.name,
                        attempts=getattr(exc, "attempts", 1),
                        error=f"{type(exc).__name__}: {exc}",
                    )
                )
                raise
            if self._cache is not None and key is not None:
                self._cache.put(key, resp)
        latency_ms = (time.perf_counter() - t0) * 1000.0
        model = resp.model or self._provider.name
        usage = resp.usage if resp.usage_reported else None  # unknown tokens: unknown cost
        cost = cost_usd(self._provider.name, usage) if self._free and usage else None
        if cost is None and usage is not None:
            cost = cost_usd(model, usage)
        tr.model_calls += 1
        tr.input_tokens += resp.usage.input_tokens
        tr.output_tokens += resp.usage.output_tokens
        if cost is not None:
            tr.cost_usd = (tr.cost_usd or 0.0) + cost
        if tr.ttft_ms is None and resp.ttft_ms is not None and not cached:
            tr.ttft_ms = resp.ttft_ms
        if resp.labels is not None:
            tr.labels = merge_labels(tr.labels, resp.labels)
        tr.trace.append(
            TraceEvent(
                kind="model",
                turn=turn,
                start=start,
                end=time.time(),
                latency_ms=latency_ms,
                model=model,
                usage=usage,
                ttft_ms=None if cached else resp.ttft_ms,
                cached=cached,
                cost_usd=cost,
                attempts=attempts,
                labels=resp.labels,
                response_model=resp.model or None,
                response_id=None if cached else resp.response_id,
                finish_reason=resp.finish_reason,
            )
        )
        return resp


async def _run_tools(
    calls: Sequence[ToolCall], sim: ToolSimulator, turn: int, tr: Transcript
) -> list[Message]:
    out: list[Message] = []
    for call in calls:
        outcome = await sim.call(call)
        tr.tool_calls += 1
        tr.trace.append(outcome.trace_event(call, turn))
        out.append(
            Message(role="tool", content=outcome.content, tool_call_id=call.id, name=call.name)
        )
    return out


def _record_server_steps(steps: Sequence[Message], turn: int, tr: Transcript) -> None:
    """What the vendor's API did for the model before its reply (calls to a remote MCP
    server, each with its result): into the conversation, and a ``tool`` step per call on the
    trace, its time not measured (``latency_ms`` 0: the API does not report it)."""
    results = {m.tool_call_id: m.content for m in steps if m.role == "tool" and m.tool_call_id}
    now = time.time()
    for m in steps:
        tr.messages.append(m)
        tr.turns[turn].append(m)
        for c in m.tool_calls:
            tr.tool_calls += 1
            tr.trace.append(
                TraceEvent(
                    kind="tool", turn=turn, start=now, end=now, latency_ms=0.0,
                    tool=c.name, arguments=c.arguments, result=results.get(c.id or ""),
                )
            )  # fmt: skip


def _with_call_ids(msg: Message, prefix: str) -> Message:
    """Give id-less tool calls an id, so each tool result can name the call it answers."""
    calls = [
        c if c.id is not None else c.model_copy(update={"id": f"{prefix}{i}"})
        for i, c in enumerate(msg.tool_calls)
    ]
    return msg.model_copy(update={"tool_calls": calls})


async def run_turn(
    *,
    call_model: ModelCaller,
    sim: ToolSimulator,
    max_steps: int,
    turn: int,
    tr: Transcript,
) -> None:
    """Drive the agent until it replies without tool calls or ``max_steps`` model calls are spent.

    When the limit is reached the turn is recorded in ``tr.step_limit_turns`` and the case is
    scored as it stands: a looping agent ends, it never hangs.

    Messages are appended to ``tr.messages`` and to ``tr.turns[turn]`` as they happen, so a case
    cut short (timeout, provider error) keeps what it did so far.
    """
    agent_msgs = tr.turns[turn]
    for step in range(max_steps):
        resp = await call_model(tr.messages, turn, tr)
        if resp.server_steps:
            _record_server_steps(resp.server_steps, turn, tr)
        msg = resp.message
        if msg.tool_calls and any(c.id is None for c in msg.tool_calls):
            msg = _with_call_ids(msg, f"call_{turn}_{step}_")
        tr.messages.append(msg)
        agent_msgs.append(msg)
        # a call the vendor's API made on an MCP server is not run here (it ran, or the
        # API left it)
        calls = [c for c in msg.tool_calls if not c.mcp]
        if not calls:
            return
        # the calls are answered even on the last step, so the conversation stays well formed
        # for later scripted turns
        results = await _run_tools(calls, sim, turn, tr)
        tr.messages.extend(results)
        agent_msgs.extend(results)
    tr.step_limit_turns.append(turn)
