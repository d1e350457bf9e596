"""Test doubles for agentgauge users and its own tests.

- :class:`MockProvider`: a scripted agent under test (a queue of replies and tool calls);
- :class:`FakeOpenAIServer`: a loopback OpenAI-compatible HTTP server with scripted replies,
  fixed latency and fault injection (:class:`FakeFault`); also runnable as a process with
  ``python -m agentgauge.testing.fake_openai``.
"""

from __future__ import annotations

from ..providers import MockProvider, MockReply
from ._fake_openai import (
    FakeDrop,
    FakeFault,
    FakeOpenAIServer,
    FakeRaw,
    FakeReply,
    FakeRequest,
    FakeStreamError,
)

__all__ = [
    "FakeDrop",
    "FakeFault",
    "FakeOpenAIServer",
    "FakeRaw",
    "FakeReply",
    "FakeRequest",
    "FakeStreamError",
    "MockProvider",
    "MockReply",
]
