"""The provider contract: one async method that turns a request into an assistant message."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..schema import Labels, Message, ToolSpec, Usage


@dataclass(frozen=True, kw_only=True)
class McpConnector:
    """A remote MCP server the vendor's API calls for the model (a suite's ``mcp_servers:``):
    Anthropic's MCP connector, the Responses API's ``mcp`` tool. Only adapters whose
    ``mcp_connector`` attribute is true take it; their replies mark the calls it made
    (``ToolCall.mcp``) and carry them, with their results, in ``ModelResponse.server_steps``."""

    name: str
    url: str
    #: the bearer token (read from the environment variable the suite names, registered as a
    #: secret); never shown, never part of a cache key
    token: str | None = field(default=None, repr=False)
    #: offer only these tools of the server (empty: all)
    tools: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class GenerateConfig:
    """Generation parameters; ``None`` leaves the provider's default."""

    temperature: float | None = 0.0
    max_tokens: int | None = None
    seed: int | None = 0
    #: stream the response (to measure time to first token) when the provider can
    stream: bool = False
    #: a JSON Schema the reply's text must match (judges ask for their verdict shape). Each
    #: adapter maps it to the provider's constrained-output mode: OpenAI-style
    #: ``response_format`` (also Ollama, llama.cpp server, vLLM), the embedded model's
    #: grammar, an Anthropic forced tool, Gemini's ``response_json_schema``. The reply is
    #: then one JSON object in ``message.content``.
    response_schema: dict[str, Any] | None = None
    #: remote MCP servers the vendor calls for the model (empty: none)
    mcp_servers: tuple[McpConnector, ...] = ()


@dataclass(frozen=True, kw_only=True)
class ModelRequest:
    """What the runner asks of a model: the conversation so far and the tools on offer."""

    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    config: GenerateConfig = field(default_factory=GenerateConfig)


@dataclass(frozen=True, kw_only=True)
class ModelResponse:
    """A provider's answer in neutral form."""

    #: the assistant message (text and/or tool calls)
    message: Message
    usage: Usage = field(default_factory=Usage)
    #: False when the agent reported no token counts (a ``python:`` agent returning text or
    #: calls, an ``http`` reply without ``usage``): ``usage`` is then zeros standing for
    #: "unknown", and the result is left out of token means and costs (never 0 tokens)
    usage_reported: bool = True
    #: the model that answered, as the provider names it
    model: str = ""
    #: time to first token, when streamed
    ttft_ms: float | None = None
    finish_reason: str | None = None
    #: the response's id as the API gave it (OpenAI ``id``, Anthropic ``id``, Gemini
    #: ``responseId``), for the trace (``gen_ai.response.id``)
    response_id: str | None = None
    #: what the agent reports about its own decision: the route, skill or intents it chose
    #: (``Labels``); recorded on the trace step and in ``CaseResult.predicted_labels``, where
    #: routing / skill / intent accuracy read it (docs/metrics.md, "Diagnosis")
    labels: Labels | None = None
    #: what the API did for the model before ``message``, in order: the assistant's calls to
    #: a remote MCP server (marked ``mcp``), each followed by its result as a ``tool``
    #: message. The runner records them and runs none of them (they already ran)
    server_steps: tuple[Message, ...] = ()


@runtime_checkable
class Provider(Protocol):
    """An agent under test (or a judge).

    ``generate`` is the one required method. Raise :class:`agentgauge.errors.ProviderError`
    for failures: its ``transient`` flag decides whether the runner retries.
    """

    #: a stable name including the model, e.g. ``openai:gpt-4o-mini``; part of the cache key
    name: str

    async def generate(self, request: ModelRequest) -> ModelResponse: ...


async def close_provider(provider: Provider) -> None:
    """Release a provider's connections (its optional ``aclose()`` hook); call once per run.

    Adapters that hold network sessions (``openai:``, ``http://``) define ``async aclose()``;
    the others need nothing. Safe to call on any provider.
    """
    aclose = getattr(provider, "aclose", None)
    if aclose is not None:
        await aclose()
