"""``openai-agents:path/to/agent.py:agent``: an OpenAI Agents SDK ``Agent``, run unchanged.

Each user turn is one ``Runner.run(agent, input, max_turns=max_steps, hooks=...)``: the run's
``RunHooks`` (``on_llm_start`` / ``on_llm_end``) report every model call with its output items
and token usage, and each ``FunctionTool`` of the agent is handed to the run wrapped (on a
``clone`` of the agent; the user's object is never changed), so its calls go through the runner:
``mock`` mode answers them with the suite's simulations, ``real`` mode calls the tool's own
``on_invoke_tool``. Hosted tools (web search, file search ...) and the tools of handed-off
agents run as the SDK runs them and are not simulated. The conversation so far is passed as
Responses-style input items (the case's system prompt as a ``system`` item, ``?system=0``
leaves it out and keeps only the agent's own instructions). The run's ``context`` (what tools
read as ``RunContextWrapper.context``) is the ``?context=`` function's value for the case, else
the case's ``agent_context`` mapping.

A suite's ``mcp_servers`` are attached the SDK's client-side way, an ``MCPServerStreamableHttp``
per server (its token as a bearer header, its ``tools`` as the SDK's static tool filter),
connected for the turn; the SDK lists the server's tools as it lists an agent's own MCP servers'
(``Agent.get_mcp_tools``), and each becomes a tool of the run whose calls go to the runner marked
``mcp`` (sent to the server in either tool mode, never simulated). ``HostedMCPTool`` (the
Responses API calling the server itself) is not used: it works only with OpenAI's own Responses
model and would need the server reachable from OpenAI.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import json
import time
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

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

__all__ = ["OpenAIAgentsAgent", "create", "input_items", "output_message"]

PREFIX = "openai-agents"


def input_items(messages: list[Message], *, system: bool = True) -> list[dict[str, Any]]:
    """Our messages as Responses-style input items, for ``Runner.run``."""
    items: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            if system and m.content:
                items.append({"role": "system", "content": m.content})
        elif m.role == "user":
            items.append({"role": "user", "content": m.content or ""})
        elif m.role == "assistant":
            if m.content:
                items.append({"role": "assistant", "content": m.content})
            for c in m.tool_calls:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": c.id or f"call_{len(items)}",
                        "name": c.name,
                        "arguments": json.dumps(c.arguments),
                    }
                )
        elif m.role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": m.tool_call_id or "",
                    "output": m.content or "",
                }
            )
    return items


def _get(item: Any, key: str) -> Any:
    return item.get(key) if isinstance(item, dict) else getattr(item, key, None)


def output_message(output: list[Any]) -> Message:
    """A model response's output items as one assistant message (text and tool calls)."""
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in output:
        kind = _get(item, "type")
        if kind == "function_call":
            calls.append(
                ToolCall(
                    name=str(_get(item, "name")),
                    arguments=arguments(_get(item, "arguments")),
                    id=_get(item, "call_id") or _get(item, "id"),
                )
            )
        elif kind == "message":
            for part in _get(item, "content") or []:
                text = _get(part, "text")
                if isinstance(text, str):
                    texts.append(text)
    return Message(role="assistant", content="".join(texts) or None, tool_calls=calls)


def _finish(response: Any) -> str:
    """``tool_calls`` when the response asks for tools, else ``stop`` (the SDK's output items
    carry no finish reason)."""
    kinds = {_get(item, "type") for item in response.output}
    return "tool_calls" if "function_call" in kinds else "stop"


#: set around one MCP call: the server's ``isError`` lands here (the SDK hands the model the
#: error's text as an ordinary result)
_MCP_ERROR: ContextVar[list[bool] | None] = ContextVar("agentgauge_mcp_error", default=None)


@functools.cache
def _server_class(mcp: Any) -> Any:
    """The SDK's streamable-HTTP MCP server, telling :data:`_MCP_ERROR` a result's ``isError``."""

    class Server(mcp.MCPServerStreamableHttp):  # type: ignore[misc]
        async def call_tool(self, *args: Any, **kwargs: Any) -> Any:
            result = await super().call_tool(*args, **kwargs)
            seen = _MCP_ERROR.get()
            # ``is_error`` in the mcp SDK 2, ``isError`` before
            if seen is not None and (
                getattr(result, "is_error", False) or getattr(result, "isError", False)
            ):
                seen.append(True)
            return result

    return Server


def _model_name(agent: Any) -> str:
    model = getattr(agent, "model", None)
    if isinstance(model, str):
        return model
    return str(getattr(model, "model", "") or "")


class OpenAIAgentsAgent(FrameworkAgent):
    """Runs an OpenAI Agents SDK ``Agent`` once per user turn (see the module docstring)."""

    #: a suite's ``mcp_servers`` are attached (client side, see the module docstring)
    mcp_connector = True

    def __init__(self, agent: Any, *, name: str, system: bool = True, context: Any = None) -> None:
        self.agent = agent
        self.name = name
        self._context = context  # the ?context= function, or None
        self.cache_tag = target_tag(name.partition(":")[2]) or source_tag(agent)
        self._system = system

    def _wrap(self, sdk: Any, tool: Any, turn: AgentTurn) -> Any:
        if not isinstance(tool, sdk.FunctionTool):
            return tool
        original = tool.on_invoke_tool

        async def invoke(ctx: Any, input_json: str) -> Any:
            call = ToolCall(
                name=tool.name,
                arguments=arguments(input_json),
                id=getattr(ctx, "tool_call_id", None),
            )

            async def real(args: dict[str, JsonValue]) -> JsonValue:
                return json_value(await original(ctx, json.dumps(args)))

            answer = await turn.call_tool(call, real)
            return answer.content

        return dataclasses.replace(tool, on_invoke_tool=invoke)

    def _wrap_mcp(self, tool: Any, server: str, turn: AgentTurn) -> Any:
        """A tool the SDK made of an MCP server's tool, its calls recorded by the runner."""
        original = tool.on_invoke_tool
        record = turn.call_mcp

        async def invoke(ctx: Any, input_json: str) -> Any:
            if record is None:
                return await original(ctx, input_json)
            call = ToolCall(
                name=tool.name,
                arguments=arguments(input_json),
                id=getattr(ctx, "tool_call_id", None),
                mcp=True,
                mcp_server=server,
            )

            async def real(args: dict[str, JsonValue]) -> JsonValue:
                seen: list[bool] = []
                token = _MCP_ERROR.set(seen)
                try:
                    value = json_value(await original(ctx, json.dumps(args)))
                finally:
                    _MCP_ERROR.reset(token)
                return failed(value) if seen else text_of(value)

            return (await record(call, real)).content

        wrapped = copy.copy(tool)  # keeps the SDK's MCP marks (not all are dataclass fields)
        wrapped.on_invoke_tool = invoke
        return wrapped

    async def _mcp_tools(
        self, sdk: Any, turn: AgentTurn, stack: contextlib.AsyncExitStack, context: Any
    ) -> tuple[list[Any], dict[str, str]]:
        """The suite's MCP servers connected for this turn: their tools (wrapped) and each tool
        name's server."""
        if not turn.config.mcp_servers:
            return [], {}
        mcp = require("agents.mcp", "openai-agents", "openai-agents")
        tools: list[Any] = []
        names: dict[str, str] = {}
        for s in turn.config.mcp_servers:
            server = _server_class(mcp)(
                params={"url": s.url, "headers": mcp_headers(s)},
                name=s.name,
                cache_tools_list=True,
                tool_filter=mcp.create_static_tool_filter(allowed_tool_names=list(s.tools))
                if s.tools
                else None,
            )
            await stack.enter_async_context(server)
            lister = self.agent.clone(mcp_servers=[server])
            for tool in await lister.get_mcp_tools(sdk.RunContextWrapper(context=context)):
                names[tool.name] = s.name
                tools.append(self._wrap_mcp(tool, s.name, turn))
        return tools, names

    def _hooks(self, sdk: Any, turn: AgentTurn, mcp_names: Mapping[str, str]) -> Any:
        started: dict[int, tuple[float, float]] = {}

        class Hooks(sdk.RunHooks):  # type: ignore[misc]
            async def on_llm_start(self, context: Any, agent: Any, *args: Any) -> None:
                started[id(agent)] = (time.time(), time.perf_counter())

            async def on_llm_end(self, context: Any, agent: Any, response: Any) -> None:
                wall, t0 = started.pop(id(agent), (time.time(), time.perf_counter()))
                usage = getattr(response, "usage", None)
                turn.record_model(
                    ModelReply(
                        message=mark_mcp(output_message(list(response.output)), mcp_names),
                        usage=Usage(
                            input_tokens=int(getattr(usage, "input_tokens", 0) or 0),
                            output_tokens=int(getattr(usage, "output_tokens", 0) or 0),
                        ),
                        model=_model_name(agent),
                        start=wall,
                        end=time.time(),
                        latency_ms=(time.perf_counter() - t0) * 1000.0,
                        response_id=getattr(response, "response_id", None) or None,
                        finish_reason=_finish(response),
                    )
                )

        return Hooks()

    async def run_turn(self, turn: AgentTurn) -> TurnEnd:
        sdk = require("agents", "openai-agents", "openai-agents")
        own = [self._wrap(sdk, t, turn) for t in self.agent.tools]
        context = await run_context(self._context, turn)
        try:
            async with contextlib.AsyncExitStack() as stack:
                mcp_tools, mcp_names = await self._mcp_tools(sdk, turn, stack, context)
                await sdk.Runner.run(
                    self.agent.clone(tools=own + mcp_tools),
                    input_items(turn.messages, system=self._system),
                    max_turns=turn.max_steps,
                    hooks=self._hooks(sdk, turn, mcp_names),
                    context=context,
                )
        except sdk.MaxTurnsExceeded:
            return TurnEnd(step_limit=True)
        except Exception as exc:
            raise agent_error(self.name, exc) from exc
        return TurnEnd()


def create(rest: str, **options: Any) -> OpenAIAgentsAgent:
    """``openai-agents:FILE.py:agent`` (``?system=0``: leave the case's system prompt out;
    ``?context=FUNCTION``: the function that makes each case's run context)."""
    target, opts = parse_options(PREFIX, rest, options, {"system": True, "context": None})
    sdk = require("agents", "openai-agents", "openai-agents")
    obj = load_target(PREFIX, target)
    if not isinstance(obj, sdk.Agent):
        from ...errors import UserError

        raise UserError(
            f"{PREFIX}:{target}: is a {type(obj).__name__}, not an agents.Agent "
            "(name the Agent object: FILE.py:agent)"
        )
    factory = context_factory(PREFIX, target, opts["context"])
    return OpenAIAgentsAgent(obj, name=f"{PREFIX}:{target}", system=opts["system"], context=factory)
