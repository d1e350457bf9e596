"""A ``mock:`` made from a spec keeps no requests (it may serve a 100,000-case run)."""

from __future__ import annotations

import anyio

from agentgauge.providers import MockProvider, ModelRequest, resolve_provider
from agentgauge.schema import Message


def _ask(provider: MockProvider, n: int) -> None:
    async def go() -> None:
        for i in range(n):
            await provider.generate(ModelRequest(messages=[Message(role="user", content=str(i))]))

    anyio.run(go)


def test_spec_made_mocks_count_but_do_not_keep_requests() -> None:
    for spec in ("mock:", "mock:echo"):
        mock = resolve_provider(spec)
        assert isinstance(mock, MockProvider)
        _ask(mock, 3)
        assert mock.calls == 3
        assert mock.requests == []


def test_record_option_keeps_them() -> None:
    mock = resolve_provider("mock:?record=1")
    assert isinstance(mock, MockProvider)
    _ask(mock, 2)
    assert [r.messages[-1].content for r in mock.requests] == ["0", "1"]
    built = MockProvider(["x"], repeat_last=True)  # built in Python: records by default
    _ask(built, 2)
    assert built.calls == len(built.requests) == 2
    quiet = MockProvider(["x"], repeat_last=True, record=False)
    _ask(quiet, 2)
    assert (quiet.calls, quiet.requests) == (2, [])
