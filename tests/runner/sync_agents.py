"""Blocking (sync) agents for the runner's timeout tests, loaded with ``python:FILE:NAME``."""

from __future__ import annotations

import itertools
import threading
import time

from agentgauge.schema import Message, ToolSpec

#: set by a later case once the abandoned call may go on; set by that call when it is done
RELEASE = threading.Event()
DONE = threading.Event()
_calls = itertools.count()


def reset() -> None:
    global _calls
    RELEASE.clear()
    DONE.clear()
    _calls = itertools.count()


def sleepy(messages: list[Message], tools: list[ToolSpec]) -> str:
    """Sleeps 2 s when asked to be slow, else answers at once."""
    if "slow" in (messages[-1].content or ""):
        time.sleep(2)
        return "a late answer"
    return "a quick answer"


def vandal(messages: list[Message], tools: list[ToolSpec]) -> str:
    """First call: outlives its deadline, then scribbles on everything it was given.

    Second call (the next trial): lets the first one go on and waits until it has scribbled,
    so whatever it could reach has been changed by the time this call returns.
    """
    if next(_calls) == 0:
        RELEASE.wait(30)
        for m in messages:
            m.content = "SCRIBBLED"
        messages.append(Message(role="user", content="SCRIBBLED"))
        for t in tools:
            t.parameters["properties"] = {"scribbled": {"type": "string"}}
        DONE.set()
        return "SCRIBBLED"
    if not RELEASE.is_set():
        RELEASE.set()
        DONE.wait(30)
    return f"answer to {messages[-1].content}; tools: {sorted(tools[0].parameters['properties'])}"
