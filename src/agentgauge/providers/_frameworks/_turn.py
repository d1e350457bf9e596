"""The contract between the runner and an agent that runs its own loop (a framework agent).

A step-by-step provider answers one model call at a time and the runner runs the tools. An
agent framework runs the whole loop itself, so the runner hands it one user turn as an
:class:`AgentTurn` and lets it run; the adapter reports what happened through two callbacks,
in the order it happens:

- ``record_model(reply)`` after every model call (the assistant message, its usage, timing);
- ``await call_tool(call, real)`` for every tool call the agent makes: the runner answers it
  with the suite's simulation (``mock``) or, in ``real`` mode, with ``real`` (the agent's own
  tool, given by the adapter), faults injected on top either way; it records the call in the
  trace and returns what the agent should see;
- ``await call_mcp(call, real)`` for every call the framework makes on one of the suite's
  ``mcp_servers`` (attached by the adapter, ``call`` marked ``mcp``): never simulated, in either
  tool mode, since the server is the suite's own, not one of its simulated tools; ``real`` sends
  it to the server, and the runner records it and its result (or error) as it would a tool call.

The runner builds the transcript (messages and trace) from these callbacks, so the scorers read
the same neutral transcript as for any other agent, even when the framework stops early.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ...schema import JsonValue, Message, ToolCall, ToolMode, ToolSpec, Usage
from .._base import GenerateConfig

__all__ = [
    "AgentContext",
    "AgentTurn",
    "DrivenAgent",
    "ModelReply",
    "RealTool",
    "ToolAnswer",
    "TurnEnd",
    "clock",
]

#: the agent's own implementation of one tool call: arguments in, any JSON value out
RealTool = Callable[[dict[str, JsonValue]], Awaitable[JsonValue]]


def clock() -> tuple[float, float]:
    """(wall time, perf counter): the start of a step, for :class:`ModelReply`."""
    return time.time(), time.perf_counter()


@dataclass(frozen=True, kw_only=True)
class ModelReply:
    """One model call the framework made, as observed by its hooks."""

    message: Message
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    #: wall-clock start and end (seconds since the epoch) and the measured latency
    start: float
    end: float
    latency_ms: float
    #: the response's id and why generation stopped, when the framework reports them
    response_id: str | None = None
    finish_reason: str | None = None


@dataclass(frozen=True, kw_only=True)
class ToolAnswer:
    """What the agent sees of one tool call (``content``), the value recorded, and its error."""

    content: str
    result: JsonValue
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class AgentContext:
    """Whose conversation a framework agent is running: handed to a ``?context=`` function,
    which returns what the framework passes to the agent's tools (pydantic-ai's ``deps``, the
    OpenAI Agents SDK's ``context``, LangGraph's ``configurable``)."""

    case_id: str
    trial: int
    #: an id unique to this case and trial in this run (LangGraph's ``thread_id``)
    thread_id: str
    #: the case's ``agent_context`` over the suite's ``defaults.agent_context``
    values: Mapping[str, JsonValue] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class AgentTurn:
    """One user turn handed to a framework agent."""

    #: the conversation so far, ending with the user's message of this turn
    messages: list[Message]
    #: the tools the suite offers in this case (the agent keeps its own tool definitions)
    tools: list[ToolSpec]
    tool_mode: ToolMode
    config: GenerateConfig
    #: model calls allowed in this turn (the framework's own max turns / request limit)
    max_steps: int
    record_model: Callable[[ModelReply], None]
    call_tool: Callable[[ToolCall, RealTool | None], Awaitable[ToolAnswer]]
    #: the case and trial the turn belongs to, with its run context (None: not given)
    context: AgentContext | None = None
    #: the user turn (0: the case input, 1: its first scripted follow-up ...)
    index: int = 0
    #: a call on one of the suite's ``mcp_servers`` (``config.mcp_servers``), run and recorded
    call_mcp: Callable[[ToolCall, RealTool], Awaitable[ToolAnswer]] | None = None


@dataclass(frozen=True, kw_only=True)
class TurnEnd:
    """How the turn ended: ``step_limit`` when the framework stopped at ``max_steps``."""

    step_limit: bool = False


@runtime_checkable
class DrivenAgent(Protocol):
    """An agent under test that runs its own loop: the runner calls :meth:`run_turn` once per
    user turn instead of ``generate`` once per model call."""

    name: str

    async def run_turn(self, turn: AgentTurn) -> TurnEnd: ...
