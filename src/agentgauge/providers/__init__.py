"""Agents under test and judges: one adapter per wire API, resolved from a spec string.

Specs: ``openai:MODEL``, ``anthropic:MODEL``, ``gemini:MODEL``, ``local:smollm2`` or
``local:PATH.gguf``, ``python:package.module:function``, ``http://...`` / ``https://...``,
``mock:...``; agent frameworks ``openai-agents:FILE.py:agent``, ``langgraph:FILE.py:graph``,
``pydantic-ai:FILE.py:agent`` (agents that run their own loop: :class:`DrivenAgent`). Vendor SDKs
and frameworks are imported only when their adapter is created.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ._agent_input import AgentInput
from ._asker import CachedAsker
from ._base import (
    GenerateConfig,
    McpConnector,
    ModelRequest,
    ModelResponse,
    Provider,
    close_provider,
)
from ._bodycap import (
    MAX_RESPONSE_ENV,
    cap_httpx_client,
    max_response_bytes,
)
from ._cache import (
    CacheStats,
    PruneReport,
    RequestKeys,
    ResponseCache,
    cache_file,
    cache_stats,
    default_cache_dir,
    prune_cache,
)
from ._common import redact, register_secret, register_secret_url
from ._mock import MockProvider, MockReply
from ._registry import resolve_provider, spec_problem
from ._retry import RetryPolicy, with_retries

if TYPE_CHECKING:
    from ._frameworks._turn import (
        AgentContext,
        AgentTurn,
        DrivenAgent,
        ModelReply,
        RealTool,
        ToolAnswer,
        TurnEnd,
    )

#: a framework agent's turn records, imported on first use (only such an agent needs them)
_FRAMEWORKS: dict[str, str] = dict.fromkeys(
    ("AgentContext", "AgentTurn", "DrivenAgent", "ModelReply", "RealTool", "ToolAnswer", "TurnEnd"),
    "._frameworks._turn",
)

__all__ = [
    "MAX_RESPONSE_ENV",
    "AgentContext",
    "AgentInput",
    "AgentTurn",
    "CacheStats",
    "CachedAsker",
    "DrivenAgent",
    "GenerateConfig",
    "McpConnector",
    "MockProvider",
    "MockReply",
    "ModelReply",
    "ModelRequest",
    "ModelResponse",
    "Provider",
    "PruneReport",
    "RealTool",
    "RequestKeys",
    "ResponseCache",
    "RetryPolicy",
    "ToolAnswer",
    "TurnEnd",
    "cache_file",
    "cache_stats",
    "cap_httpx_client",
    "close_provider",
    "default_cache_dir",
    "max_response_bytes",
    "prune_cache",
    "redact",
    "register_secret",
    "register_secret_url",
    "resolve_provider",
    "spec_problem",
    "with_retries",
]

__getattr__, __dir__ = lazy_exports(__name__, _FRAMEWORKS, __all__)
