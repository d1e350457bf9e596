"""``langgraph:path/to/graph.py:graph``: a compiled LangGraph graph over ``messages``, run
unchanged.

Each user turn is one ``graph.ainvoke({"messages": [...]}, config)``: a LangChain callback
handler in ``config["callbacks"]`` (``on_chat_model_start`` / ``on_llm_end``) reports every
chat-model call with its message and token usage, and every ``ToolNode`` of the graph sends its
calls through the runner, by the ToolNode's own interception hook (``awrap_tool_call``): ``mock``
mode answers them with the suite's simulations, ``real`` mode runs the graph's tool. The hook is
installed once per graph and is inert outside an agentgauge turn (a context variable says which
turn a call belongs to), so concurrent cases do not see each other's tools. A tool called
outside a ``ToolNode`` (in your own node's code) runs as it is and is not simulated: mock mode
cannot replace it. ``max_steps`` becomes the graph's ``recursion_limit`` (two graph steps per
model call and its tools).

Each case and trial runs in its own thread: ``configurable.thread_id`` is a new id per case and
trial (what a graph compiled with a checkpointer needs), with the case's ``agent_context`` (or
the ``?context=`` function's mapping) merged into ``configurable``. A graph with a checkpointer
keeps the thread's messages itself, so a later turn sends only the new user message.
"""

from __future__ import annotations

import contextvars
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
from ._turn import AgentTurn, ModelReply, TurnEnd

__all__ = ["LangGraphAgent", "create", "from_langchain", "to_langchain"]

PREFIX = "langgraph"
_EXTRA = "langgraph"

#: the turn a ToolNode call belongs to (None: not inside an agentgauge turn)
_TURN: contextvars.ContextVar[AgentTurn | None] = contextvars.ContextVar(
    "agentgauge_langgraph_turn", default=None
)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


def to_langchain(messages: list[Message]) -> list[Any]:
    """Our messages as LangChain message objects."""
    lc = require("langchain_core.messages", "langgraph", _EXTRA)
    out: list[Any] = []
    for m in messages:
        if m.role == "system":
            out.append(lc.SystemMessage(content=m.content or ""))
        elif m.role == "user":
            out.append(lc.HumanMessage(content=m.content or ""))
        elif m.role == "assistant":
            calls = [
                {"name": c.name, "args": dict(c.arguments), "id": c.id or f"call_{i}"}
                for i, c in enumerate(m.tool_calls)
            ]
            out.append(lc.AIMessage(content=m.content or "", tool_calls=calls))
        elif m.role == "tool":
            out.append(lc.ToolMessage(content=m.content or "", tool_call_id=m.tool_call_id or ""))
    return out


def from_langchain(message: Any) -> Message:
    """A LangChain ``AIMessage`` as our assistant message."""
    calls = [
        ToolCall(name=str(c.get("name")), arguments=arguments(c.get("args")), id=c.get("id"))
        for c in getattr(message, "tool_calls", None) or []
    ]
    text = _text(getattr(message, "content", ""))
    return Message(role="assistant", content=text or None, tool_calls=calls)


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _usage(message: Any, llm_output: dict[str, Any] | None) -> Usage:
    meta = getattr(message, "usage_metadata", None) or {}
    if meta:
        return Usage(
            input_tokens=int(meta.get("input_tokens", 0) or 0),
            output_tokens=int(meta.get("output_tokens", 0) or 0),
        )
    usage = (llm_output or {}).get("token_usage") or {}
    return Usage(
        input_tokens=int(usage.get("prompt_tokens", 0) or 0),
        output_tokens=int(usage.get("completion_tokens", 0) or 0),
    )


def _handler(turn: AgentTurn) -> Any:
    base = require("langchain_core.callbacks", "langgraph", _EXTRA)
    started: dict[Any, tuple[float, float]] = {}

    class Observer(base.AsyncCallbackHandler):  # type: ignore[misc, name-defined]
        """Reports each chat-model call of the graph to the runner."""

        async def on_chat_model_start(
            self, serialized: dict[str, Any], messages: list[list[Any]], **kwargs: Any
        ) -> None:
            started[kwargs.get("run_id")] = (time.time(), time.perf_counter())

        async def on_llm_end(self, response: Any, **kwargs: Any) -> None:
            wall, t0 = started.pop(kwargs.get("run_id"), (time.time(), time.perf_counter()))
            generation = response.generations[0][0] if response.generations else None
            message = getattr(generation, "message", None)
            if message is None:
                return
            meta = getattr(message, "response_metadata", None) or {}
            llm_output = response.llm_output if isinstance(response.llm_output, dict) else {}
            model = str(meta.get("model_name") or llm_output.get("model_name") or "")
            turn.record_model(
                ModelReply(
                    message=from_langchain(message),
                    usage=_usage(message, llm_output),
                    model=model,
                    start=wall,
                    end=time.time(),
                    latency_ms=(time.perf_counter() - t0) * 1000.0,
                    response_id=_text_or_none(meta.get("id") or getattr(message, "id", None)),
                    finish_reason=_text_or_none(meta.get("finish_reason")),
                )
            )

    return Observer()


def _interceptor(previous: Any) -> Any:
    """A ToolNode ``awrap_tool_call`` that hands calls of an agentgauge turn to the runner."""
    lc = require("langchain_core.messages", "langgraph", _EXTRA)

    async def intercept(request: Any, execute: Any) -> Any:
        turn = _TURN.get()
        if turn is None:
            return await (previous(request, execute) if previous else execute(request))
        raw = request.tool_call
        call = ToolCall(
            name=str(raw.get("name")), arguments=arguments(raw.get("args")), id=raw.get("id")
        )

        async def real(args: dict[str, JsonValue]) -> JsonValue:
            again = request.override(tool_call={**raw, "args": dict(args)})
            done = await (previous(again, execute) if previous else execute(again))
            content = getattr(done, "content", done)
            status = getattr(done, "status", "success")
            if status == "error":
                raise RuntimeError(_text(content))
            return json_value(_text(content) if not isinstance(content, str) else content)

        answer = await turn.call_tool(call, real)
        return lc.ToolMessage(
            content=answer.content,
            tool_call_id=raw.get("id") or "",
            name=call.name,
            status="error" if answer.error else "success",
        )

    intercept.agentgauge = True  # type: ignore[attr-defined]
    return intercept


def _tool_nodes(graph: Any) -> list[Any]:
    prebuilt = require("langgraph.prebuilt", "langgraph", _EXTRA)
    nodes = getattr(graph, "nodes", None) or {}
    return [
        n.bound for n in nodes.values() if isinstance(getattr(n, "bound", None), prebuilt.ToolNode)
    ]


class LangGraphAgent(FrameworkAgent):
    """Runs a compiled LangGraph graph once per user turn (see the module docstring)."""

    def __init__(self, graph: Any, *, name: str, context: Any = None) -> None:
        self.graph = graph
        self.name = name
        self._context = context  # the ?context= function, or None
        # a graph with a checkpointer keeps each thread's messages between turns itself
        self.checkpointed = getattr(graph, "checkpointer", None) not in (None, False)
        self.cache_tag = target_tag(name.partition(":")[2]) or source_tag(graph)
        self.tool_nodes = _tool_nodes(graph)
        for node in self.tool_nodes:
            current = getattr(node, "_awrap_tool_call", None)
            if not getattr(current, "agentgauge", False):
                # the ToolNode's own interception hook; a sync wrapper of yours is kept (used
                # as is when the call is not an agentgauge turn's)
                node._awrap_tool_call = _interceptor(current)

    async def run_turn(self, turn: AgentTurn) -> TurnEnd:
        errors = require("langgraph.errors", "langgraph", _EXTRA)
        if turn.tool_mode == "mock" and not self.tool_nodes and turn.tools:
            raise UserError(
                f"{self.name}: the graph has no ToolNode, so its tools cannot be replaced by the "
                "suite's simulations: run it with --tool-mode real"
            )
        # a model step and its tools step per model call (a graph with more nodes per round
        # reaches the limit sooner)
        config = {
            "callbacks": [_handler(turn)],
            "recursion_limit": 2 * turn.max_steps,
            "configurable": await self._configurable(turn),
        }
        messages = turn.messages
        if self.checkpointed and turn.index > 0:  # the thread holds the turns before
            messages = _since_last_reply(messages)
        token = _TURN.set(turn)
        try:
            await self.graph.ainvoke({"messages": to_langchain(messages)}, config=config)
        except errors.GraphRecursionError:
            return TurnEnd(step_limit=True)
        except UserError:
            raise
        except Exception as exc:
            raise agent_error(self.name, exc) from exc
        finally:
            _TURN.reset(token)
        return TurnEnd()

    async def _configurable(self, turn: AgentTurn) -> dict[str, Any]:
        """``config["configurable"]``: the case's thread id (what a checkpointer needs), the
        case's ``agent_context`` or the ``?context=`` function's mapping over it."""
        out: dict[str, Any] = {}
        if turn.context is not None:
            out["thread_id"] = turn.context.thread_id
            out.update(turn.context.values)
        if self._context is None:
            return out
        extra = await run_context(self._context, turn)
        if extra is not None and not isinstance(extra, Mapping):
            raise UserError(
                f"{self.name}: the context function returned a {type(extra).__name__}, not a "
                "mapping (it is merged into the graph's configurable)"
            )
        out.update(extra or {})
        return out


def _since_last_reply(messages: list[Message]) -> list[Message]:
    """The messages after the agent's last reply (a later turn's new user message)."""
    last = max((i for i, m in enumerate(messages) if m.role in ("assistant", "tool")), default=-1)
    return messages[last + 1 :]


def create(rest: str, **options: Any) -> LangGraphAgent:
    """``langgraph:FILE.py:graph`` (a compiled graph whose state has ``messages``);
    ``?context=FUNCTION`` names the run-context function (docs/bring-your-agent.md)."""
    target, opts = parse_options(PREFIX, rest, options, {"context": None})
    require("langgraph", "langgraph", _EXTRA)
    obj = load_target(PREFIX, target)
    if not callable(getattr(obj, "ainvoke", None)):
        raise UserError(
            f"{PREFIX}:{target}: is a {type(obj).__name__}, not a compiled graph "
            "(name the object builder.compile() returned: FILE.py:graph)"
        )
    factory = context_factory(PREFIX, target, opts["context"])
    return LangGraphAgent(obj, name=f"{PREFIX}:{target}", context=factory)
