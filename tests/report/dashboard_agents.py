"""Three scripted agents over examples/modules for the dashboard tests and its screenshot.

Not AIs: each replays the example's oracle plan (or its wrong router) and reports made-up but
plausible usage (tokens grow with the conversation), a priced model name (so the run has USD)
and a time to first token, and spends a few milliseconds so latencies differ between agents.
Each is a provider object, so its usage is priced as the model's (a ``python:`` callable
costs nothing).

- ``careful``: the oracle, slow and verbose (model ``gpt-4o``);
- ``hasty``: the oracle, but it guesses instead of asking (no clarification) and drops the
  arguments of every third call; fast and terse (``gpt-4o-mini``);
- ``kb_router``: sends everything to the knowledge base (``gpt-4o-mini``).

    agentgauge run examples/modules --allow-suite-code \
      --agent python:tests/report/dashboard_agents.py:careful \
      --agent python:tests/report/dashboard_agents.py:hasty -o runs/compare
"""

from __future__ import annotations

import asyncio
import runpy
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentgauge.providers import ModelRequest, ModelResponse
from agentgauge.schema import Labels, Message, ToolCall, ToolSpec, Usage

_ORACLE = Path(__file__).resolve().parents[2] / "examples" / "modules" / "oracle_agent.py"
_oracle = runpy.run_path(str(_ORACLE))
_plan, _kb = _oracle["agent"], _oracle["kb_for_everything"]


def _response(
    move: dict[str, Any], messages: list[Message], *, model: str, scale: float, ttft: float
) -> ModelResponse:
    calls = [
        ToolCall(id=f"c{k}", name=c["name"], arguments=c.get("arguments", {}))
        for k, c in enumerate(move.get("tool_calls", []))
    ]
    text = move.get("text")
    chars = sum(len(m.content or "") for m in messages)
    usage = Usage(
        input_tokens=int((220 + chars / 3.5) * scale),
        output_tokens=int((18 + len(text or "") / 3.5 + 24 * len(calls)) * scale),
    )
    labels = Labels(**move["labels"]) if "labels" in move else None
    return ModelResponse(
        message=Message(role="assistant", content=text, tool_calls=calls),
        usage=usage,
        model=model,
        ttft_ms=ttft + (chars % 7),
        labels=labels,
    )


def _careful(messages: list[Message], tools: list[ToolSpec]) -> tuple[ModelResponse, float]:
    move = _plan(messages, tools)
    return _response(move, messages, model="gpt-4o", scale=1.6, ttft=180.0), 0.006


def _hasty(messages: list[Message], tools: list[ToolSpec]) -> tuple[ModelResponse, float]:
    move = _plan(messages, tools)
    text = move.get("text") or ""
    if "?" in text and not move.get("tool_calls"):
        # guesses instead of asking: calls the knowledge base with the request itself
        move = {
            "tool_calls": [{"name": "search_kb", "arguments": {"query": messages[-1].content}}],
            "labels": {"route": "knowledge_base", "skill": "kb.faq", "intents": ["faq"]},
        }
    calls = move.get("tool_calls", [])
    if calls and len(messages) % 3 == 0:
        move = {**move, "tool_calls": [{"name": c["name"], "arguments": {}} for c in calls]}
    return _response(move, messages, model="gpt-4o-mini", scale=0.8, ttft=70.0), 0.002


def _kb_router(messages: list[Message], tools: list[ToolSpec]) -> tuple[ModelResponse, float]:
    move = _kb(messages, tools)
    return _response(move, messages, model="gpt-4o-mini", scale=0.7, ttft=60.0), 0.001


class _Scripted:
    """A provider object (not a bare callable), so the run prices its usage like a vendor's:
    ``python:`` callables are free by definition."""

    def __init__(self, name: str, move: Callable[..., tuple[ModelResponse, float]]) -> None:
        self.name = f"scripted:{name}"
        self._move = move

    async def generate(self, request: ModelRequest) -> ModelResponse:
        response, seconds = self._move(request.messages, request.tools)
        await asyncio.sleep(seconds)
        return response


careful = _Scripted("careful", _careful)
hasty = _Scripted("hasty", _hasty)
kb_router = _Scripted("kb_router", _kb_router)
