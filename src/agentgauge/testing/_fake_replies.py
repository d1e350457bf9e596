"""The scripted replies of :class:`~agentgauge.testing.FakeOpenAIServer`: text, tool calls, HTTP
faults, raw bodies and broken streams, and the requests it records."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ..schema import ToolCall

__all__ = ["FakeDrop", "FakeFault", "FakeRaw", "FakeReply", "FakeRequest", "FakeStreamError"]


@dataclass(frozen=True)
class FakeFault:
    """An HTTP error reply: ``FakeFault(429, retry_after="2")`` or ``FakeFault(500)``."""

    status: int
    retry_after: str | None = None
    message: str = "injected fault"


@dataclass(frozen=True)
class FakeDrop:
    """No reply: the server closes the connection (a crashed server, a proxy's reset), which
    the client sees as a transport error."""


@dataclass(frozen=True)
class FakeRaw:
    """A reply sent exactly as given: ``FakeRaw(200, "<html>...</html>", "text/html")``."""

    status: int
    body: str | bytes
    content_type: str = "text/html"


@dataclass(frozen=True)
class FakeStreamError:
    """A streamed reply that sends some text, then an error event (chat: ``{"error": ...}``,
    Responses API: ``{"type": "error", ...}``). Not streamed: an HTTP 500 with the message."""

    message: str
    text: str = "partial"


@dataclass(frozen=True)
class FakeRequest:
    """A request the server received (recorded when ``record=True``)."""

    path: str
    body: dict[str, Any] = field(default_factory=dict)


#: a scripted reply: text, tool call(s), a fault, or a dict ``{"text": ..., "calls": [...]}``
FakeReply: TypeAlias = (
    str
    | ToolCall
    | Sequence[ToolCall]
    | FakeFault
    | FakeRaw
    | FakeStreamError
    | FakeDrop
    | dict[str, Any]
)


@dataclass
class _Reply:
    text: str | None
    calls: list[ToolCall]
    fault: FakeFault | None = None
    raw: FakeRaw | None = None
    stream_error: FakeStreamError | None = None
    drop: bool = False


def _normalise(item: FakeReply) -> _Reply:
    if isinstance(item, FakeFault):
        return _Reply(None, [], item)
    if isinstance(item, FakeRaw):
        return _Reply(None, [], raw=item)
    if isinstance(item, FakeDrop):
        return _Reply(None, [], drop=True)
    if isinstance(item, FakeStreamError):
        return _Reply(item.text, [], stream_error=item)
    if isinstance(item, str):
        return _Reply(item, [])
    if isinstance(item, ToolCall):
        return _Reply(None, [item])
    if isinstance(item, dict):
        calls = [c if isinstance(c, ToolCall) else ToolCall(**c) for c in item.get("calls", [])]
        return _Reply(item.get("text"), calls)
    return _Reply(None, list(item))
