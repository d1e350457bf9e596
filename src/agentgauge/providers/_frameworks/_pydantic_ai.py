"""``pydantic-ai:path/to/agent.py:agent``: a pydantic-ai ``Agent``, run unchanged.

Each user turn is one ``agent.run(prompt, message_history=..., usage_limits=...)``. The agent's
model is wrapped in a ``WrapperModel`` (pydantic-ai's own extension point) that times every
request and reports its response and token usage; the agent's toolsets are wrapped in a
``WrapperToolset`` whose ``call_tool`` sends each call through the runner (``mock``: the
suite's simulations; ``real``: the agent's own tool). Both are applied with ``agent.override``,
which is scoped to the running task, so the user's agent is never changed and concurrent cases
stay apart. ``max_steps`` becomes ``UsageLimits(request_limit=...)``. The run's ``deps`` (what
tools read as ``RunContext.deps``) are the ``?context=`` function's value for the case, else the
case's ``agent_context`` built into the agent's ``deps_type`` (a dataclass or pydantic model;
another type gets the mapping).

A suite's ``mcp_servers`` are attached as pydantic-ai's own client-side MCP toolsets, an
``MCPToolset`` per server (the FastMCP client of ``pydantic-ai-slim[mcp]``; its token as a bearer
header, its ``tools`` as a ``filtered`` toolset), added to the run's toolsets by the same
``override``; a wrapper marks the tools it lists as the server's and sends each call through the
runner marked ``mcp`` (to the server in either tool mode, never simulated). A tool error the
toolset raises (``ModelRetry`` by default, ``ToolFailed``) is recorded as a failed call and
raised again, so the agent behaves as it would without agentgauge. The provider-hosted
``MCPServerTool`` (the model's vendor calling the server) is not used: only some vendors'
models take it and the server must be reachable from the vendor.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ...errors import UserError
from ...schema import JsonValue, Message, ToolCall, Usage
from .._python import source_tag
from ._common import (
    FrameworkAgent,
    agent_error,
    arguments,
    context_factory,
    json_value,
    load_target,
    parse_options,
    require,
    run_context,
    target_tag,
)
from ._mcp import failed, mark_mcp, mcp_headers, text_of
from ._turn import AgentTurn, ModelReply, TurnEnd

__all__ = ["PydanticAIAgent", "create", "from_response", "to_history"]

PREFIX = "pydantic-ai"
_EXTRA = "pydantic-ai"


def _sdk() -> Any:
    return require("pydantic_ai", "pydantic-ai-slim", _EXTRA)


def to_history(messages: list[Message]) -> tuple[str, list[Any]]:
    """(the last user prompt, the messages before it as pydantic-ai message history)."""
    pm = require("pydantic_ai.messages", "pydantic-ai-slim", _EXTRA)
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    prompt = messages[last].content or "" if last is not None else ""
    history: list[Any] = []
    names: dict[str, str] = {}
    for m in messages[:last] if last is not None else messages:
        if m.role == "system":
            history.append(pm.ModelRequest(parts=[pm.SystemPromptPart(content=m.content or "")]))
        elif m.role == "user":
            history.append(pm.ModelRequest(parts=[pm.UserPromptPart(content=m.content or "")]))
        elif m.role == "assistant":
            parts: list[Any] = [pm.TextPart(content=m.content)] if m.content else []
            for i, c in enumerate(m.tool_calls):
                cid = c.id or f"call_{len(history)}_{i}"
                names[cid] = c.name
                parts.append(
                    pm.ToolCallPart(tool_name=c.name, args=dict(c.arguments), tool_call_id=cid)
                )
            history.append(pm.ModelResponse(parts=parts))
        elif m.role == "tool":
            cid = m.tool_call_id or ""
            part = pm.ToolReturnPart(
                tool_name=m.name or names.get(cid, ""), content=m.content or "", tool_call_id=cid
            )
            history.append(pm.ModelRequest(parts=[part]))
    return prompt, history


def from_response(response: Any) -> Message:
    """A pydantic-ai ``ModelResponse`` as our assistant message."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for part in response.parts:
        kind = getattr(part, "part_kind", "")
        if kind == "text":
            texts.append(str(part.content))
        elif kind == "tool-call":
            calls.append(
                ToolCall(name=part.tool_name, arguments=arguments(part.args), id=part.tool_call_id)
            )
    return Message(role="assistant", content="".join(texts) or None, tool_calls=calls)


def _timed_model(sdk: Any, model: Any, turn: AgentTurn, mcp_names: Mapping[str, str]) -> Any:
    wrapper = require("pydantic_ai.models.wrapper", "pydantic-ai-slim", _EXTRA)

    class Observed(wrapper.WrapperModel):  # type: ignore[misc, name-defined]
        """Reports every model request of the run to the runner."""

        async def request(self, *args: Any, **kwargs: Any) -> Any:
            wall, t0 = time.time(), time.perf_counter()
            response = await super().request(*args, **kwargs)
            usage = getattr(response, "usage", None)
            turn.record_model(
                ModelReply(
                    message=mark_mcp(from_response(response), mcp_names),
                    usage=Usage(
                        input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
                        output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
                    ),
                    model=str(getattr(response, "model_name", "") or self.model_name),
                    start=wall,
                    end=time.time(),
                    latency_ms=(time.perf_counter() - t0) * 1000.0,
                    response_id=getattr(response, "provider_response_id", None) or None,
                    finish_reason=getattr(response, "finish_reason", None) or None,
                )
            )
            return response

    return Observed(model)


def _routed(toolset: Any, turn: AgentTurn) -> Any:
    ts = require("pydantic_ai.toolsets", "pydantic-ai-slim", _EXTRA)

    class Routed(ts.WrapperToolset):  # type: ignore[misc, name-defined]
        """Sends each tool call of the run through the runner."""

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
            call = ToolCall(
                name=name, arguments=arguments(tool_args), id=getattr(ctx, "tool_call_id", None)
            )

            async def real(args: dict[str, JsonValue]) -> JsonValue:
                return json_value(await self.wrapped.call_tool(name, dict(args), ctx, tool))

            answer = await turn.call_tool(call, real)
            return answer.content

    return Routed(toolset)


def _mcp_routed(toolset: Any, server: str, names: dict[str, str], turn: AgentTurn) -> Any:
    """``toolset`` (one of the suite's MCP servers): the tools it lists noted as ``server``'s in
    ``names``, each call sent through the runner's ``call_mcp``."""
    ts = require("pydantic_ai.toolsets", "pydantic-ai-slim", _EXTRA)
    errors = require("pydantic_ai.exceptions", "pydantic-ai-slim", _EXTRA)
    tool_errors = (errors.ModelRetry, errors.ToolFailed)
    record = turn.call_mcp

    class McpRouted(ts.WrapperToolset):  # type: ignore[misc, name-defined]
        """Marks the server's tools and records each of their calls."""

        async def get_tools(self, ctx: Any) -> Any:
            tools = await super().get_tools(ctx)
            names.update(dict.fromkeys(tools, server))
            return tools

        async def call_tool(self, name: str, tool_args: dict[str, Any], ctx: Any, tool: Any) -> Any:
            if record is None:
                return await self.wrapped.call_tool(name, tool_args, ctx, tool)
            call = ToolCall(
                name=name,
                arguments=arguments(tool_args),
                id=getattr(ctx, "tool_call_id", None),
                mcp=True,
                mcp_server=server,
            )
            raised: list[BaseException] = []

            async def real(args: dict[str, JsonValue]) -> JsonValue:
                try:
                    value = await self.wrapped.call_tool(name, dict(args), ctx, tool)
                except tool_errors as exc:
                    raised.append(exc)
                    return failed(str(getattr(exc, "message", None) or exc))
                return text_of(json_value(value))

            answer = await record(call, real)
            if raised:
                raise raised[0]
            return answer.content

    return McpRouted(toolset)


def _mcp_toolsets(turn: AgentTurn, names: dict[str, str]) -> list[Any]:
    """The suite's MCP servers as pydantic-ai toolsets for this turn (see the module docstring)."""
    if not turn.config.mcp_servers:
        return []
    require("fastmcp", "pydantic-ai-slim[mcp]", _EXTRA)
    mcp = require("pydantic_ai.mcp", "pydantic-ai-slim[mcp]", _EXTRA)
    out: list[Any] = []
    for s in turn.config.mcp_servers:
        toolset: Any = mcp.MCPToolset(s.url, id=s.name, headers=mcp_headers(s) or None)
        if s.tools:
            allowed = frozenset(s.tools)
            toolset = toolset.filtered(lambda ctx, tool, allowed=allowed: tool.name in allowed)
        out.append(_mcp_routed(toolset, s.name, names, turn))
    return out


class PydanticAIAgent(FrameworkAgent):
    """Runs a pydantic-ai ``Agent`` once per user turn (see the module docstring)."""

    #: a suite's ``mcp_servers`` are attached (client side, see the module docstring)
    mcp_connector = True

    def __init__(self, agent: Any, *, name: str, context: Any = None) -> None:
        self.agent = agent
        self.name = name
        self._context = context  # the ?context= function, or None
        self.cache_tag = target_tag(name.partition(":")[2]) or source_tag(agent)

    async def run_turn(self, turn: AgentTurn) -> TurnEnd:
        sdk = _sdk()
        usage = require("pydantic_ai.usage", "pydantic-ai-slim", _EXTRA)
        model = getattr(self.agent, "model", None)
        if model is None:
            raise UserError(f"{self.name}: the agent has no model (give Agent(model=...))")
        prompt, history = to_history(turn.messages)
        mcp_names: dict[str, str] = {}
        toolsets = [_routed(t, turn) for t in self.agent.toolsets]
        toolsets += _mcp_toolsets(turn, mcp_names)
        deps = await run_context(self._context, turn)
        if self._context is None and deps is not None:
            deps = _as_deps(self.agent, deps, self.name)
        try:
            with self.agent.override(toolsets=toolsets, tools=[]):
                await self.agent.run(
                    prompt,
                    message_history=history or None,
                    model=_timed_model(sdk, model, turn, mcp_names),
                    usage_limits=usage.UsageLimits(request_limit=turn.max_steps),
                    deps=deps,
                )
        except sdk.UsageLimitExceeded:
            return TurnEnd(step_limit=True)
        except UserError:
            raise
        except Exception as exc:
            raise agent_error(self.name, exc) from exc
        return TurnEnd()


def _as_deps(agent: Any, values: dict[str, Any], name: str) -> Any:
    """The case's ``agent_context`` as the agent's ``deps_type``: a dataclass or pydantic model
    built from it, else the mapping itself."""
    import dataclasses

    deps_type = getattr(agent, "deps_type", None)
    try:
        if isinstance(deps_type, type) and dataclasses.is_dataclass(deps_type):
            return deps_type(**values)
        validate = getattr(deps_type, "model_validate", None)
        if isinstance(deps_type, type) and callable(validate):
            return validate(values)
    except (TypeError, ValueError) as err:
        first = str(err).splitlines()[0]
        kind = getattr(deps_type, "__name__", str(deps_type))
        raise UserError(f"{name}: agent_context does not make a {kind}: {first}") from None
    return values


def create(rest: str, **options: Any) -> PydanticAIAgent:
    """``pydantic-ai:FILE.py:agent`` (a ``pydantic_ai.Agent`` with its model set);
    ``?context=FUNCTION`` names the function that makes each case's ``deps``."""
    target, opts = parse_options(PREFIX, rest, options, {"context": None})
    sdk = _sdk()
    obj = load_target(PREFIX, target)
    if not isinstance(obj, sdk.Agent):
        raise UserError(
            f"{PREFIX}:{target}: is a {type(obj).__name__}, not a pydantic_ai.Agent "
            "(name the Agent object: FILE.py:agent)"
        )
    factory = context_factory(PREFIX, target, opts["context"])
    return PydanticAIAgent(obj, name=f"{PREFIX}:{target}", context=factory)
