"""FakeOpenAIServer with a known capacity: at most K completions at once, the rest queued or
refused with 429 (what the load tests measure a saturation point against)."""

from __future__ import annotations

import anyio
import pytest

from agentgauge.errors import ProviderError
from agentgauge.providers import GenerateConfig, ModelRequest, resolve_provider
from agentgauge.schema import Message
from agentgauge.testing import FakeOpenAIServer


def _burst(server: FakeOpenAIServer, n: int, *, stream: bool = False) -> list[str]:
    """``n`` requests sent at once; each one's outcome: ``ok`` or ``HTTP <status>``."""
    provider = resolve_provider("openai:fake-model", base_url=server.base_url, api_key="k")
    out: list[str] = []

    async def one(i: int) -> None:
        request = ModelRequest(
            messages=[Message(role="user", content=f"q{i}")], config=GenerateConfig(stream=stream)
        )
        try:
            await provider.generate(request)
            out.append("ok")
        except ProviderError as exc:
            out.append(f"HTTP {exc.status}")

    async def go() -> None:
        async with anyio.create_task_group() as tg:
            for i in range(n):
                tg.start_soon(one, i)
        await provider.aclose()  # type: ignore[attr-defined]

    anyio.run(go)
    return out


@pytest.mark.parametrize("stream", [False, True])
def test_queue_mode_serves_at_most_k_at_once_and_everyone_in_the_end(stream: bool) -> None:
    # a long latency keeps every request in flight while the burst arrives: 6 requests, K = 2
    with FakeOpenAIServer(latency_ms=150, chunk_delay_ms=5, max_concurrent=2) as srv:
        out = _burst(srv, 6, stream=stream)
    assert out == ["ok"] * 6
    assert srv.peak_in_flight == 2  # never more than K ...
    assert srv.queued_peak >= 1  # ... and the others waited
    assert srv.in_flight == 0
    assert srv.rejected == 0


def test_reject_mode_refuses_past_k_with_429() -> None:
    with FakeOpenAIServer(latency_ms=300, max_concurrent=2, over_capacity="reject") as srv:
        out = _burst(srv, 5)
    assert sorted(out) == ["HTTP 429"] * 3 + ["ok"] * 2
    assert srv.rejected == 3
    assert srv.peak_in_flight == 2


def test_without_a_capacity_nothing_waits() -> None:
    with FakeOpenAIServer(latency_ms=150) as srv:
        out = _burst(srv, 5)
    assert out == ["ok"] * 5
    assert srv.peak_in_flight == 5
    assert srv.queued_peak == 0


def test_capacity_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_concurrent"):
        FakeOpenAIServer(max_concurrent=0)


@pytest.mark.parametrize("stream", [False, True])
def test_a_dropped_connection_is_a_transient_transport_error_and_frees_its_slot(
    stream: bool,
) -> None:
    from collections.abc import Iterator

    from agentgauge.testing import FakeDrop, FakeReply

    replies: Iterator[FakeReply] = iter([FakeDrop(), "fine"])
    with FakeOpenAIServer(lambda _r: next(replies), max_concurrent=1, record=False) as srv:
        provider = resolve_provider("openai:fake-model", base_url=srv.base_url, api_key="k")
        errors: list[ProviderError] = []
        texts: list[str | None] = []

        async def go() -> None:
            request = ModelRequest(
                messages=[Message(role="user", content="q")], config=GenerateConfig(stream=stream)
            )
            try:
                await provider.generate(request)
            except ProviderError as exc:
                errors.append(exc)
            texts.append((await provider.generate(request)).message.content)  # slot freed
            await provider.aclose()  # type: ignore[attr-defined]

        anyio.run(go)
        assert srv.in_flight == 0
    (err,) = errors
    assert err.status is None
    assert err.transient
    assert "connection" in str(err).lower()
    assert texts == ["fine"]
