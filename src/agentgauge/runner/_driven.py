"""A user turn of an agent that runs its own loop (``openai-agents:``, ``langgraph:``,
``pydantic-ai:``): the adapter reports each model reply and sends each tool call here, and the
transcript and trace are built from those reports, in the order they happen.

Tool calls go through the case's :class:`~agentgauge.runner.ToolSimulator`: in ``mock`` mode
the suite's simulations answer them; in ``real`` mode the agent's own tool does (handed over
by the adapter), with rate faults and a simulation's ``fault`` still injected on top. A call on
one of the suite's ``mcp_servers`` (marked ``mcp`` by the adapter) is sent to the server in
either mode, with no fault, and recorded as it happened.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..providers import (
    AgentContext,
    AgentTurn,
    DrivenAgent,
    GenerateConfig,
    ModelReply,
    RealTool,
    ToolAnswer,
)
from ..schema import JsonValue, Message, ToolCall, ToolMode, ToolSpec, TraceEvent
from ._loop import RunStats, Transcript
from ._prices import cost_usd
from ._tools import ToolSimulator


@dataclass(frozen=True, kw_only=True, slots=True)
class _Done:
    content: str
    result: JsonValue
    error: str | None


class _OwnTool:
    """The agent's own implementation of one tool, as the simulator's ``real`` backend."""

    def __init__(self, name: str, fn: RealTool) -> None:
        self.names = frozenset({name})
        self._fn = fn

    async def call(self, name: str, arguments: dict[str, JsonValue], timeout_s: float) -> _Done:
        import anyio
        import orjson

        try:
            with anyio.fail_after(timeout_s):
                value = await self._fn(dict(arguments))
        except TimeoutError:
            msg = f"tool '{name}' timed out after {timeout_s:g}s"
            return _failed(msg)
        except Exception as exc:
            from ..providers import redact

            return _failed(redact(f"tool '{name}' raised {type(exc).__name__}: {exc}"))
        if isinstance(value, str):
            return _Done(content=value, result=_parsed(value), error=None)
        try:
            text = orjson.dumps(value).decode()
        except TypeError:
            text = str(value)
            value = text
        return _Done(content=text, result=value, error=None)


def _failed(msg: str) -> _Done:
    import orjson

    return _Done(content=orjson.dumps({"error": msg}).decode(), result={"error": msg}, error=msg)


def _parsed(text: str) -> JsonValue:
    import orjson

    try:
        value: JsonValue = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    return value


def _assistant_message(reply: ModelReply, turn: int, step: int) -> Message:
    """The reply as an assistant message, every tool call with an id."""
    msg = reply.message
    if msg.role != "assistant":
        msg = msg.model_copy(update={"role": "assistant"})
    if msg.tool_calls and any(c.id is None for c in msg.tool_calls):
        calls = [
            c if c.id is not None else c.model_copy(update={"id": f"call_{turn}_{step}_{i}"})
            for i, c in enumerate(msg.tool_calls)
        ]
        msg = msg.model_copy(update={"tool_calls": calls})
    return msg


def _record_model_call(tr: Transcript, reply: ModelReply, model: str, turn: int) -> None:
    """Count one model call of a driven agent (tokens, cost) and trace it."""
    cost = cost_usd(model, reply.usage)
    tr.model_calls += 1
    tr.input_tokens += reply.usage.input_tokens
    tr.output_tokens += reply.usage.output_tokens
    if cost is not None:
        tr.cost_usd = (tr.cost_usd or 0.0) + cost
    tr.trace.append(
        TraceEvent(
            kind="model",
            turn=turn,
            start=reply.start,
            end=reply.end,
            latency_ms=reply.latency_ms,
            model=model,
            usage=reply.usage,
            cost_usd=cost,
            response_model=reply.model or None,
            response_id=reply.response_id,
            finish_reason=reply.finish_reason,
        )
    )


async def run_driven_turn(
    agent: DrivenAgent,
    *,
    sim: ToolSimulator,
    max_steps: int,
    turn: int,
    tr: Transcript,
    tools: list[ToolSpec],
    mode: ToolMode,
    generation: GenerateConfig,
    stats: RunStats | None = None,
    context: AgentContext | None = None,
) -> None:
    """Run one user turn of ``agent``; messages and trace go to ``tr`` as they happen."""
    agent_msgs = tr.turns[turn]
    steps = 0

    def record_model(reply: ModelReply) -> None:
        nonlocal steps
        msg = _assistant_message(reply, turn, steps)
        steps += 1
        if stats is not None:  # the run's count of model calls made
            stats.provider_calls += 1
        _record_model_call(tr, reply, reply.model or agent.name, turn)
        tr.messages.append(msg)
        agent_msgs.append(msg)

    async def call_mcp(call: ToolCall, real: RealTool) -> ToolAnswer:
        start, t0 = time.time(), time.perf_counter()
        done = await _OwnTool(call.name, real).call(call.name, call.arguments, sim.timeout_s)
        if done.error is None and isinstance(done.result, dict) and set(done.result) == {"error"}:
            done = _Done(content=done.content, result=done.result, error=str(done.result["error"]))
        tr.tool_calls += 1
        tr.trace.append(
            TraceEvent(
                kind="tool", turn=turn, start=start, end=time.time(),
                latency_ms=(time.perf_counter() - t0) * 1000.0, tool=call.name,
                arguments=call.arguments, result=done.result, error=done.error,
            )
        )  # fmt: skip
        message = Message(role="tool", content=done.content, tool_call_id=call.id, name=call.name)
        tr.messages.append(message)
        agent_msgs.append(message)
        return ToolAnswer(content=done.content, result=done.result, error=done.error)

    async def call_tool(call: ToolCall, real: RealTool | None) -> ToolAnswer:
        backend = _OwnTool(call.name, real) if mode == "real" and real is not None else None
        outcome = await sim.call(call, real=backend)
        tr.tool_calls += 1
        tr.trace.append(outcome.trace_event(call, turn))
        message = Message(
            role="tool", content=outcome.content, tool_call_id=call.id, name=call.name
        )
        tr.messages.append(message)
        agent_msgs.append(message)
        return ToolAnswer(content=outcome.content, result=outcome.result, error=outcome.error)

    end = await agent.run_turn(
        AgentTurn(
            messages=list(tr.messages),
            tools=tools,
            tool_mode=mode,
            config=generation,
            max_steps=max_steps,
            record_model=record_model,
            call_tool=call_tool,
            context=context,
            index=turn,
            call_mcp=call_mcp,
        )
    )
    if end.step_limit:
        tr.step_limit_turns.append(turn)
