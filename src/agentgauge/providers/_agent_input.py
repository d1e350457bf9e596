"""What a one-argument ``python:`` agent callable receives."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..schema import Message, ToolSpec
from ._base import GenerateConfig

__all__ = ["AgentInput"]


@dataclass(frozen=True, kw_only=True)
class AgentInput:
    """What a one-argument agent callable receives."""

    #: the conversation so far: system/user turns, the agent's earlier turns, tool results
    messages: list[Message]
    #: the tools the agent may call
    tools: list[ToolSpec] = field(default_factory=list)
    config: GenerateConfig = field(default_factory=GenerateConfig)

    @property
    def last_user_message(self) -> str:
        """The text of the latest user turn ('' when there is none)."""
        for m in reversed(self.messages):
            if m.role == "user":
                return m.content or ""
        return ""
