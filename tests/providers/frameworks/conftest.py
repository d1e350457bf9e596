"""One loopback fake model for every framework test of the session (the example agents build
their model clients from the environment once, when first imported)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from quickstart_model import quickstart_server


@pytest.fixture(scope="session")
def fake_server() -> Iterator[str]:
    """The oracle model on 127.0.0.1."""
    with quickstart_server() as server:
        yield server.base_url


@pytest.fixture
def fake_model(fake_server: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The environment the example agents read their model client from."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake_server)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-key")
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    monkeypatch.setenv("AGENT_MODEL", "fake-quickstart")
    return fake_server


@pytest.fixture(autouse=True)
def _fresh_http_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    # the OpenAI Agents SDK and langchain-openai each keep one HTTP client, bound to the event
    # loop of its first use; every run_suite here is a new event loop (an agentgauge run is one)
    with contextlib.suppress(ImportError, AttributeError):
        monkeypatch.setattr("agents.models.openai_provider._http_client", None)
    try:
        from langchain_openai.chat_models import _client_utils
    except ImportError:
        return
    _client_utils._cached_async_httpx_client.cache_clear()
