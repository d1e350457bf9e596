"""The native recorded-responses format: what an agent answered, per case, without a run.

``responses.jsonl`` holds one :class:`RecordedResponse` per line::

    {"case_id": "golden-0001", "trial": 0, "text": "Paris.", "calls": []}
    {"case_id": "A001", "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}

Importers write it (``golden`` with a ``response`` column); ``agentgauge score`` reads it.
"""

from __future__ import annotations

from pydantic import Field

from ..schema import FORMAT_VERSION, Model, ToolCall

__all__ = ["RecordedResponse"]


class RecordedResponse(Model):
    """One recorded reply of an agent to one case (and trial)."""

    version: int = FORMAT_VERSION
    case_id: str = Field(min_length=1)
    trial: int = Field(default=0, ge=0)
    #: the final reply text, if any
    text: str | None = None
    #: the tool calls made, in order
    calls: list[ToolCall] = Field(default_factory=list)
