"""Test doubles for agentgauge users and its own tests.

- :class:`MockProvider`: a scripted agent under test (a queue of replies and tool calls).
"""

from __future__ import annotations

from ..providers._mock import MockProvider, MockReply

__all__ = ["MockProvider", "MockReply"]
