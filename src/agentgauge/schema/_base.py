"""Shared base classes and small value types of the on-disk formats."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .._factories import new_dict, new_list

#: version of every record agentgauge writes (results, run records, summaries, suites it exports)
FORMAT_VERSION = 1

JsonValue = Any
"""Any JSON value (kept as ``Any`` so pydantic does not coerce it)."""


class Model(BaseModel):
    """Base of every on-disk model: unknown fields are errors, never silently dropped."""

    model_config = ConfigDict(extra="forbid", validate_assignment=False, populate_by_name=True)


Role = Literal["system", "user", "assistant", "tool"]


def _false(value: object) -> bool:
    return value is False


def _none(value: object) -> bool:
    return value is None


class ToolCall(Model):
    """One tool call made by an agent (neutral form, whatever the vendor)."""

    name: str
    arguments: dict[str, JsonValue] = Field(default_factory=new_dict)
    id: str | None = None
    #: the transcript itself says this call went to an MCP server's tool (Anthropic's
    #: ``mcp_tool_use`` block, the Responses API's ``mcp_call`` item, an OTel ``tools/call``
    #: span, ``"mcp": true`` in the neutral form): an ``mcp`` call whatever the suite's tools
    #: say (docs/scoring.md). Written only when true (``exclude_if``: a plain call's dump, and
    #: so every existing result, cache key and suite hash, is unchanged)
    mcp: bool = Field(default=False, exclude_if=_false)
    #: the MCP server the vendor's connector called (Anthropic ``server_name``, Responses
    #: ``server_label``), when the transcript names it; written only when set
    mcp_server: str | None = Field(default=None, exclude_if=_none)


class Message(Model):
    """One turn of a conversation, in agentgauge's neutral form."""

    role: Role
    content: str | None = None
    #: tool calls made in an assistant turn
    tool_calls: list[ToolCall] = Field(default_factory=new_list)
    #: for role ``tool``: the id of the call this result answers
    tool_call_id: str | None = None
    #: for role ``tool``: the tool's name
    name: str | None = None


class Usage(Model):
    """Token usage of one model call (or a sum of them)."""

    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
        )
